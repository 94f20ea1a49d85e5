package memory

import (
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/numerus-closus/numerus/keyed"
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
		framed := keyed.AppendFramed(nil, ns, []byte(subject))
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
		buf := keyed.AppendFramed(nil, "ns", []byte(subject))
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
	k := requestKey(keyed.AppendFramed(nil, "ns", []byte("subject:12345678901234567")))
	var e *entry
	allocs := testing.AllocsPerRun(100, func() { e = newEntry(0, &k, typed.Policy{}, typed.State{}) })
	if allocs != 2 || e.prefix != "2:ns:" || e.subject != "subject:12345678901234567" {
		t.Fatalf("%v allocations for an entry holding %q %q, want 2", allocs, e.prefix, e.subject)
	}
}

// TestCollidingKeysStayApart: an entry of another key planted under the hash of the key checked
// (a collision, forged) is never taken for it, whether the keys differ in subject or in namespace,
// on a Request's path and a bound check's, in the index and under the shard's lock. The planted
// entry is out of tokens and the key checked is fresh, so its first check is admitted.
func TestCollidingKeysStayApart(t *testing.T) {
	p := typed.MustCompile("gcra 1/h")
	at := time.Unix(0, 1)
	for _, plant := range []key{{prefix: "1:a:", subject: "y"}, {prefix: "1:b:", subject: "x"}} {
		for _, viaBound := range []bool{false, true} {
			s := New(WithShards(1))
			b := s.Bind("1:a:", p).(*bound)
			h := mix(b.hash, s.seed.subject("x"))
			state := p.Fresh()
			if _, ok := p.DebitIn(&state, 0, 1); !ok {
				t.Fatal("the planted state was refused its token")
			}
			sh := s.shard(h)
			sh.mu.Lock()
			sh.insert(newEntry(h, &plant, p, state))
			sh.mu.Unlock()
			var got []bool
			for range 2 { // the first check makes the entry of the key, the second finds it
				if viaBound {
					_, ok, _ := b.Acquire("x", 1, at)
					got = append(got, ok)
				} else {
					d, err := s.Acquire(context.Background(), keyed.Request{Key: []byte("1:a:x"), Policy: p, Cost: 1, At: at})
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, d.Allowed)
				}
			}
			if !got[0] || got[1] || s.Len() != 2 {
				t.Errorf("planted %q %q, bound %v: admitted %v, %d entries; want [true false], 2",
					plant.prefix, plant.subject, viaBound, got, s.Len())
			}
		}
	}
}
