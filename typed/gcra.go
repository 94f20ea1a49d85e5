package typed

import (
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// GCRA is the generic cell rate algorithm as a typed value: burst tokens at once, then one every
// rate interval, kept as one theoretical arrival time (an exact fraction of a nanosecond). It
// decides exactly like numerus.GCRA, whose arithmetic it shares.
//
// The zero GCRA has no policy: it denies every debit with Never, reports a zero Status that is
// never full, names itself "gcra (zero)" and cannot be saved.
type GCRA struct{ k kernel.GCRA }

// NewGCRA returns a full GCRA: it admits burst tokens at its first instant, and at most
// burst + N - 1 in any span of the rate's period, for a rate of N per period (numerus.GCRA says
// more). It returns an error
// matching numerus.ErrInvalidArgument, naming the parameter, when rate or burst is not positive or
// when burst intervals exceed the exact range (see numerus.GCRA).
func NewGCRA(rate numerus.Rate, burst int64) (GCRA, error) {
	r, inv := rateOf(rate)
	if inv != nil {
		return GCRA{}, paramErr(inv)
	}
	p, inv := kernel.GCRAOf(r, burst)
	if inv != nil {
		return GCRA{}, paramErr(inv)
	}
	return GCRA{p.Fresh()}, nil
}

func (g GCRA) debit(at, cost int64) (GCRA, int64, bool) {
	k, from, ok := g.k.Debit(at, cost)
	return GCRA{k}, from, ok
}

func (g GCRA) status(at int64) kernel.Status { return g.k.Status(at) }

func (g GCRA) latest() int64 { return lastOf(g.k.P != nil, g.k.Last) }

func (g GCRA) advance(at int64) GCRA { return GCRA{g.k.Advance(at)} }

func (g GCRA) spec() Spec {
	if g.k.P == nil {
		return Spec{Algo: AlgoGCRA}
	}
	return rateSpec(AlgoGCRA, g.k.P.Rate, g.k.P.Burst)
}

func (g GCRA) state(dst [][]int64) [][]int64 {
	w := make([]int64, 3)
	putGCRA(w, g.k)
	return append(dst, w)
}

func (GCRA) restore(sp Spec, st *states) (GCRA, error) {
	lf, err := leafFor(sp, kindGCRA)
	if err != nil || st == nil {
		return GCRA{lf.fresh().gcra}, err
	}
	w, err := st.next(3)
	if err != nil {
		return GCRA{}, err
	}
	k, inv := lf.gcra.RestoreGCRA(w[0], w[1], w[2])
	return GCRA{k}, stateErr(inv)
}

// Debit takes one token at at. It is DebitN(at, 1).
func (g GCRA) Debit(at time.Time) (GCRA, numerus.NextDebitable, bool) { return g.DebitN(at, 1) }

// DebitN takes cost tokens at at, all or nothing. Admitted, it returns the GCRA that follows and
// DebitableFrom(at); refused, the receiver and when the same debit would be admitted, or Never. A
// cost below 1 panics.
func (g GCRA) DebitN(at time.Time, cost int64) (GCRA, numerus.NextDebitable, bool) {
	// The kernel's fast path written out, not called through debit, so that the commonest debit
	// makes no call at all (the typed debit of bench/RESULTS.md's table, about 4 ns).
	if ns, ok := kernel.Instant(at); ok && g.k.P != nil && g.k.FastCase(ns, cost) {
		tat, over := g.k.FastTake(ns, cost)
		if over > 0 {
			return g, numerus.DebitableAfter(at, time.Duration(over)), false
		}
		return GCRA{g.k.FastAdmit(ns, tat)}, numerus.DebitableFrom(at), true
	}
	return g.debitN(at, cost)
}

func (g GCRA) debitN(at time.Time, cost int64) (GCRA, numerus.NextDebitable, bool) {
	ns := kernel.FromTime(at)
	k, from, ok := g.k.Debit(ns, cost)
	if ok {
		return GCRA{k}, numerus.DebitableFrom(at), true
	}
	return g, refusal(from, ns, at), false
}

// Status reports the limit, the tokens remaining at at and when it is full again. It is pure.
func (g GCRA) Status(at time.Time) numerus.Status {
	return toStatus(g.k.Status(kernel.FromTime(at)), at)
}

// String names the policy in the notation, as in "gcra 10/s burst 5".
func (g GCRA) String() string { return g.k.String() }

// AppendBinary appends the snapshot of g (policy and state) to dst; see the package doc for the
// format. The zero GCRA has no policy and cannot be saved.
func (g GCRA) AppendBinary(dst []byte) ([]byte, error) { return appendSnapshot(dst, g) }

// MarshalBinary returns the snapshot of g.
func (g GCRA) MarshalBinary() ([]byte, error) { return appendSnapshot(nil, g) }

// UnmarshalBinary sets *g to the GCRA a snapshot saved, validated: it returns an error matching
// ErrCorrupt or ErrMismatch, and leaves *g unchanged, when data is not the snapshot of a GCRA.
func (g *GCRA) UnmarshalBinary(data []byte) error { return readSnapshot(g, data) }

// MarshalJSON returns the snapshot of g as JSON: {"version":1,"policy":...,"state":[[...]]}.
func (g GCRA) MarshalJSON() ([]byte, error) { return snapshotJSON(g) }

// UnmarshalJSON sets *g to the GCRA a JSON snapshot saved, validated like UnmarshalBinary.
func (g *GCRA) UnmarshalJSON(data []byte) error { return readSnapshotJSON(g, data) }
