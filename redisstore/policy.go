package redisstore

import (
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/numerus-closus/numerus"
)

// Policy is a limiter policy the store's script can run: one of the eight numerus algorithms, or
// an And/Or tree of them. Its constructors take the parameters of the numerus constructors of the
// same name, validate them as those do, and also reject what the script cannot keep exact in
// integer microseconds (see Exact arithmetic in the package documentation). A Policy is an
// immutable value, safe for concurrent use. It stands in for the typed package's policies until
// the store is wired to the keyed limiter.
//
// The zero Policy is invalid: a store given it returns an error matching
// numerus.ErrInvalidArgument.
type Policy struct {
	toks []any  // the script's encoding (strings), canonical: equal policies encode equally
	name string // as numerus names the same limiter
	deep int    // nesting depth
}

const (
	maxExact   = 1 << 53 // every number the script handles stays at or below it
	maxSpan    = 1 << 51 // µs: the longest refill or window (about 71 years)
	maxInstant = 1 << 52 // µs since the epoch: the latest time (the year 2112)
	maxDepth   = 32
)

// String names the policy as numerus names the same limiter, as in "gcra 10/s burst 5".
func (p Policy) String() string {
	if p.toks == nil {
		return "invalid (zero) policy"
	}
	return p.name
}

// GCRA returns the policy of numerus.GCRA(rate, burst).
func GCRA(rate numerus.Rate, burst int64) (Policy, error) {
	return bucket("g", rate, burst, "burst", func() (numerus.Limiter, error) { return numerus.GCRA(rate, burst) })
}

// TokenBucket returns the policy of numerus.TokenBucket(capacity, refill).
func TokenBucket(capacity int64, refill numerus.Rate) (Policy, error) {
	return bucket("t", refill, capacity, "capacity", func() (numerus.Limiter, error) {
		return numerus.TokenBucket(capacity, refill)
	})
}

// LeakyBucket returns the policy of numerus.LeakyBucket(capacity, leak).
func LeakyBucket(capacity int64, leak numerus.Rate) (Policy, error) {
	return bucket("l", leak, capacity, "capacity", func() (numerus.Limiter, error) {
		return numerus.LeakyBucket(capacity, leak)
	})
}

// FiniteBucket returns the policy of numerus.FiniteBucket(n).
func FiniteBucket(n int64) (Policy, error) {
	l, err := numerus.FiniteBucket(n)
	if err != nil {
		return Policy{}, err
	}
	if n >= maxExact {
		return Policy{}, tooLarge("size")
	}
	return leaf(l, "f", n), nil
}

// FixedWindow returns the policy of numerus.FixedWindow(window, n, start).
func FixedWindow(window time.Duration, n int64, start time.Time) (Policy, error) {
	l, err := numerus.FixedWindow(window, n, start)
	if err != nil {
		return Policy{}, err
	}
	w, origin, err := aligned(window, n, start)
	if err != nil {
		return Policy{}, err
	}
	return leaf(l, "w", w, n, origin), nil
}

// SlidingWindowCount returns the policy of numerus.SlidingWindowCount(window, n, start). The
// script compares n·window (in µs) exactly, so that product must stay within 2^53.
func SlidingWindowCount(window time.Duration, n int64, start time.Time) (Policy, error) {
	l, err := numerus.SlidingWindowCount(window, n, start)
	if err != nil {
		return Policy{}, err
	}
	w, origin, err := aligned(window, n, start)
	if err != nil {
		return Policy{}, err
	}
	if hi, lo := bits.Mul64(uint64(n), uint64(w)); hi != 0 || lo > maxExact {
		return Policy{}, tooLarge("limit")
	}
	return leaf(l, "c", w, n, origin), nil
}

// SlidingWindow returns the policy of numerus.SlidingWindow(window, n).
func SlidingWindow(window time.Duration, n int64) (Policy, error) {
	l, err := numerus.SlidingWindow(window, n)
	if err != nil {
		return Policy{}, err
	}
	w, err := span(window, n)
	if err != nil {
		return Policy{}, err
	}
	return leaf(l, "s", w, n), nil
}

