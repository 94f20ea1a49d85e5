package storetest

import (
	"fmt"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/internal/model"
	"github.com/numerus-closus/numerus/typed"
)

// same fails the test unless the store's decision d agrees with the reference's want, at the
// clock's instant: the same admission, remaining, limit and binding limit, and waits within the
// resolution.
func (h *harness) same(t tb, op string, p typed.Policy, subject string, d keyed.Decision, want model.Decision) {
	t.Helper()
	at := h.now()
	if problem := h.differ(d, want, at); problem != "" {
		t.Fatalf("%s(%q) under %v at %v: %s\n got  %s\n want %s", op, subject, p, at.Format(time.RFC3339Nano),
			problem, show(d), showWant(want, at))
	}
}

func (h *harness) differ(d keyed.Decision, want model.Decision, at time.Time) string {
	switch {
	case d.Allowed != want.Allowed:
		return "admission differs"
	case d.Remaining != want.Remaining:
		return "remaining differs"
	case d.Limit != want.Limit:
		return "limit differs"
	case d.Allowed && d.RetryAfter != keyed.DurationOf(0):
		return "an admission must retry after zero"
	case d.Binding != want.Binding:
		return "the binding limit differs"
	}
	if p := h.wait("retry after", d.RetryAfter, want.RetryAfter, at); p != "" {
		return p
	}
	if p := h.wait("refill after", d.RefillAfter, want.Refill, at); p != "" {
		return p
	}
	return h.wait("reset after", d.FullAfter, want.Full, at)
}

// wait checks that got is the wait from at until want, rounded up to the resolution.
func (h *harness) wait(name string, got keyed.Duration, want numerus.NextDebitable, at time.Time) string {
	exact, ok := want.Wait(at)
	d, finite := got.Duration()
	switch {
	case !ok && finite:
		return name + " must be never"
	case !ok:
		return ""
	case !finite:
		return name + " must be finite"
	case d < exact:
		return name + " is early"
	case d >= exact+h.cfg.res:
		return name + " is later than the resolution allows"
	}
	return ""
}

func show(d keyed.Decision) string {
	return fmt.Sprintf("allowed=%v remaining=%d limit=%d retry=%v reset=%v refill=%v binding=%d",
		d.Allowed, d.Remaining, d.Limit, d.RetryAfter, d.FullAfter, d.RefillAfter, d.Binding)
}

func showWant(w model.Decision, at time.Time) string {
	wait := func(n numerus.NextDebitable) string {
		if d, ok := n.Wait(at); ok {
			return d.String()
		}
		return "never"
	}
	return fmt.Sprintf("allowed=%v remaining=%d limit=%d retry=%s reset=%s refill=%s binding=%d",
		w.Allowed, w.Remaining, w.Limit, wait(w.RetryAfter), wait(w.Full), wait(w.Refill), w.Binding)
}
