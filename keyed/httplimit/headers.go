package httplimit

import (
	"math/bits"
	"net/http"
	"strconv"
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/typed"
)

// Quota is what the RateLimit-Policy field advertises: a policy's name, its quota (q) and its
// window (w).
//
// The zero Quota has an empty name and a zero quota: SetHeaders then writes the name "default".
type Quota struct {
	// Name identifies the policy in both fields ("default" when empty).
	Name string
	// Limit is the quota, in requests (or in the units a cost function counts).
	Limit int64
	// Window is the time the quota is granted over; zero for a quota that never refills, which
	// then has no w parameter. It is written in whole seconds, rounded up, at least one.
	Window time.Duration
}

// QuotaOf returns the quota that a policy advertises, under name:
//
//   - gcra, token, leaky: the burst, over the time the rate takes to grant it again (100/s burst
//     200: q=200, w=2; gcra 10/s, of the default burst 1: q=1 over 100ms, advertised as w=1);
//   - window, count, sliding, buckets: the limit over the window;
//   - finite: the size, with no window;
//   - And: the child of the least quota; Or: the child of the most (ties: the longer window) —
//     the child whose quota a keyed.Decision's Limit reports.
//
// A window of a fraction of a second is rounded up to whole seconds and keeps its quota
// (10/s burst 5: q=5 over half a second, advertised as q=5, w=1): a client that goes by it
// sends less than it may, never more.
func QuotaOf(name string, sp typed.Spec) Quota {
	q := quotaOf(sp)
	q.Name = name
	return q
}

func quotaOf(sp typed.Spec) Quota {
	switch sp.Algo {
	case typed.AlgoAnd, typed.AlgoOr:
		var best Quota
		for i, c := range sp.Of {
			q := quotaOf(c)
			if i == 0 || better(sp.Algo == typed.AlgoAnd, q, best) {
				best = q
			}
		}
		return best
	case typed.AlgoFinite:
		return Quota{Limit: sp.Count}
	case typed.AlgoGCRA, typed.AlgoToken, typed.AlgoLeaky:
		burst := sp.Burst
		if burst == 0 {
			burst = 1 // typed.Spec's default
		}
		return Quota{Limit: burst, Window: refill(burst, sp.Count, sp.Period)}
	}
	return Quota{Limit: sp.Count, Window: sp.Period}
}

// refill returns burst·period/count, rounded up, saturating at 2^62 ns (146 years), exact for
// every burst, count and period of a valid policy: the product is taken in 128 bits.
func refill(burst, count int64, period time.Duration) time.Duration {
	const most = 1 << 62
	hi, lo := bits.Mul64(uint64(burst), uint64(period))
	if hi >= uint64(count) { // the quotient needs more than 64 bits
		return most
	}
	q, r := bits.Div64(hi, lo, uint64(count))
	if q >= most {
		return most
	}
	if r != 0 {
		q++
	}
	return time.Duration(q)
}

func better(and bool, q, best Quota) bool {
	if q.Limit == best.Limit {
		return longer(q.Window, best.Window)
	}
	return (q.Limit < best.Limit) == and
}

// longer orders windows with no window (a finite quota) as the longest.
func longer(a, b time.Duration) bool { return b != 0 && (a == 0 || a > b) }

// SetHeaders writes the fields of the ratelimit-headers draft for d under q, and Retry-After:
//
//	RateLimit-Policy: "<name>";q=<limit>;w=<window seconds>
//	RateLimit: "<name>";r=<remaining>;t=<seconds>
//	Retry-After: <seconds>                   (on a refusal only)
//
// On an admission t is the time until the subject is full again (d.ResetAfter); on a refusal it
// is the time until the same request would be admitted (d.RetryAfter), which Retry-After repeats
// (at least 1, lest a client read 0 as "at once" and retry in a loop), so that Retry-After never
// points before the end of the effective window. Seconds are whole and rounded up. A refusal
// that can never succeed (RetryAfter Never: a spent finite quota) has no t and no Retry-After
// (SetHeaders removes one h held): a client must not retry it. q is d.Limit when q.Limit is
// zero. An integer beyond the 15 digits a structured field holds is written as the largest
// (999999999999999), lest a recipient reject the whole field.
//
// For an And of several limits, a Decision reports r as the least of the children's remaining
// tokens and ResetAfter as the time until every child is full again: the fields then mix limits,
// as in q=5;w=1 (gcra 10/s burst 5, the least quota) with r=4;t=781 (until the hourly window of
// window 1000/h resets). A client that goes by r and t never sends more than the policy admits,
// but may wait longer than it needs to. The quota advertised is one child's only: a client that
// paces itself by q and w alone (5 a second) would send more than the hourly window admits, and
// be refused. Advertise the quota that matters most to clients with WithQuota.
func SetHeaders(h http.Header, q Quota, d keyed.Decision) {
	name := q.Name
	if name == "" {
		name = "default"
	}
	name = sfString(name)
	limit := q.Limit
	if limit == 0 {
		limit = d.Limit
	}
	policy := name + ";q=" + sfInteger(limit)
	if q.Window > 0 {
		w, _ := keyed.WaitFor(q.Window).Seconds()
		policy += ";w=" + sfInteger(max(w, 1))
	}
	h.Set("RateLimit-Policy", policy)
	field := name + ";r=" + sfInteger(d.Remaining)
	t := d.ResetAfter
	if !d.Allowed {
		t = d.RetryAfter
	}
	h.Del("Retry-After") // one set before, for another decision, would outlive it
	if s, ok := t.Seconds(); ok {
		field += ";t=" + sfInteger(s)
		if !d.Allowed {
			h.Set("Retry-After", strconv.FormatInt(max(s, 1), 10))
		}
	}
	h.Set("RateLimit", field)
}

// maxInteger is the largest structured-field Integer, of 15 digits (RFC 8941, section 3.3.1): a
// recipient rejects a field that holds a larger one whole.
const maxInteger = 999_999_999_999_999

// sfInteger writes n as a structured-field Integer, clamped to its range: a quota, a remaining
// count or a number of seconds beyond it reads as the largest Integer.
func sfInteger(n int64) string { return strconv.FormatInt(min(max(n, -maxInteger), maxInteger), 10) }

// sfString writes s as a structured-field String: in quotes, with quotes and backslashes escaped, and
// characters outside printable ASCII, which a String cannot hold, replaced by '?'.
func sfString(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 || c > 0x7e:
			b = append(b, '?')
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}
