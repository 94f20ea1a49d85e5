package memory

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/internal/frame"
	"github.com/numerus-closus/numerus/typed"
	"pgregory.net/rapid"
)

// TestKeySplits: a key that keyed frames splits after its namespace whatever the namespace and
// the subject hold, so a bound limiter's key (prefix, subject) hashes and matches as the same key
// in a Request does; and a key that is not framed hashes whole.
func TestKeySplits(t *testing.T) {
	sd := newSeed()
	rapid.Check(t, func(t *rapid.T) {
		ns := rapid.StringOf(rapid.RuneFrom([]rune{'0', '1', ':', 'a', 'é'})).Draw(t, "namespace")
		subject := rapid.StringOf(rapid.RuneFrom([]rune{'0', '3', ':', 'b'})).Draw(t, "subject")
		framed := frame.Append(nil, ns, []byte(subject))
		prefix := string(framed[:len(framed)-len(subject)])
		if n := prefixLen(framed); n != len(prefix) {
			t.Fatalf("key %q splits at %d, want %d", framed, n, len(prefix))
		}
		if prefixLen(prefix) != len(prefix) {
			t.Fatalf("prefix %q does not split whole", prefix)
		}
		bound := key{prefix: prefix, subject: subject}
		bytes := requestKey(framed)
		if h := mix(sd.namespace(prefix), sd.subject(subject)); h != sd.hash(framed, bytes.n) {
			t.Fatalf("key %q hashes apart bound and framed", framed)
		}
		for _, k := range []*key{&bound, &bytes} {
			e := newEntry(0, k, typed.Policy{}, typed.State{})
			if !bound.matches(e) || !bytes.matches(e) || e.prefix+e.subject != string(framed) {
				t.Fatalf("key %q: bound and framed keys differ", framed)
			}
		}
		other := rapid.StringOf(rapid.RuneFrom([]rune{'0', '3', ':', 'b'})).Draw(t, "other")
		e := newEntry(0, &key{prefix: prefix, subject: other}, typed.Policy{}, typed.State{})
		if bound.matches(e) != (other == subject) || bytes.matches(e) != (other == subject) {
			t.Fatalf("key %q matches %q", framed, prefix+other)
		}
		raw := []byte(subject)
		if n := prefixLen(raw); n > 0 && n > len(raw) {
			t.Fatalf("key %q splits at %d, past its end", raw, n)
		}
	})
}

// TestHashAsymmetric: keys whose namespace and subject trade places hash apart, and a namespace
// followed by itself does not hash to 0, as both did when the two hashes were combined by a xor.
func TestHashAsymmetric(t *testing.T) {
	sd := newSeed()
	for _, pair := range [][2]string{{"1:a:1:b:", "1:b:1:a:"}, {"3:api:1:x:", "1:x:3:api:"}} {
		if hashOf(&sd, pair[0]) == hashOf(&sd, pair[1]) {
			t.Errorf("%q and %q hash alike", pair[0], pair[1])
		}
	}
	for _, k := range []string{"1:a:1:a:", "9:ratelimit:9:ratelimit:", "3:api:3:api:"} {
		if hashOf(&sd, k) == 0 {
			t.Errorf("%q hashes to 0", k)
		}
	}
}

func hashOf(sd *seed, k string) uint64 { return sd.hash([]byte(k), prefixLen(k)) }

// TestEntryHoldsACopy: an entry's key is a copy, in its own bytes or not, never the memory of
// the key it was made from, which its caller may reuse.
func TestEntryHoldsACopy(t *testing.T) {
	for _, subject := range []string{"", "s", "subject:1234567890123456", "subject:12345678901234567"} {
		buf := frame.Append(nil, "ns", []byte(subject))
		sub := []byte(subject)
		k := requestKey(buf)
		fromBytes := newEntry(0, &k, typed.Policy{}, typed.State{})
		fromBound := newEntry(0, &key{prefix: "2:ns:", subject: string(sub)}, typed.Policy{}, typed.State{})
		for i := range buf {
			buf[i] = 'x'
		}
		for _, e := range []*entry{fromBytes, fromBound} {
			if e.prefix != "2:ns:" || e.subject != subject {
				t.Errorf("subject %q: the entry holds %q %q", subject, e.prefix, e.subject)
			}
			if inline := len(subject) > 0 && len(subject) <= inlineSubject; inline != (unsafe.StringData(e.subject) == &e.inline[0]) {
				t.Errorf("subject %q: held inline %v, want %v", subject, !inline, inline)
			}
		}
	}
}

