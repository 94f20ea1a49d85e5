package typed

import (
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// FixedWindow admits at most n tokens in each window of a given length, the windows aligned on
// the Unix epoch, as a typed value. It decides exactly like numerus.FixedWindow started at the
// epoch; like it, it admits up to 2n across a boundary.
//
// The zero FixedWindow has no policy: it refuses every debit with Never and cannot be saved.
type FixedWindow struct{ k kernel.FixedWindow }

// NewFixedWindow returns an empty fixed window. It returns an error matching
// numerus.ErrInvalidArgument, naming the parameter, when window or n is not positive.
func NewFixedWindow(window time.Duration, n int64) (FixedWindow, error) {
	p, inv := kernel.WindowOf(int64(window), n, 0)
	if inv != nil {
		return FixedWindow{}, paramErr(inv)
	}
	return FixedWindow{p.FreshWindow()}, nil
}

func (w FixedWindow) debit(at, cost int64) (FixedWindow, int64, bool) {
	if w.k.P != nil && w.k.FastCase(at, cost) {
		word, over := w.k.FastTake(at, cost)
		if over > 0 {
			return w, at + over, false
		}
		return FixedWindow{w.k.FastAdmit(at, word)}, at, true
	}
	k, from, ok := w.k.Debit(at, cost)
	return FixedWindow{k}, from, ok
}

func (w FixedWindow) status(at int64) kernel.Status { return w.k.Status(at) }

func (w FixedWindow) latest() int64 { return lastOf(w.k.P != nil, w.k.Last) }

func (w FixedWindow) advance(at int64) FixedWindow { return FixedWindow{w.k.Advance(at)} }

func (w FixedWindow) spec() Spec {
	if w.k.P == nil {
		return Spec{Algo: AlgoWindow}
	}
	return windowSpec(AlgoWindow, w.k.P)
}

func (w FixedWindow) state(dst [][]int64) [][]int64 {
	ws := make([]int64, 3)
	putWindow(ws, w.k)
	return append(dst, ws)
}

func (FixedWindow) restore(sp Spec, st *states) (FixedWindow, error) {
	lf, err := leafFor(sp, kindWindow)
	if err != nil || st == nil {
		return FixedWindow{lf.fresh().window}, err
	}
	w, err := st.next(3)
	if err != nil {
		return FixedWindow{}, err
	}
	k, inv := lf.window.RestoreWindow(w[0], w[1], w[2])
	return FixedWindow{k}, stateErr(inv)
}

// Debit takes one token at at. It is DebitN(at, 1).
func (w FixedWindow) Debit(at time.Time) (FixedWindow, numerus.NextDebitable, bool) {
	return w.DebitN(at, 1)
}

// DebitN takes cost tokens at at, all or nothing. Admitted, it returns the FixedWindow that follows and
// DebitableFrom(at); refused, the receiver and when the same debit would be admitted, or Never. A
// cost below 1 panics.
func (w FixedWindow) DebitN(at time.Time, cost int64) (FixedWindow, numerus.NextDebitable, bool) {
	if ns, ok := kernel.Instant(at); ok && w.k.P != nil && w.k.FastCase(ns, cost) { // inlined: no call
		word, over := w.k.FastTake(ns, cost)
		if over > 0 {
			return w, numerus.DebitableAfter(at, time.Duration(over)), false
		}
		return FixedWindow{w.k.FastAdmit(ns, word)}, numerus.DebitableFrom(at), true
	}
	return w.debitN(at, cost)
}

func (w FixedWindow) debitN(at time.Time, cost int64) (FixedWindow, numerus.NextDebitable, bool) {
	ns := kernel.FromTime(at)
	k, from, ok := w.k.Debit(ns, cost)
	if ok {
		return FixedWindow{k}, numerus.DebitableFrom(at), true
	}
	return w, refusal(from, ns, at), false
}

// Status reports the limit, the tokens remaining at at and when it is full again. It is pure.
func (w FixedWindow) Status(at time.Time) numerus.Status {
	return toStatus(w.k.Status(kernel.FromTime(at)), at)
}

// String names the policy in the notation, as in "window 1000/h".
func (w FixedWindow) String() string { return w.k.String() }

// AppendBinary appends the snapshot of w (policy and state) to dst, which UnmarshalBinary and
// ReadSnapshot read. The zero FixedWindow has no policy and cannot be saved.
func (w FixedWindow) AppendBinary(dst []byte) ([]byte, error) { return appendSnapshot(dst, w) }

// MarshalBinary returns the snapshot of w.
func (w FixedWindow) MarshalBinary() ([]byte, error) { return appendSnapshot(nil, w) }

// UnmarshalBinary sets *w to the FixedWindow a snapshot saved, validated: it returns an error matching
// ErrCorrupt or ErrMismatch, and leaves *w unchanged, when data is not the snapshot of a FixedWindow.
func (w *FixedWindow) UnmarshalBinary(data []byte) error { return readSnapshot(w, data) }

// MarshalJSON returns the snapshot of w as JSON: {"version":1,"policy":...,"state":[[...]]}.
func (w FixedWindow) MarshalJSON() ([]byte, error) { return snapshotJSON(w) }

// UnmarshalJSON sets *w to the FixedWindow a JSON snapshot saved, validated like UnmarshalBinary.
func (w *FixedWindow) UnmarshalJSON(data []byte) error { return readSnapshotJSON(w, data) }
