package memory

import (
	"context"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestKeptRefusalTakesNoLock: once a check of one token is refused, the checks of one token and
// the Peeks that follow until its Retry, bound checks and Requests, are refused with the same
// Outcome without the entry's lock: the test holds it, and a check that asked for it would not
// return. A check of two
// tokens, or of one at the Retry, takes the lock. Subjects of both bound paths (8 to 16 bytes,
// and other lengths).
func TestKeptRefusalTakesNoLock(t *testing.T) {
	p := typed.MustCompile("gcra 1/h")
	at := int64(1)
	for _, subject := range []string{"subject:12345", "x", "0123456789abcdefg"} {
		s := New(WithShards(1))
		b := s.bind("1:a:", p).(*bound)
		_, ok, _ := b.Acquire(subject, 1, time.Unix(0, at))
		require.True(t, ok, "subject %q: the first token", subject)
		want, ok, _ := b.Acquire(subject, 1, time.Unix(0, at+1))
		require.False(t, ok, "subject %q: the second token", subject)
		e := entryOf(t, s, "1:a:"+subject)
		require.True(t, e.refusing.Load(), "subject %q: the refusal is not kept", subject)

		e.mu.Lock()
		acquire := func() (typed.Outcome, bool) {
			o, ok, _ := b.Acquire(subject, 1, time.Unix(0, want.Retry-1))
			return o, ok
		}
		peek := func() (typed.Outcome, bool) {
			o, ok, _ := b.Peek(subject, time.Unix(0, want.Retry-1))
			return o, ok
		}
		r := keyed.Request{Key: []byte("1:a:" + subject), Policy: p, Cost: 1, At: time.Unix(0, want.Retry-1)}
		request := func() (typed.Outcome, bool) {
			d, err := s.Acquire(context.Background(), r)
			require.NoError(t, err)
			return outcomeOf(d, want), d.Allowed
		}
		requestPeek := func() (typed.Outcome, bool) {
			d, err := s.Peek(context.Background(), r)
			require.NoError(t, err)
			return outcomeOf(d, want), d.Allowed
		}
		for i, check := range []func() (typed.Outcome, bool){acquire, peek, request, requestPeek} {
			o, ok, returned := returns(check)
			if !returned {
				t.Fatalf("subject %q: check %d waits for the entry's lock", subject, i)
			}
			require.False(t, ok)
			require.Equal(t, want, o, "subject %q: check %d, answered by the kept refusal", subject, i)
		}
		require.Equal(t, int32(0), waiters(&e.mu))
		done := make(chan typed.Outcome, 1)
		for _, c := range []struct {
			cost int64
			at   int64
		}{{2, at + 2}, {1, want.Retry}} {
			go func() {
				_, _, _ = b.Acquire(subject, c.cost, time.Unix(0, c.at))
				done <- typed.Outcome{}
			}()
			for waiters(&e.mu) == 0 {
				select {
				case <-done:
					t.Fatalf("subject %q: a check of %d at %d did without the lock", subject, c.cost, c.at)
				default:
					runtime.Gosched()
				}
			}
			e.mu.Unlock()
			<-done
			e.mu.Lock()
		}
		e.mu.Unlock()
	}
}

// forgetAll makes every entry of s forget the refusal it keeps.
func forgetAll(s *Store) {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for _, e := range sh.entries {
			e.mu.Lock()
			e.unrefuse()
			e.mu.Unlock()
		}
		sh.mu.Unlock()
	}
}

// returns runs check in a goroutine of its own and reports what it returned, and whether it
// returned within 10 s: a check blocked on a lock the test holds does not, and only a failing
// test waits that long (the goroutine stays blocked until the test ends).
func returns(check func() (typed.Outcome, bool)) (typed.Outcome, bool, bool) {
	type result struct {
		o  typed.Outcome
		ok bool
	}
	done := make(chan result, 1)
	go func() {
		o, ok := check()
		done <- result{o, ok}
	}()
	select {
	case r := <-done:
		return r.o, r.ok, true
	case <-time.After(10 * time.Second):
		return typed.Outcome{}, false, false
	}
}