// TestEntryLongKeyOneBlock: an entry of a Request's key whose subject is too long to hold inline
// takes one allocation for the key, which its namespace and subject share, besides the entry's.
func TestEntryLongKeyOneBlock(t *testing.T) {
	k := requestKey(frame.Append(nil, "ns", []byte("subject:12345678901234567")))
	var e *entry
	allocs := testing.AllocsPerRun(100, func() { e = newEntry(0, &k, typed.Policy{}, typed.State{}) })
	if allocs != 2 || e.prefix != "2:ns:" || e.subject != "subject:12345678901234567" {
		t.Fatalf("%v allocations for an entry holding %q %q, want 2", allocs, e.prefix, e.subject)
	}
}

// TestCollidingKeysStayApart: an entry of another key planted under the hash of the key checked
// (a collision, forged) is never taken for it, whether the keys differ in subject or in namespace,
// on a Request's path and a bound check's, in the index and under the shard's lock. The planted
// entry is out of tokens and the key checked is fresh, so its first check is admitted. A bound
// check matches a subject of 8 to 16 bytes by its two words and length, so the planted keys
// include the same words at another length, each word alone, the words swapped, and the same
// subject in another namespace.
func TestCollidingKeysStayApart(t *testing.T) {
	for _, c := range []struct {
		subject string
		plants  []key
	}{
		{"x", []key{{prefix: "1:a:", subject: "y"}, {prefix: "1:b:", subject: "x"}}},
		{"abcdefgh", []key{
			{prefix: "1:a:", subject: "abcdefghabcdefgh"}, // the same two words, 16 bytes
			{prefix: "1:a:", subject: "abcdefgi"},
			{prefix: "1:b:", subject: "abcdefgh"},
		}},
		{"subject:12345", []key{
			{prefix: "1:a:", subject: "subject:12346"}, // the last word differs
			{prefix: "1:a:", subject: "Subject:12345"}, // the first word differs
			{prefix: "1:a:", subject: "subject:2345"},  // one byte shorter, the last word the same
			{prefix: "1:a:", subject: "subject:112345"},
			{prefix: "1:b:", subject: "subject:12345"},
		}},
		{"0123456789abcdef", []key{
			{prefix: "1:a:", subject: "0123456789abcdeF"},
			{prefix: "1:a:", subject: "0123456789abcde"},
			{prefix: "1:a:", subject: "89abcdef01234567"}, // the two words swapped
		}},
		{"0123456789abcdefg", []key{{prefix: "1:a:", subject: "0123456789abcdefh"}, {prefix: "1:b:", subject: "0123456789abcdefg"}}},
	} {
		for _, plant := range c.plants {
			for _, viaBound := range []bool{false, true} {
				if got, n := collide(t, c.subject, plant, viaBound); !got[0] || got[1] || n != 2 {
					t.Errorf("subject %q, planted %q %q, bound %v: admitted %v, %d entries; want [true false], 2",
						c.subject, plant.prefix, plant.subject, viaBound, got, n)
				}
			}
		}
	}
}

// collide plants the entry of plant, holding one token of "gcra 1/h" spent and keeping its
// refusal to a bound of its own namespace and that policy, under the hash of the subject in the
// namespace "1:a:", and checks that subject twice (by a bound check or a
// Request): it returns what the checks admitted and the entries the store then holds.
func collide(t *testing.T, subject string, plant key, viaBound bool) ([]bool, int) {
	t.Helper()
	p := typed.MustCompile("gcra 1/h")
	at := time.Unix(0, 1)
	s := New(WithShards(1))
	b := s.bind("1:a:", p).(*bound)
	h := mix(b.hash, s.seed.subject(subject))
	state := p.Fresh()
	if _, ok := p.DebitIn(&state, 0, 1); !ok {
		t.Fatal("the planted state was refused its token")
	}
	sh := s.shard(h)
	sh.mu.Lock()
	e := newEntry(h, &plant, p, state)
	sh.insert(e)
	sh.mu.Unlock()
	refused, ok := p.PeekIn(&state, kernel.FromTime(at))
	if ok {
		t.Fatal("the planted state has a token")
	}
	e.mu.Lock()
	e.refuse(p, refused) // kept for its own key, which is not the one checked
	e.mu.Unlock()
	if _, ok, _ := b.Peek(subject, at); !ok {
		t.Errorf("subject %q, planted %q %q: a Peek of the fresh subject refused", subject, plant.prefix, plant.subject)
	}
	var got []bool
	for range 2 { // the first check makes the entry of the key, the second finds it
		if viaBound {
			_, ok, _ := b.Acquire(subject, 1, at)
			got = append(got, ok)
			continue
		}
		d, err := s.Acquire(context.Background(), keyed.Request{Key: []byte("1:a:" + subject), Policy: p, Cost: 1, At: at})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d.Allowed)
	}
	return got, s.Len()
}

