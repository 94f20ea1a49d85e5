package upstream

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// epochAfter is how far before the upstream's instant a Reset may lie and still read as an
// instant rather than as seconds to wait: a day.
const epochAfter = 24 * time.Hour

// readXRateLimit reads the older fields that GitHub, Twitter and many others send:
//
//	X-RateLimit-Limit: 5000
//	X-RateLimit-Remaining: 4987
//	X-RateLimit-Reset: 1767225600
//
// Remaining may go until Reset, and then Limit in each window, whose length these fields do not
// say (see newBudget). Reset is an instant in Unix seconds at some upstreams (GitHub) and seconds
// to wait at others; the rule: a Reset later than a day before ref, the upstream's instant, in
// Unix seconds, is an instant, and any other is seconds to wait. (Seconds to wait are fewer than
// the Unix seconds of any instant since 1970-01-02.) An instant is read against ref: the wait is
// Reset − ref. A Reset may have a fraction of a second ("1767225600.250"). GitHub's
// X-RateLimit-Resource, if sent, names the quota, since each resource has its own. Without
// Remaining and Reset, both non-negative numbers, the fields say nothing; without a Limit that
// is one, the budget knows nothing beyond Reset.
func readXRateLimit(h http.Header, ref time.Time) (quota, bool) {
	left, okLeft := deltaSeconds(strings.Trim(h.Get("X-RateLimit-Remaining"), " \t"))
	reset, okReset := unixOrDelta(h.Get("X-RateLimit-Reset"), ref)
	if !okLeft || !okReset {
		return quota{}, false
	}
	limit, okLimit := deltaSeconds(strings.Trim(h.Get("X-RateLimit-Limit"), " \t"))
	if !okLimit {
		limit = 0
	}
	name := "x-ratelimit"
	if r := h.Get("X-RateLimit-Resource"); r != "" {
		name += "\x00" + r
	}
	return quota{name: name, left: left, reset: reset, limit: limit}, true
}

// unixOrDelta reads a Reset by the rule of readXRateLimit.
func unixOrDelta(v string, ref time.Time) (time.Duration, bool) {
	sec, nsec, ok := decimal(strings.Trim(v, " \t"))
	if !ok {
		return 0, false
	}
	if sec > ref.Add(-epochAfter).Unix() {
		return max(time.Unix(sec, nsec).Sub(ref), 0), true
	}
	return seconds(min(sec, maxSeconds-1)) + time.Duration(nsec), true // no overflow
}

// decimal reads digits with an optional fraction of up to nine digits ("12", "12.5"), as whole
// seconds (saturating at maxSeconds) and nanoseconds.
func decimal(v string) (int64, int64, bool) {
	whole, frac, dotted := strings.Cut(v, ".")
	sec, ok := deltaSeconds(whole)
	if !ok || !dotted {
		return sec, 0, ok
	}
	if frac == "" || len(frac) > 9 || strings.TrimLeft(frac, "0123456789") != "" {
		return 0, 0, false
	}
	nsec, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	return sec, nsec, true
}
