package kernel

import (
	"math"
	"math/bits"
)

// WindowPolicy is a validated fixed-window policy: at most Limit tokens in each window of Width ns,
// the windows aligned on Origin.
type WindowPolicy struct {
	Width, Limit, Origin int64
	span                 uint64 // the fixed window's fast path takes windows whose start s has s − (MinInstant+1) < span
	costs                uint64 // the counter's fast path takes costs up to it: Limit, or 0 if none
	limW                 int64  // Limit·Width, when costs > 0
	fullWait             int64  // decayed(Limit, Limit−1): a full window's wait, into the next, for one token
	fullNext             int64  // Width + fullWait: that wait from the full window's start, when costs > 0
	cspan                uint64 // the counter's fast path takes windows whose start s has s − (MinInstant+1) < cspan
}

// fastLo is the least start of a window that can take a fast path, MinInstant+1, unsigned: a window
// that starts at MinInstant may have been cut short (see start), so its length is not Width.
const fastLo = uint64(1<<63 + 1)

// NewWindow returns the policy; the caller has checked width ≥ 1 and limit ≥ 1.
func NewWindow(width, limit, origin int64) *WindowPolicy {
	p := &WindowPolicy{Width: width, Limit: limit, Origin: origin}
	// A window in the span ends at Start+Width ≤ MaxInstant: its end is an instant, not Never.
	p.span = diff(MinInstant, MaxInstant-width) // s in (MinInstant, MaxInstant−width]
	// The counter's fast path compares Prev·(W−e) + (Cur+cost)·W, at most 3·Limit·W, with Limit·W.
	if hi, lo := bits.Mul64(uint64(limit), uint64(width)); hi == 0 && lo <= math.MaxInt64/3 {
		p.costs, p.limW = uint64(limit), int64(lo)
	}
	p.fullWait = p.decayed(limit, limit-1)
	p.fullNext = width + p.fullWait // at most 2·Width: it fits when costs > 0, as Limit·Width ≤ MaxInt64/3
	// A window in the cspan is full again by s+fullNext ≤ MaxInstant: an instant, not Never.
	if p.costs > 0 {
		p.cspan = diff(MinInstant, MaxInstant-p.fullNext) // s in (MinInstant, MaxInstant−fullNext]
	}
	return p
}

// start returns the start of the window holding at. The window that begins before MinInstant
// starts at MinInstant here: still one value per window, and no wrap-around.
func (p *WindowPolicy) start(at int64) int64 { return SubSat(at, floorMod(at, p.Origin, p.Width)) }

// end returns the end of the window holding at, which the elapsed e = floorMod(at, Origin, Width)
// says, or Never past MaxInstant.
func (p *WindowPolicy) end(at, e int64) int64 { return Until(at, p.Width-e) }

// FixedWindow counts Count tokens in the window that starts at Start.
type FixedWindow struct {
	P     *WindowPolicy
	Start int64
	Count int64
	Last  int64
}

// FreshWindow returns an empty fixed window under p.
func (p *WindowPolicy) FreshWindow() FixedWindow {
	return FixedWindow{P: p, Start: MinInstant, Last: MinInstant}
}

// countAt returns the start of the window holding at and the tokens counted in it.
func (w FixedWindow) countAt(at int64) (int64, int64) {
	s := w.P.start(at)
	if s == w.Start {
		return s, w.Count
	}
	return s, 0
}

// Debit counts cost tokens at at.
func (w FixedWindow) Debit(at, cost int64) (FixedWindow, int64, bool) {
	if w.P != nil && w.FastCase(at, cost) {
		count, over := w.FastTake(at, cost)
		if over > 0 {
			return w, at + over, false
		}
		return w.FastAdmit(at, count), at, true
	}
	return w.debit(at, cost)
}

// FastCase reports whether a debit of cost at at is Debit's common case, which FastTake and
// FastAdmit decide, small enough to be inlined (see GCRA.FastCase): an instant not before Last
// that lies in the window counted, a window that holds tokens (so that Start is the start of a
// window, not a value restored with nothing counted), does not start at MinInstant (where it may
// have been cut short) and ends by MaxInstant, and a cost within the limit. w must have a policy.
func (w FixedWindow) FastCase(at, cost int64) bool {
	p := w.P
	return at >= w.Last && uint64(at-w.Start) < uint64(p.Width) && uint64(w.Start)-fastLo < p.span &&
		uint64(cost-1) < uint64(p.Limit) && w.Count >= 1
}

// FastTake is the arithmetic of a debit FastCase accepts: the count after it, and how long after
// at it would succeed if it is refused (over > 0: at the window's end, Start+Width, with no
// division); otherwise FastAdmit(at, count) is the window that follows it.
func (w FixedWindow) FastTake(at, cost int64) (count, over int64) {
	p := w.P
	if w.Count > p.Limit-cost {
		return w.Count, w.Start + p.Width - at // positive: at lies in the window
	}
	return w.Count + cost, 0
}

// FastAdmit returns w after a debit at at that FastTake admitted, counting count.
func (w FixedWindow) FastAdmit(at, count int64) FixedWindow {
	w.Count, w.Last = count, at
	return w
}

// debit is Debit for every case.
func (w FixedWindow) debit(at, cost int64) (FixedWindow, int64, bool) {
	CheckCost(cost)
	p := w.P
	if p == nil || cost > p.Limit {
		return w, Never, false
	}
	at = max(at, w.Last)
	s, c := w.countAt(at)
	if cost > p.Limit-c {
		return w, p.end(at, floorMod(at, p.Origin, p.Width)), false
	}
	return FixedWindow{P: p, Start: s, Count: c + cost, Last: at}, at, true
}

// Status reports the tokens left in the current window and when it ends.
func (w FixedWindow) Status(at int64) Status {
	p := w.P
	if p == nil {
		return Status{Full: Never}
	}
	at = max(at, w.Last)
	_, c := w.countAt(at)
	full := at
	if c > 0 {
		full = p.end(at, floorMod(at, p.Origin, p.Width))
	}
	return Status{Limit: p.Limit, Remaining: p.Limit - c, Full: full}
}

// String names the policy.
func (w FixedWindow) String() string {
	if w.P == nil {
		return "window (zero)"
	}
	return "window " + itoa(w.P.Limit) + "/" + FormatPeriod(w.P.Width)
}
