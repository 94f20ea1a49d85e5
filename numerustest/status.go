package numerustest

import "pgregory.net/rapid"

// statusMatch: Status is within bounds and its Remaining predicts the answers.
func statusMatch(t *rapid.T, e env) {
	h := e.history(t)
	at := h.now.Add(e.step(t, "step"))
	s := h.l.Status(at)
	if s.Remaining < 0 || s.Remaining > s.Limit {
		t.Fatalf("%s: Status(%v) has remaining %d outside [0, limit %d]", h.l, at, s.Remaining, s.Limit)
	}
	if f, ok := s.Full.Time(); ok && f.Before(at) {
		t.Fatalf("%s: Status(%v) is full from %v, before the instant asked", h.l, at, f)
	}
	for c := int64(1); c <= min(e.maxCost, 64); c++ {
		if _, _, ok := h.l.DebitN(at, c); ok != (s.Remaining >= c) {
			t.Fatalf("%s: Status(%v) has remaining %d, but DebitN of %d admitted: %v", h.l, at, s.Remaining, c, ok)
		}
	}
}

// fullStatus: the limiter is full at the instant Status names, and stays full.
func fullStatus(t *rapid.T, e env) {
	h := e.history(t)
	at := h.now.Add(e.step(t, "step"))
	f, ok := h.l.Status(at).Full.Time()
	if !ok {
		return
	}
	for i := range 3 {
		u := f
		if i > 0 {
			u = e.later(t, f, "later")
		}
		s := h.l.Status(u)
		if s.Remaining != s.Limit {
			t.Fatalf("%s: Status(%v) says full from %v, but at %v has %d of %d", h.l, at, f, u, s.Remaining, s.Limit)
		}
		if g, ok := s.Full.Time(); !ok || !g.Equal(u) {
			t.Fatalf("%s: Status(%v) says full from %v, but Status(%v) says full %v", h.l, at, f, u, s.Full)
		}
	}
}
