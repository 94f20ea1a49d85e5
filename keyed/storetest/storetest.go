// Package storetest is the conformance suite of keyed stores, in the spirit of testing/slogtest:
// a store's own tests call [Run], which checks every semantic of the keyed package against it.
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) keyed.Store { return mystore.New(...) })
//	}
//
// The suite drives a keyed.Limiter on the store with a fake clock (keyed.WithClock), so every
// request carries its instant in [keyed.Request.At]: a store must decide at that instant (it may
// truncate it to its resolution, see [Resolution]). Its decisions are compared with the numerus
// limiter of the same policy (built with the root package's constructors): admissions, remaining
// tokens and limits must be equal, and waits must be the exact ones rounded up to the store's
// resolution, RefillAfter the wait for that limiter's answer to a debit of Remaining+1 (zero when
// full). Binding must name the leaf that a tree of the policy's leaves, each such a limiter,
// finds binding, as keyed.Decision defines it. The suite covers every algorithm of package typed and And/Or trees of them, with
// periods of a millisecond or more: a store that expires its entries by a clock of its own must
// keep them, in tests, for longer than the suite's fake timelines (minutes).
//
// Subtests, each with a new store from newStore, and each in namespaces of its own:
//
//   - Policies: every algorithm drained at its first instant, refilled, then full again.
//   - Model: random policies and timelines (a rapid state machine) against the reference.
//   - DenialConsumesNothing, RetryAfterTight, Never, Peek, Reset, Subjects, Namespaces,
//     BackwardTime, TreeTimeRule, SameInstant, PolicyChange: one semantic each, named after it.
//   - HotSubject: many goroutines on one subject; no error, and exactly the policy's bound.
//   - InvalidBeforeStore: invalid policies and costs fail before any store call.
package storetest

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/internal/model"
	"github.com/numerus-closus/numerus/typed"
)

// Option configures [Run].
type Option interface{ apply(*config) }

