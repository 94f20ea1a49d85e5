package memory

import (
	"context"
	"strings"
	"testing"
	"time"

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
		bound := boundKey(prefix, subject, 1)
		bytes := requestKey(framed)
		bytes.name = 1
		if h := mix(sd.namespace(prefix), sd.subject(subject)); h != sd.hash(framed, bytes.n) {
			t.Fatalf("key %q hashes apart bound and framed", framed)
		}
		for _, k := range []*key{&bound, &bytes} {
			sl := slotOf(k)
			if !bound.matches(sl) || !bytes.matches(sl) || prefix+subjectOf(sl) != string(framed) {
				t.Fatalf("key %q: bound and framed keys differ", framed)
			}
		}
		other := rapid.StringOf(rapid.RuneFrom([]rune{'0', '3', ':', 'b'})).Draw(t, "other")
		sl := slotOf(ptr(boundKey(prefix, other, 1)))
		if bound.matches(sl) != (other == subject) || bytes.matches(sl) != (other == subject) {
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

func ptr[T any](v T) *T { return &v }

// slotOf returns a slot filled with the key k and the zero state.
func slotOf(k *key) *slot {
	var sl slot
	p := typed.MustCompile("gcra 1/s")
	state := p.Fresh()
	sl.fill(0, k, p, &state)
	return &sl
}

// subjectOf returns the subject a slot holds.
func subjectOf(sl *slot) string {
	if sl.n == long {
		return sl.more.subject
	}
	return string(sl.sub[:sl.n])
}

// TestSlotHoldsACopy: a slot's key is a copy, in its own bytes or not, never the memory of the
// key it was made from, which its caller may reuse; a subject longer than inlineSubject bytes,
// and a namespace past the numbered ones, lie in the slot's more, and only they.
func TestSlotHoldsACopy(t *testing.T) {
	for _, subject := range []string{"", "s", "subject:123456789", "subject:1234567890"} {
		for _, name := range []uint16{3, unnamed} {
			buf := frame.Append(nil, "ns", []byte(subject))
			sub := []byte(subject)
			k := requestKey(buf)
			k.name = name
			fromBytes := slotOf(&k)
			fromBound := slotOf(ptr(boundKey("2:ns:", string(sub), name)))
			for i := range buf {
				buf[i] = 'x'
			}
			for i := range sub {
				sub[i] = 'x'
			}
			for _, sl := range []*slot{fromBytes, fromBound} {
				if subjectOf(sl) != subject || sl.name != name || name == unnamed && sl.more.prefix != "2:ns:" {
					t.Errorf("subject %q: the slot holds %q, name %d", subject, subjectOf(sl), sl.name)
				}
				if wantMore := len(subject) > inlineSubject || name == unnamed; wantMore != (sl.more != nil) {
					t.Errorf("subject %q, name %d: more %v, want %v", subject, name, sl.more != nil, wantMore)
				}
			}
		}
	}
}

// TestCollidingKeysStayApart: an entry of another key planted under the hash of the key checked
// (a collision, forged) is never taken for it, whether the keys differ in subject or in namespace,
// on a Request's path and a bound check's. The planted entry is out of tokens and the key
// checked is fresh, so its first check is admitted. The planted keys include subjects that
// share the key's first or last 8 bytes (which its hash reads), its bytes at another length,
// the halves swapped, subjects past the 17 bytes a slot holds, and the same subject in another
// namespace.
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

// collide plants the entry of plant, holding one token of "gcra 1/h" spent, under the hash of
// the subject in the namespace "1:a:", and checks that subject twice (by a bound check or a
// Request): it returns what the checks admitted and the entries the store then holds.
func collide(t *testing.T, subject string, plant key, viaBound bool) ([]bool, int) {
	t.Helper()
	p := typed.MustCompile("gcra 1/h")
	at := time.Unix(0, 1)
	s := New(WithShards(1))
	b := s.bind("1:a:", p).(*bound)
	h := mix(b.hash, s.seed.subject(subject))
	state := p.Fresh()
	if _, ok := in(p).DebitIn(&state, 0, 1); !ok {
		t.Fatal("the planted state was refused its token")
	}
	sh := s.shard(h)
	plant.name = s.names.id([]byte(plant.prefix))
	sh.mu.Lock()
	sh.t.insert(uint32(h>>32), &plant, p, &state)
	sh.mu.Unlock()
	if _, ok := in(p).PeekIn(&state, kernel.FromTime(at)); ok {
		t.Fatal("the planted state has a token")
	}
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