// TestTwinsShareRefusals: two bounds of one policy text compiled apart (two limiters of one
// namespace) share a subject's entry and its kept refusal. With the shard's lock held throughout:
// a check by the twin adopts its Policy under the entry's lock alone and is refused, keeping the
// refusal; a check by the first bound is then answered from it without the entry's lock, and a
// check by the twin likewise. So twins that refuse one subject in turn take no lock at all. A
// Request of two tokens under a third compilation adopts it under the entry's lock alone too.
func TestTwinsShareRefusals(t *testing.T) {
	s := New(WithShards(1))
	b := s.bind("1:a:", typed.MustCompile("gcra 1/h burst 2")).(*bound)
	twin := s.bind("1:a:", typed.MustCompile("gcra 1/h burst 2")).(*bound)
	_, ok, _ := b.Acquire("subject:12345", 2, time.Unix(0, 1))
	require.True(t, ok)
	e := entryOf(t, s, "1:a:subject:12345")
	sh := &s.shards[0]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	check := func(b *bound, at int64) func() (typed.Outcome, bool) {
		return func() (typed.Outcome, bool) {
			o, ok, _ := b.Acquire("subject:12345", 1, time.Unix(0, at))
			return o, ok
		}
	}
	want, ok, returned := returns(check(twin, 2))
	require.True(t, returned, "the twin's check waits for the shard's lock")
	require.False(t, ok)
	e.mu.Lock()
	for i, c := range []func() (typed.Outcome, bool){check(b, 3), check(twin, 4)} {
		o, ok, returned := returns(c)
		require.True(t, returned, "check %d waits for a lock: the twin's refusal was not kept, or not shared", i)
		require.False(t, ok)
		require.Equal(t, want, o, "check %d", i)
	}
	e.mu.Unlock()
	r := keyed.Request{Key: []byte("1:a:subject:12345"), Policy: typed.MustCompile("gcra 1/h burst 2"), Cost: 2, At: time.Unix(0, 5)}
	_, _, returned = returns(func() (typed.Outcome, bool) {
		d, err := s.Acquire(context.Background(), r)
		require.NoError(t, err)
		return typed.Outcome{}, d.Allowed
	})
	require.True(t, returned, "a Request under a third compilation waits for the shard's lock")
}

// outcomeOf returns the Outcome d tells of, at the instant want.Retry-1 (where want's waits are
// counted from), for comparing with want.
func outcomeOf(d keyed.Decision, want typed.Outcome) typed.Outcome {
	at := want.Retry - 1
	o := typed.Outcome{Remaining: d.Remaining, Limit: d.Limit, Retry: kernel.Never, Full: kernel.Never, Next: kernel.Never, Binds: d.Binding}
	if w, ok := d.RetryAfter.Duration(); ok {
		o.Retry = at + int64(w)
	}
	if w, ok := d.RefillAfter.Duration(); ok {
		o.Next = at + int64(w)
	}
	if w, ok := d.FullAfter.Duration(); ok {
		o.Full = at + int64(w)
	}
	return o
}

// entryOf returns the entry of key (a framed namespace and a subject), failing if there is none.
func entryOf(t *testing.T, s *Store, k string) *entry {
	t.Helper()
	kk := key{bytes: []byte(k), n: prefixLen(k)}
	h := s.seed.hash(kk.bytes, kk.n)
	e := s.shard(h).table().find(h, &kk)
	require.NotNil(t, e, "no entry for %q", k)
	return e
}

