package typed

import (
	"math/bits"
	"time"

	"github.com/numerus-closus/numerus"
)

// WithMargin returns a policy that keeps sp's limits at an upstream that counts admissions when
// they arrive, if their delays on the way differ by at most m.
//
// It returns an error matching numerus.ErrInvalidArgument when sp is invalid, m is negative, sp
// holds an Or (no margin of its children bounds what arrives), or a margined leaf does not fit.
func (sp Spec) WithMargin(m time.Duration) (Spec, error) {
	if err := sp.Validate(); err != nil {
		return Spec{}, err
	}
	if m < 0 {
		return Spec{}, &numerus.ParamError{Param: "margin", Problem: "must not be negative, got " + m.String()}
	}
	out, err := sp.margin("", m)
	if err != nil {
		return Spec{}, err
	}
	return out, out.Validate()
}

// margin returns sp with margin m, leaf by leaf:
//
//	gcra, token, leaky (b at once,  the tolerance (b−1)·T shrinks by m: burst b − ⌈m/T⌉, or one
//	N per P, T = P/N)              token every m + (2−b)·T while no burst would be left
//	sliding n/w                    sliding n/(w+m)
//	buckets n/w in k               ⌈m/(w/k)⌉ + 1 sub-windows more (the upstream's need not be ours)
//	window n/w                     sliding n/(w+m), for the same reason
//	count n/w                      sliding n/(2w+m): the estimate counts from the window before
//	finite n                       finite n: it keeps no time
//	a & b                          the margined a and b; an Or takes no margin (an error)
//
// Why it holds. A GCRA of interval T and tolerance τ admits a sequence exactly when every closed
// span of length s holds at most 1 + ⌊(s+τ)/T⌋ tokens, and its delayed arrivals in a span of
// length s were charged within a span of length s + m. The margined GCRA, of tolerance τ − m,
// puts at most 1 + ⌊(s+m+τ−m)/T⌋ there: the same bound. When τ − m < 0, one token every
// T′ = T − τ + m puts at most 1 + ⌊(s+m)/T′⌋, and s + m ≥ k·T′ gives s + τ ≥ k·T. The windows
// bound the tokens of any span, or of aligned windows, that a span s + m covers; none depends on
// the base delay or on the order of arrival. Rounding only takes away: a burst rounds down. An
// Or is refused because its children share its admissions: none of them sees the whole
// traffic, so none bounds it. TestWithMarginHoldsUpstream checks the rule on random traffic and
// delays.
func (sp Spec) margin(path string, m time.Duration) (Spec, error) {
	switch sp.Algo {
	case AlgoAnd:
		of := make([]Spec, len(sp.Of))
		for i, c := range sp.Of {
			var err error
			if of[i], err = c.margin(path+"of["+itoa(int64(i))+"].", m); err != nil {
				return Spec{}, err
			}
		}
		return Spec{Algo: AlgoAnd, Of: of}, nil
	case AlgoOr:
		return Spec{}, paramError(path, "algo", "or takes no margin: its children share its admissions, so no margin of theirs bounds what arrives")
	case AlgoGCRA, AlgoToken, AlgoLeaky:
		return sp.marginRate(path, m)
	case AlgoSliding:
		return wider(sp, path, m, 1)
	case AlgoWindow: // any span of the window and the margin holds at most one window's count
		return wider(Spec{Algo: AlgoSliding, Count: sp.Count, Period: sp.Period}, path, m, 1)
	case AlgoCount: // the estimate counts from the start of the window before: two windows
		return wider(Spec{Algo: AlgoSliding, Count: sp.Count, Period: sp.Period}, path, m, 2)
	case AlgoBuckets:
		s := sp.Period / time.Duration(sp.In)
		j := int64((m+s-1)/s) + 1 // a span of k sub-windows and m meets k+j of ours
		if j > (1<<62)/int64(s) {
			return Spec{}, paramError(path, "margin", "is too long for the sub-windows of "+sp.String())
		}
		sp.In += j
		sp.Period += time.Duration(j) * s
		return sp, nil
	}
	return sp, nil // finite: no time
}

// wider returns sp with its period multiplied by k and widened by m.
func wider(sp Spec, path string, m time.Duration, k int64) (Spec, error) {
	p, ok := mulAdd(int64(sp.Period), k, int64(m))
	if !ok {
		return Spec{}, paramError(path, "margin", "is too long for the window of "+sp.String())
	}
	sp.Period = time.Duration(p)
	return sp, nil
}

// marginRate takes m off the tolerance of a GCRA (or of a bucket, which decides as one): the
// burst loses ⌈m·N/P⌉ tokens while one remains; past that, one token at a time, each m + (2−b)·P/N
// after the last.
func (sp Spec) marginRate(path string, m time.Duration) (Spec, error) {
	n, p, b := sp.Count, int64(sp.Period), sp.burst()
	mn, ok := mulAdd(int64(m), n, 0)
	tol, ok2 := mulAdd(b-1, p, 0)
	if !ok || !ok2 {
		return Spec{}, paramError(path, "margin", "is too long for the rate of "+sp.String())
	}
	if mn <= tol {
		sp.Burst = b - (mn+p-1)/p
		return sp, nil
	}
	period, ok := mulAdd(2-b, p, mn) // positive: m·N > (b−1)·P
	if !ok {
		return Spec{}, paramError(path, "margin", "is too long for the rate of "+sp.String())
	}
	sp.Period, sp.Burst = time.Duration(period), 1
	return sp, nil
}

// mulAdd returns a·b + c for b ≥ 0 and a·b + c ≥ 0, and whether it fits an int64.
func mulAdd(a, b, c int64) (int64, bool) {
	neg := a < 0
	if neg {
		a = -a
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > 1<<63-1 {
		return 0, false
	}
	prod := int64(lo)
	if neg {
		prod = -prod
	}
	sum := prod + c
	if (c > 0 && sum < prod) || sum < 0 {
		return 0, false
	}
	return sum, true
}
