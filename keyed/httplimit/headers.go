package httplimit

import (
	"math/bits"
	"net/http"
	"strconv"
	"strings"
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

// QuotaOf returns what RateLimit-Policy advertises for sp: one Quota per limit, in the order the
// notation writes them, named name, or name-1, name-2, … for several. A bucket's quota is its
// burst over the time the rate takes to grant it again, a window's its limit over the window, a
// finite bucket's its size. Windows round up to whole seconds.
func QuotaOf(name string, sp typed.Spec) []Quota {
	var qs []Quota
	leaves(sp, func(leaf typed.Spec) { qs = append(qs, quotaOf(leaf)) })
	for i := range qs {
		qs[i].Name = name
		if len(qs) > 1 {
			qs[i].Name = name + "-" + strconv.Itoa(i+1)
		}
	}
	return qs
}

// leaves calls f on each leaf of sp, in the order its notation writes them.
func leaves(sp typed.Spec, f func(typed.Spec)) {
	if sp.Algo != typed.AlgoAnd && sp.Algo != typed.AlgoOr {
		f(sp)
		return
	}
	for _, c := range sp.Of {
		leaves(c, f)
	}
}

func quotaOf(sp typed.Spec) Quota {
	switch sp.Algo {
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

// SetHeaders writes d as the fields of the ratelimit-headers draft, for the quotas qs (QuotaOf):
//
//	RateLimit-Policy: "<name>";q=<limit>;w=<window seconds>, …   (every limit)
//	RateLimit: "<name>";r=<remaining>;t=<seconds>                (the limit d.Binding names)
//	Retry-After: <seconds>                                       (on a refusal only)
//
// t is d.RefillAfter when admitted and d.RetryAfter when refused. Seconds round up; Retry-After
// is at least 1. A refusal that never succeeds has neither t nor Retry-After. An empty qs
// advertises one quota of d.Limit named "default".
func SetHeaders(h http.Header, qs []Quota, d keyed.Decision) {
	if len(qs) == 0 {
		qs = []Quota{{}}
	}
	items := make([]string, len(qs))
	for i, q := range qs {
		items[i] = policyItem(q, d.Limit)
	}
	h.Set("RateLimit-Policy", strings.Join(items, ", "))
	q := qs[0]
	if d.Binding >= 0 && d.Binding < len(qs) {
		q = qs[d.Binding]
	}
	field := nameOf(q) + ";r=" + sfInteger(d.Remaining)
	t := d.RefillAfter
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

// policyItem writes q as an item of RateLimit-Policy; limit stands for a zero q.Limit.
func policyItem(q Quota, limit int64) string {
	if q.Limit != 0 {
		limit = q.Limit
	}
	item := nameOf(q) + ";q=" + sfInteger(limit)
	if q.Window > 0 {
		w, _ := keyed.DurationOf(q.Window).Seconds()
		item += ";w=" + sfInteger(max(w, 1))
	}
	return item
}

// nameOf returns q's name as a structured-field String, "default" when it has none.
func nameOf(q Quota) string {
	if q.Name == "" {
		return sfString("default")
	}
	return sfString(q.Name)
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