// TestKeptRefusalsDecideAsRequests: a store that keeps refusals and answers from them decides
// exactly as one that never does (its twin, whose kept refusals the test forgets before every
// check), given the same checks: Acquires of one and two tokens and Peeks through two bounds of
// one policy, one of the same policy compiled apart, and one of another (so the subject changes
// policy back and forth), Acquires and Peeks as Requests, checks under the shard's lock (as when
// the lock-free probe misses), Resets, and instants that go forwards, stay and step back. A kept refusal that was not forgotten when the state changed would answer
// a check after it, at an instant before its Retry.
func TestKeptRefusalsDecideAsRequests(t *testing.T) {
	policies := []typed.Policy{typed.MustCompile("gcra 2/s burst 2"), typed.MustCompile("gcra 2/s burst 2"),
		typed.MustCompile("token 5/s burst 3")}
	const prefix = "1:a:"
	ctx := context.Background()
	ops := slices.Repeat([]string{"acquire", "acquire", "acquire", "acquire", "acquire2", "request", "request", "request-peek", "peek", "locked", "locked2"}, 4)
	ops = append(ops, "reset") // rarely: it wipes what the steps built up
	rapid.Check(t, func(t *rapid.T) {
		bounds, requests := New(WithShards(1), WithGrace(time.Hour)), New(WithShards(1), WithGrace(time.Hour))
		bs := []*bound{bounds.bind(prefix, policies[0]).(*bound), bounds.bind(prefix, policies[0]).(*bound),
			bounds.bind(prefix, policies[1]).(*bound), bounds.bind(prefix, policies[2]).(*bound)}
		at := time.Unix(1000, 0)
		for i := range rapid.IntRange(1, 150).Draw(t, "steps") {
			at = at.Add(rapid.SampledFrom([]time.Duration{0, 1, time.Millisecond, 100 * time.Millisecond,
				400 * time.Millisecond, time.Second, -time.Millisecond, -300 * time.Millisecond}).Draw(t, "delta"))
			which := rapid.IntRange(0, len(bs)-1).Draw(t, "bound")
			b, subject := bs[which], rapid.SampledFrom([]string{"subject:12345", "x"}).Draw(t, "subject")
			r := keyed.Request{Key: []byte(prefix + subject), Policy: b.p, Cost: 1, At: at}
			forgetAll(requests)
			var got, want keyed.Decision
			switch op := rapid.SampledFrom(ops).Draw(t, "op"); op {
			case "request": // the bounds' store takes it as a Request too
				got, _ = bounds.Acquire(ctx, r)
				want, _ = requests.Acquire(ctx, r)
			case "request-peek":
				got, _ = bounds.Peek(ctx, r)
				want, _ = requests.Peek(ctx, r)
			case "acquire", "acquire2":
				if op == "acquire2" {
					r.Cost = 2
				}
				got.SetOutcome(b.Acquire(subject, r.Cost, at))
				want, _ = requests.Acquire(ctx, r)
			case "peek":
				got.SetOutcome(b.Peek(subject, at))
				want, _ = requests.Peek(ctx, r)
			case "locked", "locked2": // as a check whose probe missed its entry (a shift, a resize)
				if op == "locked2" {
					r.Cost = 2
				}
				k := requestKey(r.Key)
				h := bounds.seed.hash(r.Key, k.n)
				got.SetOutcome(bounds.shard(h).acquireLocked(h, &k, b.p, kernel.FromTime(at), r.Cost, bounds.grace, false))
				want, _ = requests.Acquire(ctx, r)
			case "reset":
				require.NoError(t, bounds.Reset(ctx, r))
				require.NoError(t, requests.Reset(ctx, r))
				continue
			}
			require.Equal(t, want, got, "step %d: bound %d, %q at %v", i, which, subject, at)
		}
	})
}

// TestAdmissionForgetsRefusal: an admission forgets the refusal kept, whichever path admits: a
// bound check of the refused policy, a Request of it, or a bound check of the same policy
// compiled apart (which carries the state over). After it, a check at an instant before the old
// Retry (a clock reading taken before the admission, say) is answered from the new state: one
// token later. Under "gcra 1/s": a token at 10 s, a refusal at 10.1 s (Retry 11 s), an admission
// at 11 s, and then a check at 10.5 s, refused until 12 s. Each is run by a bound check and by a
// Request, so that both paths keep and read refusals.
func TestAdmissionForgetsRefusal(t *testing.T) {
	const sec = int64(time.Second)
	ctx := context.Background()
	for _, subject := range []string{"subject:12345", "x"} {
		for _, admit := range []string{"bound", "request", "twin"} {
			for _, viaBound := range []bool{true, false} {
				p := typed.MustCompile("gcra 1/s")
				s := New(WithShards(1), WithGrace(time.Hour))
				b := s.bind("1:a:", p).(*bound)
				twin := s.bind("1:a:", typed.MustCompile("gcra 1/s")).(*bound)
				check := func(b *bound, at int64) (typed.Outcome, bool) {
					if viaBound {
						o, ok, _ := b.Acquire(subject, 1, time.Unix(0, at))
						return o, ok
					}
					r := keyed.Request{Key: []byte("1:a:" + subject), Policy: b.p, Cost: 1, At: time.Unix(0, at)}
					d, err := s.Acquire(ctx, r)
					require.NoError(t, err)
					return typed.Outcome{Retry: at + int64(must(d.RetryAfter.Duration()))}, d.Allowed
				}
				_, ok := check(b, 10*sec)
				require.True(t, ok)
				o, ok := check(b, 10*sec+sec/10)
				require.False(t, ok)
				require.Equal(t, 11*sec, o.Retry)
				switch admit {
				case "bound":
					_, ok, _ = b.Acquire(subject, 1, time.Unix(0, 11*sec))
				case "request":
					d, err := s.Acquire(ctx, keyed.Request{Key: []byte("1:a:" + subject), Policy: p, Cost: 1, At: time.Unix(0, 11*sec)})
					require.NoError(t, err)
					ok = d.Allowed
				case "twin":
					_, ok, _ = twin.Acquire(subject, 1, time.Unix(0, 11*sec))
				}
				require.True(t, ok, "%q: admitted by %s at the Retry", subject, admit)
				o, ok = check(b, 10*sec+sec/2)
				require.False(t, ok)
				require.Equal(t, 12*sec, o.Retry, "%q, admitted by %s, checked by bound %v: the Retry after the admission", subject, admit, viaBound)
			}
		}
	}
}

