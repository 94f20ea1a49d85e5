package storetest

import "time"

// testBackward steps the clock back, and back and forth, on drained subjects: nothing is
// credited twice, every answer is the reference's.
func testBackward(h *harness) {
	for _, k := range kinds {
		start := t0.Add(time.Hour)
		h.set(start)
		p := h.pair(k)
		d, _ := p.drain("s", 1)
		for _, back := range []time.Duration{time.Millisecond, time.Second, time.Hour, 24 * time.Hour} {
			h.set(start.Add(-back))
			p.acquire("s", 1)
			p.peek("s")
		}
		retry, ok := d.RetryAfter.Duration()
		if !ok {
			continue
		}
		mid := start.Add(retry)
		for i := range 200 {
			off := time.Duration(i%7) * time.Millisecond
			if i%2 == 1 {
				off = -off
			}
			h.set(mid.Add(off + time.Duration(i)*time.Microsecond))
			p.acquire("s", 1)
		}
	}
}

// testTreeTimeRule steps back behind the latest admission of an Or that one child made alone: the
// other child counts the earlier instant as the latest one too, so it does not free its capacity
// early. Under "sliding 2/10s | finite 4": 1 at 100s (both), 2 at 105s (the finite bucket
// alone), 1 at 103s, counted at 105s (both), then 2 at 113.5s: the log's token taken at 105s is
// live until 115s, and the finite bucket is spent, so it is refused until 115s. (Counted at 103s,
// the log would have freed it at 113s.)
func testTreeTimeRule(h *harness) {
	start := t0.Add(time.Hour)
	p := h.pair("sliding 2/10s | finite 4")
	for _, s := range []struct {
		at   time.Duration
		cost int64
	}{{100 * time.Second, 1}, {105 * time.Second, 2}, {103 * time.Second, 1}} {
		h.set(start.Add(s.at))
		if d := p.acquire("s", s.cost); !d.Allowed {
			h.t.Fatalf("%d at %v refused", s.cost, s.at)
		}
	}
	h.set(start.Add(113500 * time.Millisecond))
	d := p.acquire("s", 2)
	if retry, _ := d.RetryAfter.Duration(); d.Allowed || retry < 1500*time.Millisecond {
		h.t.Fatalf("2 at 113.5s: allowed %v, retry after %v; want refused until 115s", d.Allowed, retry)
	}
}

// testSameInstant repeats checks at one instant: the elapsed time is counted once.
func testSameInstant(h *harness) {
	for _, k := range kinds {
		h.set(t0.Add(time.Minute))
		p := h.pair(k)
		p.drain("s", 1)
		for range 100 {
			p.acquire("s", 1)
			p.peek("s")
		}
	}
}
