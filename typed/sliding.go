package typed

import (
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// SlidingWindow is the sliding window log as a typed value: at most n tokens in any span of the
// window's length, or, bucketed, in any k consecutive sub-windows aligned on the Unix epoch. It
// decides exactly like numerus.SlidingWindow and numerus.SlidingWindowBucketed; a debit is O(1)
// amortized and allocates only when the log's storage grows.
//
// The zero SlidingWindow has no policy: it refuses every debit with Never and cannot be saved.
type SlidingWindow struct{ k kernel.Log }

// NewSlidingWindow returns an empty sliding window log. It returns an error matching
// numerus.ErrInvalidArgument, naming the parameter, when window or n is not positive.
func NewSlidingWindow(window time.Duration, n int64) (SlidingWindow, error) {
	return newLog(kernel.LogOf(int64(window), n, 1))
}

// NewSlidingWindowBucketed returns an empty sliding window split into windows sub-windows aligned
// on the Unix epoch; memory is O(windows). It returns an error matching
// numerus.ErrInvalidArgument, naming the parameter, when window, windows or n is not positive, or
// when windows does not divide window evenly.
func NewSlidingWindowBucketed(window time.Duration, windows int, n int64) (SlidingWindow, error) {
	return newLog(kernel.BucketsOf(int64(window), n, int64(windows)))
}

func newLog(p *kernel.LogPolicy, inv *kernel.Invalid) (SlidingWindow, error) {
	if inv != nil {
		return SlidingWindow{}, paramErr(inv)
	}
	return SlidingWindow{p.FreshLog()}, nil
}

func (l SlidingWindow) debit(at, cost int64) (SlidingWindow, int64, bool) {
	k, from, ok := l.k.Debit(at, cost)
	return SlidingWindow{k}, from, ok
}

func (l SlidingWindow) status(at int64) kernel.Status { return l.k.Status(at) }

func (l SlidingWindow) latest() int64 { return lastOf(l.k.P != nil, l.k.Last) }

func (l SlidingWindow) advance(at int64) SlidingWindow { return SlidingWindow{l.k.Advance(at)} }

func (l SlidingWindow) spec() Spec {
	if l.k.P == nil {
		return Spec{Algo: AlgoSliding}
	}
	return logSpec(l.k.P)
}

func (l SlidingWindow) state(dst [][]int64) [][]int64 { return append(dst, logWords(l.k)) }

func (SlidingWindow) restore(sp Spec, st *states) (SlidingWindow, error) {
	want := kindSliding
	if sp.Algo.kind() == kindBuckets {
		want = kindBuckets
	}
	lf, err := leafFor(sp, want)
	if err != nil || st == nil {
		return SlidingWindow{lf.fresh().log}, err
	}
	w, err := st.next(-1)
	if err != nil {
		return SlidingWindow{}, err
	}
	k, inv := restoreLog(lf.log, w)
	return SlidingWindow{k}, stateErr(inv)
}

// Debit takes one token at at. It is DebitN(at, 1).
func (l SlidingWindow) Debit(at time.Time) (SlidingWindow, numerus.NextDebitable, bool) {
	return l.DebitN(at, 1)
}

// DebitN takes cost tokens at at, all or nothing. Admitted, it returns the SlidingWindow that follows and
// DebitableFrom(at); refused, the receiver and when the same debit would be admitted, or Never. A
// cost below 1 panics.
func (l SlidingWindow) DebitN(at time.Time, cost int64) (SlidingWindow, numerus.NextDebitable, bool) {
	ns := kernel.FromTime(at)
	k, from, ok := l.k.Debit(ns, cost)
	if ok {
		return SlidingWindow{k}, numerus.DebitableFrom(at), true
	}
	return l, refusal(from, ns, at), false
}

// Status reports the limit, the tokens remaining at at and when it is full again. It is pure.
func (l SlidingWindow) Status(at time.Time) numerus.Status {
	return toStatus(l.k.Status(kernel.FromTime(at)), at)
}

// String names the policy in the notation, as in "sliding 100/m".
func (l SlidingWindow) String() string { return l.k.String() }

// AppendBinary appends the snapshot of l (policy and state) to dst, which UnmarshalBinary and
// ReadSnapshot read. The zero SlidingWindow has no policy and cannot be saved.
func (l SlidingWindow) AppendBinary(dst []byte) ([]byte, error) { return appendSnapshot(dst, l) }

// MarshalBinary returns the snapshot of l.
func (l SlidingWindow) MarshalBinary() ([]byte, error) { return appendSnapshot(nil, l) }

// UnmarshalBinary sets *l to the SlidingWindow a snapshot saved, validated: it returns an error matching
// ErrCorrupt or ErrMismatch, and leaves *l unchanged, when data is not the snapshot of a SlidingWindow.
func (l *SlidingWindow) UnmarshalBinary(data []byte) error { return readSnapshot(l, data) }

// MarshalJSON returns the snapshot of l as JSON: {"version":1,"policy":...,"state":[[...]]}.
func (l SlidingWindow) MarshalJSON() ([]byte, error) { return snapshotJSON(l) }

// UnmarshalJSON sets *l to the SlidingWindow a JSON snapshot saved, validated like UnmarshalBinary.
func (l *SlidingWindow) UnmarshalJSON(data []byte) error { return readSnapshotJSON(l, data) }