// must returns d, failing on Never.
func must(d time.Duration, finite bool) time.Duration {
	if !finite {
		panic("a wait of Never")
	}
	return d
}

// TestDroppedEntryKeepsNoRefusal: dropping an entry forgets its kept refusal, so that a check
// that found the entry before it was dropped, and reads the refusal after, takes the lock, finds
// the entry dead and asks the shard again.
func TestDroppedEntryKeepsNoRefusal(t *testing.T) {
	s := New(WithShards(1))
	b := s.bind("1:a:", typed.MustCompile("gcra 1/h")).(*bound)
	for range 2 {
		_, _, _ = b.Acquire("subject:12345", 1, time.Unix(0, 1))
	}
	e := entryOf(t, s, "1:a:subject:12345")
	_, held := e.holds(b.p, 2)
	require.True(t, held)
	require.NoError(t, s.Reset(context.Background(), keyed.Request{Key: []byte("1:a:subject:12345")}))
	_, held = e.holds(b.p, 2)
	require.False(t, held, "a dropped entry answers from its kept refusal")
	require.False(t, e.refusing.Load())
}

// TestKeptRefusalReadWhole: a reader of a kept refusal never mixes the words of two refusals,
// nor takes one half written, while the lock holder keeps and forgets refusals, each with Limit,
// Retry and Full all equal. The writer rests a varying while after each write, so that reads
// both overlap writes and find refusals whole; the reader reads until it has found a thousand
// whole and has read twenty million times (one million under the race detector).
func TestKeptRefusalReadWhole(t *testing.T) {
	s := New(WithShards(1))
	b := s.bind("1:a:", typed.MustCompile("gcra 1/h")).(*bound)
	_, _, _ = b.Acquire("x", 1, time.Unix(0, 1))
	e := entryOf(t, s, "1:a:x")
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := int64(2); !stop.Load(); i++ {
			e.mu.Lock()
			e.refuse(b.p, typed.Outcome{Limit: i, Retry: i, Full: i})
			if i%3 == 0 {
				e.forget()
			}
			e.mu.Unlock()
			for range i % 64 { // rest, reading only
				_ = stop.Load()
			}
		}
	}()
	defer func() {
		stop.Store(true)
		<-done
	}()
	hits, reads := 0, 20_000_000
	if RaceEnabled {
		reads = 1_000_000 // a read takes some 20 times longer
	}
	for ; reads > 0 || hits < 1000; reads-- {
		if o, ok := e.holds(b.p, 0); ok {
			hits++
			require.True(t, o.Limit == o.Retry && o.Retry == o.Full, "read a refusal mixed of two: %+v", o)
		}
	}
}

// TestLockedPathKeepsRefusals: TestKeptRefusalsDecideAsRequests for the path a check takes when
// its lock-free probe misses its entry (a shift or a resize of the index under way): under the
// shard's lock, the entry's own policy must forget the refusal kept on an admission and keep only
// refusals of one token, or a later check before the stale Retry is answered from it, early.
func TestLockedPathKeepsRefusals(t *testing.T) {
	p := typed.MustCompile("gcra 2/s burst 2")
	const key = "1:a:subject:12345"
	ctx := context.Background()
	rapid.Check(t, func(t *rapid.T) {
		got, ref := New(WithShards(1), WithGrace(time.Hour)), New(WithShards(1), WithGrace(time.Hour))
		at := time.Unix(1000, 0)
		for i := range rapid.IntRange(1, 60).Draw(t, "steps") {
			at = at.Add(rapid.SampledFrom([]time.Duration{0, time.Millisecond, 100 * time.Millisecond,
				400 * time.Millisecond, -300 * time.Millisecond}).Draw(t, "delta"))
			r := keyed.Request{Key: []byte(key), Policy: p, Cost: rapid.Int64Range(1, 2).Draw(t, "cost"), At: at}
			forgetAll(ref)
			want, _ := ref.Acquire(ctx, r)
			var d keyed.Decision
			if rapid.Bool().Draw(t, "locked") {
				k := requestKey(r.Key)
				h := got.seed.hash(r.Key, k.n)
				d.SetOutcome(got.shard(h).acquireLocked(h, &k, p, kernel.FromTime(at), r.Cost, got.grace, false))
			} else {
				d, _ = got.Acquire(ctx, r)
			}
			require.Equal(t, want, d, "step %d: cost %d at %v", i, r.Cost, at)
		}
	})
}
