package storetest

import "time"

// testPolicyChange changes the policy of a namespace that holds state: each subject carries over
// the lesser of its tokens and the new capacity, switching back and forth never hands out a full
// bucket, and re-applying a policy changes nothing. A subject back to full under its old policy
// is full under the new one: a store may have dropped it, and a dropped subject starts afresh.
func testPolicyChange(h *harness) {
	ns := h.namespace()
	h.set(t0)
	small, large, tiny := h.limiterOf("gcra 10/min burst 10", ns), h.limiterOf("gcra 20/min burst 20", ns), h.limiterOf("gcra 5/min burst 5", ns)
	h.takeN(small, "s", 7, 7)
	h.expectRemaining(large, "s", 3) // a larger capacity does not refill
	h.takeN(large, "s", 1, 1)
	h.expectRemaining(small, "s", 2)
	h.expectRemaining(h.limiterOf("gcra 10/min burst 10", ns), "s", 2) // the same policy again
	// Alternating never hands out more than the tokens held at the switch.
	admitted := 0
	for i := range 20 {
		l := small
		if i%2 == 1 {
			l = large
		}
		admitted += h.takeN(l, "s", 1, -1)
	}
	if admitted != 2 {
		h.t.Fatalf("alternating policies at one instant admitted %d, want the 2 held", admitted)
	}
	h.takeN(small, "u", 2, 2) // 8 left
	h.expectRemaining(tiny, "u", 5)
	h.takeN(tiny, "u", 5, 5)
	h.expectRemaining(small, "u", 0) // a smaller capacity caps the tokens carried back
	h.advance(time.Hour)
	h.takeN(large, "u", 20, 20)       // a subject full under its old policy is full under the new
	h.expectRemaining(large, "s", 20) // (a Peek and a TryAcquire alike)
	h.expectRemaining(small, "u", 0)  // and carries back what it holds
	testChangeSticks(h, ns)
	testChangeReordered(h, ns)
	testChangeKeepsLog(h, ns)
	testChangeRaisesOne(h, ns)
}

// testChangeRaisesOne: raising one of two GCRAs, the raised leaf continues from the one it
// replaces (990 of 1000 left), not from the most used leaf (the per-second one, just spent).
func testChangeRaisesOne(h *harness, ns string) {
	two := h.limiterOf("gcra 10/s burst 10 & gcra 1000/h burst 1000", ns)
	raised := h.limiterOf("gcra 10/s burst 10 & gcra 2000/h burst 2000", ns)
	h.takeN(two, "raised", 10, 10)
	h.takeN(raised, "raised", 1, 0)
	h.advance(time.Second)
	h.takeN(raised, "raised", 11, 10)
}

// testChangeKeepsLog: a sliding log that a change keeps keeps its entries, also where an Or does
// not charge it. The log's 2 of the hour are spent at t0 and t0+1s; at t0+2s the GCRA holds 1
// again, and under the new policy (burst 2, identical log) only that 1 is admitted.
func testChangeKeepsLog(h *harness, ns string) {
	start := h.now()
	old, changed := h.limiterOf("sliding 2/h | gcra 1/s burst 1", ns), h.limiterOf("sliding 2/h | gcra 1/s burst 2", ns)
	h.takeN(old, "log", 1, 1)
	h.set(start.Add(time.Second))
	h.takeN(old, "log", 1, 1)
	h.set(start.Add(2 * time.Second))
	h.takeN(changed, "log", 3, 1)
	h.takeN(h.limiterOf("sliding 2/h | gcra 1/s burst 2", ns), "log", 1, 0) // compiled again
}

// testChangeSticks: the carry happens at the first check under the new policy, refused or a Peek
// as well as admitted, and the old policy stops refilling the subject there, unless the carried
// state is full. Drained under 20/min
// and refused under 1/h, a subject is still refused a minute later, when the old policy would
// have refilled it.
func testChangeSticks(h *harness, ns string) {
	fast, slow := h.limiterOf("gcra 20/min burst 20", ns), h.limiterOf("gcra 1/h burst 20", ns)
	h.takeN(fast, "refused", 20, 20)
	h.takeN(slow, "refused", 1, 0)
	h.takeN(fast, "peeked", 20, 20)
	h.expectRemaining(slow, "peeked", 0)
	h.advance(time.Minute)
	h.takeN(slow, "refused", 1, 0)
	h.expectRemaining(slow, "peeked", 0)
	// Unless the carried state is full: kept, it would carry back to the old policy as a subject
	// full again, which starts afresh.
	ten, five := h.limiterOf("gcra 1/h burst 10", ns), h.limiterOf("gcra 1/h burst 5", ns)
	h.takeN(ten, "capped", 5, 5)
	h.expectRemaining(five, "capped", 5)
	h.expectRemaining(ten, "capped", 5)
}

// testChangeReordered: a tree listing the same leaves in another order decides alike, and
// continuing under it gives back nothing: a leaf continues from the most used old leaf, not from
// the old leaf at its place (here the other algorithm).
func testChangeReordered(h *harness, ns string) {
	gw, wg := h.limiterOf("gcra 1/s burst 1 & window 5/h", ns), h.limiterOf("window 5/h & gcra 1/s burst 1", ns)
	for range 5 {
		h.takeN(gw, "reordered", 1, 1)
		h.advance(time.Second)
	}
	h.takeN(wg, "reordered", 1, 0)
	h.advance(time.Second)
	h.takeN(wg, "reordered", 1, 0)
}
