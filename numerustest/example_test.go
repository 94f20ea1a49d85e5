package numerustest_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/numerustest"
)

// DailyQuota is a limiter a user might write: n tokens per calendar day in UTC, all of them back
// at midnight. Like the limiters of package numerus, it is an immutable value, and it treats an
// instant earlier than the latest admitted one as that one.
type DailyQuota struct {
	n, used int64
	day     time.Time // the midnight that starts the day used counts
	last    time.Time // the latest admitted instant
}

// NewDailyQuota returns a quota of n tokens a day.
func NewDailyQuota(n int64) DailyQuota { return DailyQuota{n: n} }

func midnight(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// today returns the instant to count at, the midnight that starts its day and the tokens used.
func (q DailyQuota) today(at time.Time) (time.Time, time.Time, int64) {
	if at.Before(q.last) {
		at = q.last
	}
	day := midnight(at)
	if day.Equal(q.day) {
		return at, day, q.used
	}
	return at, day, 0
}

// Debit takes one token.
func (q DailyQuota) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return q.DebitN(at, 1)
}

// DebitN takes cost tokens, or says from when it could: the next midnight, or never for more
// than a whole day's quota.
func (q DailyQuota) DebitN(at time.Time, cost int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	if cost < 1 {
		panic("daily quota: cost below 1")
	}
	at, day, used := q.today(at)
	switch {
	case cost > q.n:
		return q, numerus.Never(), false
	case cost > q.n-used:
		return q, numerus.DebitableFrom(day.AddDate(0, 0, 1)), false
	}
	return DailyQuota{n: q.n, used: used + cost, day: day, last: at}, numerus.DebitableFrom(at), true
}

// Status reports the tokens left today; the quota is full at the next midnight.
func (q DailyQuota) Status(at time.Time) numerus.Status {
	at, day, used := q.today(at)
	s := numerus.Status{Limit: q.n, Remaining: q.n - used, Full: numerus.DebitableFrom(at)}
	if used > 0 {
		s.Full = numerus.DebitableFrom(day.AddDate(0, 0, 1))
	}
	return s
}

// String names the policy.
func (q DailyQuota) String() string { return "daily " + strconv.FormatInt(q.n, 10) }

// TestDailyQuota is how a user checks a limiter of their own: every law, with timelines scaled to
// a few hours so that they cross midnights, and costs up to one above the quota to reach Never.
func TestDailyQuota(t *testing.T) {
	numerustest.Run(t, func() numerus.Limiter { return NewDailyQuota(3) },
		numerustest.WithSpan(6*time.Hour), numerustest.WithMaxCost(4))
}

// The laws Run checks, each a subtest of that name.
func ExampleLaws() {
	for _, law := range numerustest.Laws() {
		fmt.Println(law)
	}
	// Output:
	// determinism
	// immutability
	// refusal
	// tightness
	// waiting
	// never
	// out-of-order
	// time-rule
	// growth
	// cost
	// split
	// status
	// full
}

// A user-written limiter (DailyQuota, in this file) answers like the built-in ones; TestDailyQuota,
// in this file too, runs the kit on it.
func Example_userLimiter() {
	q := NewDailyQuota(2)
	at := time.Date(2026, 1, 1, 22, 0, 0, 0, time.UTC)
	var l numerus.Limiter = q
	for range 3 {
		next, from, ok := l.Debit(at)
		fmt.Println(ok, from)
		if ok {
			l = next
		}
	}
	// Output:
	// true from 2026-01-01T22:00:00Z
	// true from 2026-01-01T22:00:00Z
	// false from 2026-01-02T00:00:00Z
}
