package numerus

import (
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// algorithm is what every kernel provides: a debit that returns the next kernel value, a status
// and a name. All algorithms reach the Limiter interface through one adapter, single.
type algorithm[K any] interface {
	Debit(at, cost int64) (K, int64, bool)
	Status(at int64) kernel.Status
	String() string
}

// single adapts one algorithm's kernel to the Limiter interface. It is held by pointer so that a
// refusal returns the receiver without allocating; it is never modified after construction.
type single[K algorithm[K]] struct{ k K }

func newSingle[K algorithm[K]](k K) Limiter { return &single[K]{k} }

func (l *single[K]) Debit(at time.Time) (Limiter, NextDebitable, bool) { return l.DebitN(at, 1) }

func (l *single[K]) DebitN(at time.Time, cost int64) (Limiter, NextDebitable, bool) {
	ns := instant(at)
	k, from, ok := l.k.Debit(ns, cost)
	if ok {
		return &single[K]{k}, DebitableFrom(at), true
	}
	return l, refusal(from, ns, at), false
}

func (l *single[K]) check(at time.Time, cost int64) (NextDebitable, bool) {
	ns := instant(at)
	_, from, ok := l.k.Debit(ns, cost)
	if ok {
		return DebitableFrom(at), true
	}
	return refusal(from, ns, at), false
}

func (l *single[K]) Status(at time.Time) Status { return status(l.k.Status(instant(at)), at) }

func (l *single[K]) String() string { return l.k.String() }

// build returns the limiter for a kernel, or the error naming the invalid parameter.
func build[K algorithm[K]](k K, inv *kernel.Invalid) (Limiter, error) {
	if inv != nil {
		return nil, invalid(inv)
	}
	return newSingle(k), nil
}
