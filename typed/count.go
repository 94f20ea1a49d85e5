package typed

import (
	"math"
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
type SlidingWindowCount struct {
	// The kernel's four numbers (Start, Prev, Cur, Last) held in three words, so that the value
	// fits in registers: Go keeps a struct of five words in memory, where a debit costs several
	// times as much (Debit/lib=numerus-typed-count in bench/RESULTS.md's table, benchstat n=10,
	// interleaved: 14.1 ns packed against 44.8 ns for the kernel's five words when admitted, 13.1
	// against 35.0 refused, on a host under heavy load, 2026-12-02). Under a limit that fits 32 bits (narrow), start is the kernel's Start and
	// counts holds Prev above Cur, 32 bits each. Under a larger one (wide), start holds Prev,
	// counts holds Cur, and Start is the start of the window holding last, found by a division.
	p      *kernel.WindowPolicy
	start  int64
	counts uint64
	last   int64
}

// NewSlidingWindowCount returns an empty sliding window counter. It returns an error matching
// numerus.ErrInvalidArgument, naming the parameter, when window or n is not positive.
func NewSlidingWindowCount(window time.Duration, n int64) (SlidingWindowCount, error) {
	p, inv := kernel.WindowOf(int64(window), n, 0)
	if inv != nil {
		return SlidingWindowCount{}, paramErr(inv)
	}
	return countOf(p.FreshCounter()), nil
}

// wide reports whether counts under p take a word each.
func wide(p *kernel.WindowPolicy) bool { return p.Limit > math.MaxUint32 }

// countOf returns the typed value of the kernel k.
func countOf(k kernel.SlidingCounter) SlidingWindowCount {
	switch {
	case k.P == nil:
		return SlidingWindowCount{}
	case wide(k.P):
		return SlidingWindowCount{p: k.P, start: k.Prev, counts: uint64(k.Cur), last: k.Last}
	}
	return SlidingWindowCount{p: k.P, start: k.Start, counts: uint64(k.Prev)<<32 | uint64(k.Cur), last: k.Last}
}

// kern returns the kernel c holds.
func (c SlidingWindowCount) kern() kernel.SlidingCounter {
	switch {
	case c.p == nil:
		return kernel.SlidingCounter{}
	case wide(c.p):
		return c.p.CounterOf(c.start, int64(c.counts), c.last)
	}
	prev, cur := c.narrow()
	return kernel.SlidingCounter{P: c.p, Start: c.start, Prev: prev, Cur: cur, Last: c.last}
}

// narrow returns the previous and current counts of a narrow value.
func (c SlidingWindowCount) narrow() (prev, cur int64) {
	return int64(c.counts >> 32), int64(c.counts & math.MaxUint32)
}

// admit returns the narrow value that admitted cost more at at: the current count stays within
// the limit, so it never carries into the previous one.
func (c SlidingWindowCount) admit(at, cost int64) SlidingWindowCount {
	c.counts += uint64(cost)
	c.last = at
	return c
}

func (c SlidingWindowCount) debit(at, cost int64) (SlidingWindowCount, int64, bool) {
	if c.p != nil && !wide(c.p) {
		if prev, cur := c.narrow(); c.p.CountCase(c.start, cur, c.last, at, cost) {
			if !c.p.CountFits(c.start, prev, cur, at, cost) {
				return c, c.p.CountFrom(c.start, prev, cur, at, cost), false
			}
			return c.admit(at, cost), at, true
		}
	}
	k, from, ok := c.kern().Debit(at, cost)
	return countOf(k), from, ok
}

func (c SlidingWindowCount) status(at int64) kernel.Status { return c.kern().Status(at) }

func (c SlidingWindowCount) latest() int64 { return lastOf(c.p != nil, c.last) }

func (c SlidingWindowCount) advance(at int64) SlidingWindowCount {
	if c.p == nil || at <= c.last {
		return c
	}
	return countOf(c.kern().Advance(at))
}

func (c SlidingWindowCount) spec() Spec {
	if c.p == nil {
		return Spec{Algo: AlgoCount}
	}
	return windowSpec(AlgoCount, c.p)
}

func (c SlidingWindowCount) state(dst [][]int64) [][]int64 {
	w := make([]int64, 4)
	putCounter(w, c.kern())
	return append(dst, w)
}

func (SlidingWindowCount) restore(sp Spec, st *states) (SlidingWindowCount, error) {
	lf, err := leafFor(sp, kindCount)
	if err != nil || st == nil {
		return countOf(lf.fresh().counter), err
	}
	w, err := st.next(4)
	if err != nil {
		return SlidingWindowCount{}, err
	}
	k, inv := lf.window.RestoreCounter(w[0], w[1], w[2], w[3])
	return countOf(k), stateErr(inv)
}

// Debit takes one token at at. It is DebitN(at, 1).
func (c SlidingWindowCount) Debit(at time.Time) (SlidingWindowCount, numerus.NextDebitable, bool) {
	return c.DebitN(at, 1)
}

// DebitN takes cost tokens at at, all or nothing. Admitted, it returns the SlidingWindowCount that follows and
// DebitableFrom(at); refused, the receiver and when the same debit would be admitted, or Never. A
// cost below 1 panics.
func (c SlidingWindowCount) DebitN(at time.Time, cost int64) (SlidingWindowCount, numerus.NextDebitable, bool) {
	if ns, ok := kernel.Instant(at); ok && c.p != nil && !wide(c.p) {
		if prev, cur := c.narrow(); c.p.CountCase(c.start, cur, c.last, ns, cost) { // inlined: no call
			// The commonest refusal first, with no product: a full window refusing one token.
			if wait, full := c.p.FullWait(c.start, cur, cost, ns); full {
				return c, numerus.DebitableAfter(at, time.Duration(wait)), false
			}
			if c.p.CountFits(c.start, prev, cur, ns, cost) {
				return c.admit(ns, cost), numerus.DebitableFrom(at), true
			}
			from := c.p.CountFrom(c.start, prev, cur, ns, cost)
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
	k, from, ok := c.kern().Debit(ns, cost)
	if ok {
		return countOf(k), numerus.DebitableFrom(at), true
	}
	return c, refusal(from, ns, at), false
}

// Status reports the limit, the tokens remaining at at and when it is full again. It is pure.
func (c SlidingWindowCount) Status(at time.Time) numerus.Status {
	return toStatus(c.kern().Status(kernel.FromTime(at)), at)
}

// String names the policy in the notation, as in "count 50/10s".
func (c SlidingWindowCount) String() string { return c.kern().String() }

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
