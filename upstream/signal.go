package upstream

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// quota is one budget a response announced, counted from the instant the response came.
type quota struct {
	name   string        // the policy's name, with its partition key if any
	left   int64         // what may go before reset
	reset  time.Duration // until the quota resets
	limit  int64         // the quota of a whole window, or 0 if unknown
	window time.Duration // the window, or 0 if unknown
}

// budget returns the budget of q at now, less inflight requests that the upstream may not have
// counted yet; est is the window an earlier budget of q estimated (see newBudget).
func (q quota) budget(now time.Time, inflight int64, est time.Duration) budget {
	return newBudget(q.name, q.left-inflight, now, now.Add(q.reset), q.limit, q.window, est)
}

// signal is what a response says of its upstream.
type signal struct {
	pause  time.Duration // how long to hold every request back, from the response on
	quotas []quota
}

// readSignal reads the fields of a response of the given status that came at received: the
// RateLimit and RateLimit-Policy fields, the X-RateLimit family and, on a 429 or a 503,
// Retry-After. Every span is at most maxPause. A quota with nothing left pauses until its reset.
// Fields that do not parse say nothing.
func readSignal(status int, h http.Header, received time.Time, maxPause time.Duration) signal {
	ref := serverNow(h, received)
	var s signal
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		s.pause, _ = retryAfter(h.Get("Retry-After"), ref)
	}
	s.quotas = readIETF(h.Values("RateLimit-Policy"), h.Values("RateLimit"))
	if q, ok := readXRateLimit(h, ref); ok {
		s.quotas = append(s.quotas, q)
	}
	for i := range s.quotas {
		q := &s.quotas[i]
		q.reset = min(q.reset, maxPause)
		if q.left == 0 {
			s.pause = max(s.pause, q.reset)
		}
	}
	s.pause = min(s.pause, maxPause)
	return s
}

// serverNow returns the upstream's instant for a response that came at received: its Date field,
// which a date the upstream wrote is read against, so that a local clock set apart from the
// upstream's neither shortens nor lengthens a wait it names. Without a Date, it is received.
func serverNow(h http.Header, received time.Time) time.Time {
	if d, err := http.ParseTime(h.Get("Date")); err == nil {
		return d
	}
	return received.Round(0)
}

// retryAfter reads a Retry-After field (RFC 9110, section 10.2.3): delta-seconds, or an
// HTTP-date read against ref, the upstream's instant (see serverNow). A date at or before ref is
// a wait of 0.
func retryAfter(v string, ref time.Time) (time.Duration, bool) {
	v = strings.Trim(v, " \t")
	if n, ok := deltaSeconds(v); ok {
		return seconds(n), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(ref), 0), true
}

// deltaSeconds reads a non-negative decimal integer of ASCII digits only, saturating at
// maxSeconds.
func deltaSeconds(v string) (int64, bool) {
	if v == "" || strings.TrimLeft(v, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil { // only digits: too large
		return maxSeconds, true
	}
	return min(n, maxSeconds), true
}

// maxSeconds is the most whole seconds a time.Duration holds.
const maxSeconds = int64(1<<63-1) / int64(time.Second)

// seconds returns n seconds, for 0 ≤ n, saturating at the longest Duration.
func seconds(n int64) time.Duration { return time.Duration(min(n, maxSeconds)) * time.Second }
