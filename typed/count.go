package typed

import (
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// SlidingWindowCount is the sliding window counter as a typed value: fixed windows aligned on the
// Unix epoch, the count at elapsed e into a window estimated as prev·(window−e)/window + current,
// in exact integers. It decides exactly like numerus.SlidingWindowCount started at the epoch.
//
// The zero SlidingWindowCount has no policy: it denies every debit with Never, reports a zero
// Status that is never full, names itself "count (zero)" and cannot be saved.
type SlidingWindowCount struct{ k kernel.SlidingCounter }

// NewSlidingWindowCount returns an empty sliding window counter. It returns an error matching
// numerus.ErrInvalidArgument, naming the parameter, when window or n is not positive.
func NewSlidingWindowCount(window time.Duration, n int64) (SlidingWindowCount, error) {
	p, inv := kernel.WindowOf(int64(window), n, 0)
	if inv != nil {
		return SlidingWindowCount{}, paramErr(inv)
	}
	return SlidingWindowCount{p.FreshCounter()}, nil
}

func (c SlidingWindowCount) debit(at, cost int64) (SlidingWindowCount, int64, bool) {
	k, from, ok := c.k.Debit(at, cost)
	return SlidingWindowCount{k}, from, ok
}

func (c SlidingWindowCount) status(at int64) kernel.Status { return c.k.Status(at) }

func (c SlidingWindowCount) latest() int64 { return lastOf(c.k.P != nil, c.k.Last) }

func (c SlidingWindowCount) advance(at int64) SlidingWindowCount {
	if c.k.P == nil || at <= c.k.Last {
		return c
	}
	return SlidingWindowCount{c.k.Advance(at)}
}

func (c SlidingWindowCount) spec() Spec {
	if c.k.P == nil {
		return Spec{Algo: AlgoCount}
	}
	return windowSpec(AlgoCount, c.k.P)
}

func (c SlidingWindowCount) state(dst [][]int64) [][]int64 {
	w := make([]int64, 4)
	putCounter(w, c.k)
	return append(dst, w)
}

func (SlidingWindowCount) restore(sp Spec, st *states) (SlidingWindowCount, error) {
	lf, err := leafFor(sp, kindCount)
	if err != nil || st == nil {
		return SlidingWindowCount{lf.fresh().counter}, err
	}
	w, err := st.next(4)
	if err != nil {
		return SlidingWindowCount{}, err
	}
	k, inv := lf.window.RestoreCounter(w[0], w[1], w[2], w[3])
	return SlidingWindowCount{k}, stateErr(inv)
}

// Debit takes one token at at. It is DebitN(at, 1).
func (c SlidingWindowCount) Debit(at time.Time) (SlidingWindowCount, numerus.NextDebitable, bool) {
	return c.DebitN(at, 1)
}

// DebitN takes cost tokens at at, all or nothing. Admitted, it returns the SlidingWindowCount that follows and
// DebitableFrom(at); refused, the receiver and when the same debit would be admitted, or Never. A
// cost below 1 panics.
func (c SlidingWindowCount) DebitN(at time.Time, cost int64) (SlidingWindowCount, numerus.NextDebitable, bool) {
	if ns, ok := kernel.Instant(at); ok && c.k.P != nil {
		if k, p := c.k, c.k.P; p.CountCase(k.Start, k.Cur, k.Last, ns, cost) { // inlined: no call
			// The commonest refusal first, with no product: a full window refusing one token.
			if wait, full := p.FullWait(k.Start, k.Cur, cost, ns); full {
				return c, numerus.DebitableAfter(at, time.Duration(wait)), false
			}
			if p.CountFits(k.Start, k.Prev, k.Cur, ns, cost) {
				k.Cur, k.Last = k.Cur+cost, ns
				return SlidingWindowCount{k}, numerus.DebitableFrom(at), true
			}
			from := p.CountFrom(k.Start, k.Prev, k.Cur, ns, cost)
			if from == kernel.Never { // past MaxInstant, as debitN answers it
				return c, numerus.Never(), false
			}
			return c, numerus.DebitableAfter(at, time.Duration(from-ns)), false
		}
	}
	return c.debitN(at, cost)
}

func (c SlidingWindowCount) debitN(at time.Time, cost int64) (SlidingWindowCount, numerus.NextDebitable, bool) {
	ns := kernel.FromTime(at)
	k, from, ok := c.k.Debit(ns, cost)
	if ok {
		return SlidingWindowCount{k}, numerus.DebitableFrom(at), true
	}
	return c, refusal(from, ns, at), false
}

// Status reports the limit, the tokens remaining at at and when it is full again. It is pure.
func (c SlidingWindowCount) Status(at time.Time) numerus.Status {
	return toStatus(c.k.Status(kernel.FromTime(at)), at)
}

// String names the policy in the notation, as in "count 50/10s".
func (c SlidingWindowCount) String() string { return c.k.String() }

// AppendBinary appends the snapshot of c (policy and state) to dst; see the package doc for the
// format. The zero SlidingWindowCount has no policy and cannot be saved.
func (c SlidingWindowCount) AppendBinary(dst []byte) ([]byte, error) { return appendSnapshot(dst, c) }

// MarshalBinary returns the snapshot of c.
func (c SlidingWindowCount) MarshalBinary() ([]byte, error) { return appendSnapshot(nil, c) }

// UnmarshalBinary sets *c to the SlidingWindowCount a snapshot saved, validated: it returns an error matching
// ErrCorrupt or ErrMismatch, and leaves *c unchanged, when data is not the snapshot of a SlidingWindowCount.
func (c *SlidingWindowCount) UnmarshalBinary(data []byte) error { return readSnapshot(c, data) }

// MarshalJSON returns the snapshot of c as JSON: {"version":1,"policy":...,"state":[[...]]}.
func (c SlidingWindowCount) MarshalJSON() ([]byte, error) { return snapshotJSON(c) }

// UnmarshalJSON sets *c to the SlidingWindowCount a JSON snapshot saved, validated like UnmarshalBinary.
func (c *SlidingWindowCount) UnmarshalJSON(data []byte) error { return readSnapshotJSON(c, data) }