// TestBoundSubjectsOneByteApart: under one token an hour, a bound check admits each of two
// subjects that differ in a single byte, at every length up to 40 and every position, so that
// no byte goes unread where a check compares subjects by their words.
func TestBoundSubjectsOneByteApart(t *testing.T) {
	p := typed.MustCompile("gcra 1/h")
	at := time.Unix(0, 1)
	for n := 1; n <= 40; n++ {
		for i := range n {
			b := New(WithShards(1)).bind("1:a:", p)
			subject := []byte(strings.Repeat("s", n))
			for round := range 2 {
				if _, ok, _ := b.Acquire(string(subject), 1, at); !ok {
					t.Fatalf("%d bytes, byte %d changed: subject %d refused its first token", n, i, round+1)
				}
				subject[i]++
			}
		}
	}
}

// TestBoundCheckTakesNoShardLock: a bound check of a subject whose entry holds the bound's policy
// takes only the entry's lock, whichever path made the entry (a Request's holds a namespace of its
// own, compared by value), at the lengths around those the bound check reads as two words. The
// shard's lock is held throughout: a check that asked for it would not return.
func TestBoundCheckTakesNoShardLock(t *testing.T) {
	p := typed.MustCompile("100/h")
	at := time.Unix(0, 1)
	for _, subject := range []string{"1234567", "12345678", "subject:12345", "0123456789abcdef", "0123456789abcdefg"} {
		s := New(WithShards(1))
		b := s.bind("1:a:", p)
		if _, err := s.Acquire(context.Background(), keyed.Request{Key: []byte("1:a:" + subject), Policy: p, Cost: 1, At: at}); err != nil {
			t.Fatal(err)
		}
		sh := &s.shards[0]
		sh.mu.Lock()
		done := make(chan bool, 1)
		go func() {
			_, ok, _ := b.Acquire(subject, 1, at)
			done <- ok
		}()
		select {
		case ok := <-done:
			if !ok {
				t.Errorf("subject %q refused", subject)
			}
		case <-time.After(10 * time.Second): // only a failing check waits this out
			t.Errorf("subject %q: a bound check of an entry a Request made waits for the shard's lock", subject)
			sh.mu.Unlock()
			<-done
			continue
		}
		sh.mu.Unlock()
	}
}

// TestCheckOfDroppedEntry: a check that found its subject's entry in the index and then waited
// for the entry's lock while the entry was dropped does not read the dropped entry: the subject
// starts afresh. The entry is out of tokens under 1/h, so a debit or a Peek of it is refused
// where a fresh subject's is admitted. Three paths are checked, a bound check's, a Request's and
// a Peek's, with subjects the bound check reads as words and not. The test knows the check is
// waiting from the mutex's count of waiters, so it never sleeps.
func TestCheckOfDroppedEntry(t *testing.T) {
	p := typed.MustCompile("gcra 1/h")
	at := time.Unix(0, 1)
	for _, subject := range []string{"subject:12345", "x"} {
		for _, path := range []string{"request", "bound", "peek"} {
			s := New(WithShards(1))
			b := s.bind("1:a:", p).(*bound)
			check := func() bool {
				switch path {
				case "bound":
					_, ok, _ := b.Acquire(subject, 1, at)
					return ok
				case "peek":
					_, ok, _ := b.Peek(subject, at)
					return ok
				}
				d, err := s.Acquire(context.Background(), keyed.Request{Key: []byte("1:a:" + subject), Policy: p, Cost: 1, At: at})
				return err == nil && d.Allowed
			}
			if _, ok, _ := b.Acquire(subject, 1, at); !ok {
				t.Fatalf("%q, %s: the first check was refused", subject, path)
			}
			h := mix(b.hash, s.seed.subject(subject))
			sh := s.shard(h)
			e := sh.table().candidate(h)
			e.mu.Lock()
			done := make(chan bool)
			go func() { done <- check() }()
			for waiters(&e.mu) == 0 {
				select {
				case <-done:
					t.Fatalf("%q, %s: the check did without the entry's lock", subject, path)
				default:
					runtime.Gosched()
				}
			}
			sh.mu.Lock()
			sh.drop(e, 0, false) // unlocks e.mu
			sh.mu.Unlock()
			if !<-done {
				t.Errorf("%q, %s: the check that waited for the dropped entry was refused: it read that entry", subject, path)
			}
		}
	}
}

// waiters returns how many goroutines wait for m, read from the state word of sync.Mutex (the
// count above its three flag bits, as Go 1.26 keeps it): how a test knows that a goroutine is
// parked on m without sleeping.
func waiters(m *sync.Mutex) int32 { return atomic.LoadInt32((*int32)(unsafe.Pointer(m))) >> 3 }
