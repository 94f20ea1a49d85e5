package main

import (
	"encoding"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/typed"
)

// limiter is one policy's state as explain and sim drive it: the core's typed values (see
// typed.go) or, for shapes those do not cover, a compiled typed.Policy. Instants are
// nanoseconds since the Unix epoch, and every request costs 1.
type limiter interface {
	// debit takes one token at at: true and the limiter holds the next state, or false, the state
	// unchanged, and the instant from which the same debit would be admitted (kernel.Never).
	debit(at int64) (retry int64, ok bool)
	// status reports the tokens remaining at at and when the limiter is full again (kernel.Never).
	status(at int64) (remaining, full int64)
	// state returns the limiter's state as bytes, equal for equal states.
	state() []byte
}

// newLimiter returns a function that makes fresh limiters of sp, which is valid: typed values
// for the shapes typed.go builds, and a compiled Policy otherwise.
func newLimiter(sp typed.Spec) func() limiter {
	if f := typedFactory(sp); f != nil {
		return f
	}
	p, _ := typed.Compile(sp)
	return func() limiter { return &policyLimiter{p: p, s: p.Fresh()} }
}

func allLeaves(sps []typed.Spec) bool {
	for _, sp := range sps {
		if len(sp.Of) > 0 {
			return false
		}
	}
	return true
}

// typedLimiter holds a typed value; its methods replace it with the value that follows.
type typedLimiter[L typed.Limiter[L]] struct{ l L }

// factory returns a function that makes copies of the fresh value l.
func factory[L typed.Limiter[L]](l L) func() limiter {
	return func() limiter { return &typedLimiter[L]{l} }
}

func (t *typedLimiter[L]) debit(at int64) (int64, bool) {
	tm := time.Unix(0, at)
	next, from, ok := t.l.DebitN(tm, 1)
	if ok {
		t.l = next
		return at, true
	}
	return instant(from), false
}

func (t *typedLimiter[L]) status(at int64) (int64, int64) {
	st := t.l.Status(time.Unix(0, at))
	return st.Remaining, instant(st.Full)
}

func (t *typedLimiter[L]) state() []byte {
	b, _ := any(t.l).(encoding.BinaryMarshaler).MarshalBinary() // every typed value has it
	return b
}

// instant converts an answer to nanoseconds, kernel.Never for numerus.Never.
func instant(n numerus.NextDebitable) int64 {
	t, ok := n.Time()
	if !ok {
		return kernel.Never
	}
	return t.UnixNano()
}

// policyLimiter holds a compiled Policy and a subject's State, debited in place.
type policyLimiter struct {
	p typed.Policy
	s typed.State
}

func (l *policyLimiter) debit(at int64) (int64, bool) {
	out, ok := l.p.InPlace(inplace.Key{}).DebitIn(&l.s, at, 1)
	return out.Retry, ok
}

func (l *policyLimiter) state() []byte { return l.p.AppendState(nil, l.s) }

func (l *policyLimiter) status(at int64) (int64, int64) {
	out, _ := l.p.InPlace(inplace.Key{}).PeekIn(&l.s, at)
	return out.Remaining, out.Full
}
