package kernel

import "math"

// Invalid names a parameter that cannot make a policy, and why.
type Invalid struct{ Param, Problem string }

// CheckCost panics on a cost below one: a documented programmer error.
func CheckCost(cost int64) {
	if cost < 1 {
		panic("numerus: debit cost " + itoa(cost) + " is below 1")
	}
}

func positive(param string, v int64) *Invalid {
	if v < 1 {
		return &Invalid{param, "must be positive, got " + itoa(v)}
	}
	return nil
}

// RateOf validates n tokens per p ns and reduces it.
func RateOf(n, p int64) (Rate, *Invalid) {
	if inv := positive("rate tokens", n); inv != nil {
		return Rate{}, inv
	}
	if inv := positive("rate period", p); inv != nil {
		return Rate{}, inv
	}
	return NewRate(n, p), nil
}

// GCRAOf validates a GCRA policy.
func GCRAOf(rate Rate, burst int64) (*GCRAPolicy, *Invalid) {
	if inv := fits("burst", rate, burst); inv != nil {
		return nil, inv
	}
	return NewGCRA(rate, burst), nil
}

// BucketOf validates a token or leaky bucket policy.
func BucketOf(rate Rate, capacity int64) (*BucketPolicy, *Invalid) {
	if inv := fits("capacity", rate, capacity); inv != nil {
		return nil, inv
	}
	return NewBucket(rate, capacity), nil
}

func fits(param string, rate Rate, size int64) *Invalid {
	if inv := positive(param, size); inv != nil {
		return inv
	}
	switch {
	case !rate.FitsBurst(1) && rate.P >= rate.N: // a token every nanosecond or more: the period
		return &Invalid{"rate period", "is too long for exact arithmetic: in lowest terms with the count, it fills the range of instants"}
	case !rate.FitsBurst(1):
		return &Invalid{"rate", "is too fine for exact arithmetic: its count, in lowest terms over its period, leaves no room for one token"}
	case !rate.FitsBurst(size):
		return &Invalid{param, "times the rate's interval exceeds the exact range (about 292 years over the rate's count in lowest terms)"}
	}
	return nil
}

// FiniteOf validates a finite bucket.
func FiniteOf(size int64) (Finite, *Invalid) {
	if inv := positive("size", size); inv != nil {
		return Finite{}, inv
	}
	return Finite{Size: size, Left: size}, nil
}

// WindowOf validates a fixed-window or sliding-counter policy aligned on origin.
func WindowOf(width, limit, origin int64) (*WindowPolicy, *Invalid) {
	if inv := positive("window", width); inv != nil {
		return nil, inv
	}
	if inv := positive("limit", limit); inv != nil {
		return nil, inv
	}
	if origin == MinInstant || origin == MaxInstant {
		return nil, &Invalid{"start", "lies at or beyond an end of the range of instants (late 1677 to 2262)"}
	}
	return NewWindow(width, limit, origin), nil
}

// LogOf validates a sliding-log policy split into windows sub-windows, with 1 for the exact log
// (whose sub-windows are single nanoseconds).
func LogOf(width, limit, windows int64) (*LogPolicy, *Invalid) {
	p, inv := BucketsOf(width, limit, windows)
	if inv == nil && windows == 1 {
		p.Quantum = 1
	}
	return p, inv
}

// BucketsOf validates a bucketed sliding window: windows sub-windows of width/windows ns aligned on
// the Unix epoch. With one sub-window it is a fixed window aligned on the epoch.
func BucketsOf(width, limit, windows int64) (*LogPolicy, *Invalid) {
	if inv := positive("window", width); inv != nil {
		return nil, inv
	}
	if inv := positive("limit", limit); inv != nil {
		return nil, inv
	}
	if inv := positive("windows", windows); inv != nil {
		return nil, inv
	}
	if width%windows != 0 {
		return nil, &Invalid{"windows", "must divide the window " + itoa(width) + "ns evenly"}
	}
	return &LogPolicy{Width: width, Limit: limit, Quantum: width / windows}, nil
}

// Unlimited is the limit and remaining count of a limiter that always admits.
const Unlimited = math.MaxInt64
