package numerus

import (
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// GCRA returns a limiter of the generic cell rate algorithm: burst tokens at once, then one every
// rate interval, as TokenBucket(burst, rate). A rate of N per period admits up to burst + N - 1 in
// a period.
//
// It returns an error matching ErrInvalidArgument when rate or burst is not positive, or when
// burst intervals exceed about 292 years divided by the rate's count in lowest terms.
func GCRA(rate Rate, burst int64) (Limiter, error) {
	r, inv := rate.kernel()
	if inv != nil {
		return nil, invalid(inv)
	}
	p, inv := kernel.GCRAOf(r, burst)
	if inv != nil {
		return nil, invalid(inv)
	}
	return &gcra{single[kernel.GCRA]{p.Fresh()}}, nil
}

// gcra is the adapter of every other algorithm, single, with the kernel's fast path inlined into
// DebitN, so that the common debit makes no call but the allocation of the value it returns.
type gcra struct{ single[kernel.GCRA] }

func (l *gcra) Debit(at time.Time) (Limiter, NextDebitable, bool) { return l.DebitN(at, 1) }

func (l *gcra) DebitN(at time.Time, cost int64) (Limiter, NextDebitable, bool) {
	if ns, ok := kernel.Instant(at); ok && l.k.FastCase(ns, cost) {
		tat, over := l.k.FastTake(ns, cost)
		if over > 0 {
			return l, DebitableAfter(at, time.Duration(over)), false
		}
		return &gcra{single[kernel.GCRA]{l.k.FastAdmit(ns, tat)}}, DebitableFrom(at), true
	}
	ns := instant(at)
	k, from, ok := l.k.Debit(ns, cost)
	if ok {
		return &gcra{single[kernel.GCRA]{k}}, DebitableFrom(at), true
	}
	return l, refusal(from, ns, at), false
}