// SlidingWindowBucketed returns the policy of numerus.SlidingWindowBucketed(window, windows, n).
// Each sub-window must be a whole number of microseconds.
func SlidingWindowBucketed(window time.Duration, windows int, n int64) (Policy, error) {
	l, err := numerus.SlidingWindowBucketed(window, windows, n)
	if err != nil {
		return Policy{}, err
	}
	w, err := span(window, n)
	if err != nil {
		return Policy{}, err
	}
	if (window/time.Duration(windows))%time.Microsecond != 0 {
		return Policy{}, &numerus.ParamError{Param: "windows", Problem: "must split the window into whole microseconds"}
	}
	return leaf(l, "b", w, n, w/int64(windows)), nil // one sub-window: a fixed window on the epoch
}

// AllOf returns the policy of numerus.AllOf: every policy must admit a debit, and then all are
// charged. AllOf(p) is p; AllOf() is an error, since the script has no policy that always admits.
func AllOf(ps ...Policy) (Policy, error) { return tree("&", " & ", ps) }

// AnyOf returns the policy of numerus.AnyOf: a debit is admitted if any policy admits it, and each
// that admits it is charged. AnyOf(p) is p; AnyOf() is an error.
func AnyOf(ps ...Policy) (Policy, error) { return tree("|", " | ", ps) }

func bucket(kind string, rate numerus.Rate, size int64, param string, build func() (numerus.Limiter, error)) (Policy, error) {
	l, err := build()
	if err != nil {
		return Policy{}, err
	}
	per := rate.Period()
	if per%time.Microsecond != 0 {
		return Policy{}, &numerus.ParamError{Param: "rate period", Problem: "must be a whole number of microseconds"}
	}
	n, p := reduce(rate.Tokens(), int64(per/time.Microsecond))
	if size > (maxExact-n)/p {
		return Policy{}, tooLarge(param)
	}
	if (size*p+n-1)/n > maxSpan {
		return Policy{}, tooLarge(param)
	}
	return leaf(l, kind, n, p, size), nil
}

func reduce(n, p int64) (int64, int64) {
	a, b := n, p
	for b != 0 {
		a, b = b, a%b
	}
	return n / a, p / a
}

// span validates a window and a limit, and returns the window in µs.
func span(window time.Duration, n int64) (int64, error) {
	if window%time.Microsecond != 0 {
		return 0, &numerus.ParamError{Param: "window", Problem: "must be a whole number of microseconds"}
	}
	w := int64(window / time.Microsecond)
	if w > maxSpan {
		return 0, tooLarge("window")
	}
	if n >= maxExact {
		return 0, tooLarge("limit")
	}
	return w, nil
}

// aligned validates a window aligned on start, and returns it and its origin in [0, window), in µs.
func aligned(window time.Duration, n int64, start time.Time) (int64, int64, error) {
	w, err := span(window, n)
	if err != nil {
		return 0, 0, err
	}
	if start.Nanosecond()%int(time.Microsecond) != 0 {
		return 0, 0, &numerus.ParamError{Param: "start", Problem: "must be a whole number of microseconds"}
	}
	origin := start.UnixMicro() % w
	if origin < 0 {
		origin += w
	}
	return w, origin, nil
}

func tooLarge(param string) error {
	return &numerus.ParamError{Param: param, Problem: "is too large for exact arithmetic in microseconds (2^53)"}
}

func leaf(l numerus.Limiter, kind string, nums ...int64) Policy {
	toks := []any{kind}
	for _, n := range nums {
		toks = append(toks, strconv.FormatInt(n, 10))
	}
	return Policy{toks: toks, name: l.String()}
}

func tree(op, sep string, ps []Policy) (Policy, error) {
	switch len(ps) {
	case 0:
		return Policy{}, &numerus.ParamError{Param: "policies", Problem: "must not be empty"}
	case 1:
		return ps[0], valid(ps[0])
	}
	t := Policy{toks: []any{op, strconv.Itoa(len(ps))}}
	names := make([]string, len(ps))
	for i, p := range ps {
		if err := valid(p); err != nil {
			return Policy{}, err
		}
		t.toks = append(t.toks, p.toks...)
		names[i] = p.name
		if p.deep > 0 {
			names[i] = "(" + p.name + ")"
		}
		t.deep = max(t.deep, p.deep+1)
	}
	if t.deep > maxDepth {
		return Policy{}, &numerus.ParamError{Param: "policies", Problem: "are nested too deeply"}
	}
	t.name = strings.Join(names, sep)
	return t, nil
}

func valid(p Policy) error {
	if p.toks == nil {
		return &numerus.ParamError{Param: "policy", Problem: "is the zero Policy"}
	}
	return nil
}
