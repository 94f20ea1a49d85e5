package storetest

import "time"

// testPolicies drains each policy at its first instant, waits for the retry, then until full.
func testPolicies(h *harness) {
	for _, k := range kinds {
		h.set(t0)
		p := h.pair(k)
		if d := p.peek("s"); !d.Allowed || d.Remaining != d.Limit {
			h.t.Fatalf("%s: a fresh subject is not full: %s", k, show(d))
		}
		d, _ := p.drain("s", 1)
		if retry, ok := d.RetryAfter.Duration(); ok {
			h.advance(retry)
			p.acquire("s", 1)
		}
		d = p.peek("s")
		if reset, ok := d.FullAfter.Duration(); ok {
			h.advance(reset)
			if d := p.peek("s"); d.Remaining != d.Limit {
				h.t.Fatalf("%s: not full after FullAfter: %s", k, show(d))
			}
		}
	}
}

// testDenial floods drained subjects with refused checks, then requires the retry instant to
// admit as if the flood never happened: a refusal takes nothing, in buckets and windows alike.
func testDenial(h *harness) {
	for _, k := range kinds {
		h.set(t0)
		p := h.pair(k)
		d, _ := p.drain("s", 1)
		retry, ok := d.RetryAfter.Duration()
		if !ok {
			continue
		}
		for i := range 100 {
			h.set(t0.Add(retry * time.Duration(i) / 100))
			if d := p.acquire("s", 1); d.Allowed {
				h.t.Fatalf("%s: admitted before the retry instant", k)
			}
		}
		h.set(t0.Add(retry))
		if d := p.acquire("s", 1); !d.Allowed {
			h.t.Fatalf("%s: refused at the retry instant after a flood of refusals: %s", k, show(d))
		}
	}
}

// testRetryTight requires the retry instant to be tight, for costs of one and of the capacity:
// refused one resolution step before it, admitted at it.
func testRetryTight(h *harness) {
	for _, k := range kinds {
		for _, full := range []bool{false, true} {
			h.set(t0)
			p := h.pair(k)
			cost := int64(1)
			if full {
				cost = p.peek("s").Limit
			}
			d, _ := p.drain("s", cost)
			retry, ok := d.RetryAfter.Duration()
			if !ok {
				continue
			}
			at := h.now()
			h.set(at.Add(retry - h.cfg.res))
			if d := p.acquire("s", cost); d.Allowed {
				h.t.Fatalf("%s: cost %d admitted before its retry instant", k, cost)
			}
			h.set(at.Add(retry))
			if d := p.acquire("s", cost); !d.Allowed {
				h.t.Fatalf("%s: cost %d refused at its retry instant: %s", k, cost, show(d))
			}
		}
	}
}

// testNever requires Never, never a finite wait, for checks that can never succeed, and a finite
// wait where an Or has another way through.
func testNever(h *harness) {
	cases := []struct {
		policy string
		cost   int64
		never  bool
	}{
		{"finite 3", 1, true},
		{"finite 2 & gcra 10/s burst 5", 1, true},
		{"finite 1 | window 1/1h", 1, false},
		{"window 2/1m | finite 5", 4, true},
	}
	for _, c := range cases {
		h.set(t0)
		p := h.pair(c.policy)
		d, _ := p.drain("s", c.cost)
		if d.RetryAfter.IsNever() != c.never {
			h.t.Fatalf("%s: cost %d: retry after %v, want never: %v", c.policy, c.cost, d.RetryAfter, c.never)
		}
		for _, later := range []time.Duration{time.Hour, 24 * time.Hour, 400 * 24 * time.Hour} {
			h.set(t0.Add(later))
			p.acquire("s", c.cost)
		}
	}
}

// testPeek requires Peek to take nothing and to refill by the time elapsed.
func testPeek(h *harness) {
	h.set(t0)
	p := h.pair("gcra 2/s burst 3")
	for range 10 {
		p.peek("s")
	}
	if _, n := p.drain("s", 1); n != 3 {
		h.t.Fatalf("peeks took tokens: %d admitted after them, want 3", n)
	}
	d := p.peek("s")
	if d.Allowed {
		h.t.Fatalf("peek of an empty subject: %s", show(d))
	}
	h.advance(499 * time.Millisecond)
	p.peek("s")
	h.advance(time.Millisecond)
	if d := p.peek("s"); !d.Allowed || d.Remaining != 1 {
		h.t.Fatalf("peek ignores the time elapsed: %s", show(d))
	}
	h.advance(10 * time.Second)
	p.peek("s")
	w := h.pair("window 2/10s")
	w.drain("s", 1)
	w.peek("s")
	h.advance(10 * time.Second)
	w.peek("s")
}

// testReset requires a Reset subject to start from full, of every kind.
func testReset(h *harness) {
	for _, k := range kinds {
		h.set(t0)
		p := h.pair(k)
		p.reset("never seen")
		p.drain("s", 1)
		p.reset("s")
		p.reset("s")
		p.drain("s", 1)
	}
}
