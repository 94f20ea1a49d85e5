package kernel

import (
	"strconv"
	"time"
)

// Status is what a kernel reports at an instant: its capacity, the whole tokens it holds (rounded
// down) and the instant it is back to full (Never if it never is).
type Status struct {
	Limit, Remaining, Full int64
}

// Rate is n tokens per p nanoseconds, reduced to lowest terms, with the form it was written in kept
// for display.
type Rate struct {
	N, P   int64 // reduced: N tokens every P ns
	shownN int64
	shownP int64
}

// NewRate reduces n per p; both must be positive.
func NewRate(n, p int64) Rate {
	g := GCD(n, p)
	return Rate{N: n / g, P: p / g, shownN: n, shownP: p}
}

// String writes the rate as the notation does: "10/s", "500/7d", "3/1500ms".
func (r Rate) String() string {
	return strconv.FormatInt(r.shownN, 10) + "/" + FormatPeriod(r.shownP)
}

var units = []struct {
	name string
	ns   int64
}{
	{"d", int64(24 * time.Hour)}, {"h", int64(time.Hour)}, {"m", int64(time.Minute)},
	{"s", int64(time.Second)}, {"ms", int64(time.Millisecond)}, {"us", int64(time.Microsecond)},
	{"ns", 1},
}

// FormatPeriod writes p ns with the largest unit that divides it, dropping a multiplier of one:
// "s", "7d", "1500ms".
func FormatPeriod(p int64) string {
	for _, u := range units {
		if p%u.ns == 0 {
			if p == u.ns {
				return u.name
			}
			return strconv.FormatInt(p/u.ns, 10) + u.name
		}
	}
	return strconv.FormatInt(p, 10) + "ns"
}

// FitsBurst reports whether burst tokens at rate r can be computed exactly: burst·P plus one
// interval's remainder must fit in an int64.
func (r Rate) FitsBurst(burst int64) bool {
	return burst <= (MaxInstant-r.N)/r.P
}

// Frac is an instant with a fractional part: Q + R/n nanoseconds, 0 ≤ R < n. Past MaxInstant,
// where Q cannot go, Q is MaxInstant and R holds the whole rest, however large.
//
// R comes first so that in a GCRA the two words a fast debit changes, TAT.Q and Last, share one
// 16-byte half of the value, as a fixed window's Count and Last do: a typed value returned by
// Debit is copied 16 bytes at a time, and a copy that reads a half written 8 bytes at a time just
// before must wait for the writes to reach the cache. One such half per leaf instead of two made
// typed GCRA's Debit 10% faster, and an And of three 8% (bench, AllOf3 and Debit, benchstat).
type Frac struct{ R, Q int64 }

// after reports whether f lies strictly after the whole instant at.
func (f Frac) after(at int64) bool { return f.Q > at || (f.Q == at && f.R > 0) }

// ceil returns the first whole instant not before f, for f.Q below MaxInstant.
func (f Frac) ceil() int64 {
	if f.R > 0 {
		return f.Q + 1
	}
	return f.Q
}
