package kernel

// WindowPolicy is a validated fixed-window policy: at most Limit tokens in each window of Width ns,
// the windows aligned on Origin.
type WindowPolicy struct {
	Width, Limit, Origin int64
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
