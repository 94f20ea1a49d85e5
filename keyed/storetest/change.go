package storetest

import (
	"time"
)

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
}