type config struct {
	res        time.Duration
	goroutines int
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// Resolution declares the store's time resolution (1µs by default): the store truncates
// instants to it and rounds waits up to it. The suite then requires every wait to lie in
// [exact, exact+d), the same check to be refused at the instant the wait ends less d, and
// admitted when it ends. The memory store passes Resolution(time.Nanosecond): exact waits.
func Resolution(d time.Duration) Option { return optionFunc(func(c *config) { c.res = max(d, 1) }) }

// Goroutines sets how many goroutines HotSubject runs on one subject (16 by default).
func Goroutines(n int) Option { return optionFunc(func(c *config) { c.goroutines = max(n, 2) }) }

// t0 is the first instant of every timeline: microsecond-aligned, as every instant the suite
// sends unless a store's own answer leads elsewhere.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Run runs the conformance suite. newStore returns a store for one subtest; it may return the
// same store each time, since every subtest works in namespaces of its own, and may register
// cleanups with t.
func Run(t *testing.T, newStore func(t *testing.T) keyed.Store, opts ...Option) {
	c := config{res: time.Microsecond, goroutines: 16}
	for _, o := range opts {
		o.apply(&c)
	}
	run := func(name string, f func(h *harness)) {
		t.Run(name, func(t *testing.T) { f(newHarness(t, newStore(t), c)) })
	}
	run("Policies", testPolicies)
	run("Model", testModel)
	run("DenialConsumesNothing", testDenial)
	run("RetryAfterTight", testRetryTight)
	run("Never", testNever)
	run("Peek", testPeek)
	run("Reset", testReset)
	run("Subjects", testSubjects)
	run("Namespaces", testNamespaces)
	run("BackwardTime", testBackward)
	run("TreeTimeRule", testTreeTimeRule)
	run("SameInstant", testSameInstant)
	run("PolicyChange", testPolicyChange)
	run("HotSubject", testHotSubject)
	run("InvalidBeforeStore", testInvalid)
	run("InvalidRequests", testInvalidRequests)
}

// harness is one subtest's store, fake clock and namespace prefix.
type harness struct {
	t      *testing.T
	store  keyed.Store
	cfg    config
	ns     string
	clock  atomic.Int64
	nsSeen atomic.Int64
}

func newHarness(t *testing.T, s keyed.Store, c config) *harness {
	h := &harness{t: t, store: s, cfg: c}
	h.ns = "storetest/" + t.Name() + "/" + strconv.FormatUint(rand.Uint64(), 36)
	h.set(t0)
	return h
}

func (h *harness) set(at time.Time) { h.clock.Store(at.UnixNano()) }
func (h *harness) now() time.Time   { return time.Unix(0, h.clock.Load()).UTC() }
func (h *harness) advance(d time.Duration) time.Time {
	return time.Unix(0, h.clock.Add(int64(d))).UTC()
}

// namespace returns a namespace no other limiter of the suite uses.
func (h *harness) namespace() string {
	return h.ns + "/" + strconv.FormatInt(h.nsSeen.Add(1), 10)
}

// limiter returns a limiter of sp on the harness's store and clock, in namespace ns ("" for a
// new one).
func (h *harness) limiter(sp typed.Spec, ns string) keyed.Limiter[string] {
	h.t.Helper()
	if ns == "" {
		ns = h.namespace()
	}
	l, err := keyed.New(h.store, sp, keyed.StringKey{}, keyed.WithNamespace(ns), keyed.WithClock(h.now))
	if err != nil {
		h.t.Fatalf("keyed.New(%v): %v", sp, err)
	}
	return l
}

// tb is what the checks need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// pair is a limiter and the reference it must agree with; t reports their disagreements.
type pair struct {
	h   *harness
	t   tb
	l   keyed.Limiter[string]
	ref *model.Subjects
}

// pair returns a limiter of the policy written in text, in a namespace of its own, with its
// reference.
func (h *harness) pair(text string) pair {
	h.t.Helper()
	sp, err := typed.Parse(text)
	if err != nil {
		h.t.Fatalf("typed.Parse(%q): %v", text, err)
	}
	return h.pairOf(h.t, sp, "")
}

func (h *harness) pairOf(t tb, sp typed.Spec, ns string) pair {
	t.Helper()
	ref, err := model.New(sp)
	if err != nil {
		t.Fatalf("model of %v: %v", sp, err)
	}
	return pair{h: h, t: t, l: h.limiter(sp, ns), ref: ref}
}

// acquire takes cost for subject at the clock's instant, on both, and requires the same answer.
func (p pair) acquire(subject string, cost int64) keyed.Decision {
	p.t.Helper()
	d, err := p.l.TryAcquire(context.Background(), subject, cost)
	if err != nil {
		p.t.Fatalf("%v: TryAcquire(%q, %d) at %v: %v", p.l.Policy(), subject, cost, p.h.now(), err)
	}
	p.h.same(p.t, "TryAcquire", p.l.Policy(), subject, d, p.ref.Acquire(subject, p.h.now(), cost))
	return d
}

// peek peeks at subject on both and requires the same answer.
func (p pair) peek(subject string) keyed.Decision {
	p.t.Helper()
	d, err := p.l.Peek(context.Background(), subject)
	if err != nil {
		p.t.Fatalf("%v: Peek(%q) at %v: %v", p.l.Policy(), subject, p.h.now(), err)
	}
	p.h.same(p.t, "Peek", p.l.Policy(), subject, d, p.ref.Peek(subject, p.h.now()))
	return d
}

func (p pair) reset(subject string) {
	p.t.Helper()
	if err := p.l.Reset(context.Background(), subject); err != nil {
		p.t.Fatalf("%v: Reset(%q): %v", p.l.Policy(), subject, err)
	}
	p.ref.Reset(subject)
}

// limiterOf returns a limiter of the policy written in text, in namespace ns.
func (h *harness) limiterOf(text, ns string) keyed.Limiter[string] {
	h.t.Helper()
	sp, err := typed.Parse(text)
	if err != nil {
		h.t.Fatalf("typed.Parse(%q): %v", text, err)
	}
	return h.limiter(sp, ns)
}

// takeN tries n single tokens for subject at the clock's instant and returns how many were
// admitted; it fails unless that is want (want < 0: any).
func (h *harness) takeN(l keyed.Limiter[string], subject string, n, want int) int {
	h.t.Helper()
	got := 0
	for range n {
		if admit(h, l, subject) {
			got++
		}
	}
	if want >= 0 && got != want {
		h.t.Fatalf("%v: %d of %d admitted for %q, want %d", l.Policy(), got, n, subject, want)
	}
	return got
}

// expectRemaining fails unless a Peek of subject reports want tokens remaining.
func (h *harness) expectRemaining(l keyed.Limiter[string], subject string, want int64) {
	h.t.Helper()
	d, err := l.Peek(context.Background(), subject)
	if err != nil || d.Remaining != want {
		h.t.Fatalf("%v: Peek(%q) = %s, error %v; want %d remaining", l.Policy(), subject, show(d), err, want)
	}
}

// kinds are policies of every algorithm and of And/Or trees, in the notation of package typed.
var kinds = []string{
	"gcra 10/s burst 5",
	"gcra 3/s burst 2", // an interval of a third of a second: waits that are not whole
	"token 3/s burst 4",
	"leaky 2/s burst 3",
	"finite 4",
	"window 5/10s",
	"count 5/10s",
	"sliding 4/2s",
	"buckets 6/6s in 3",
	"gcra 10/s burst 5 & window 8/1m",
	"token 1/s burst 2 | finite 3",
	"(gcra 3/s & count 10/1m) | leaky 1/s burst 2",
}

// drain takes cost from subject at the clock's instant until a refusal, and returns it and the
// number admitted.
func (p pair) drain(subject string, cost int64) (keyed.Decision, int) {
	p.t.Helper()
	for n := 0; n < 10_000; n++ {
		if d := p.acquire(subject, cost); !d.Allowed {
			return d, n
		}
	}
	p.t.Fatalf("%v: 10000 debits of %d admitted at one instant", p.l.Policy(), cost)
	return keyed.Decision{}, 0
}

// admit takes one token for subject and reports whether it was admitted.
func admit(h *harness, l keyed.Limiter[string], subject string) bool {
	h.t.Helper()
	d, err := l.TryAcquire(context.Background(), subject, 1)
	if err != nil {
		h.t.Fatalf("TryAcquire(%q): %v", subject, err)
	}
	return d.Allowed
}
