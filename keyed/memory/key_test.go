package memory

import (
	"hash/maphash"
	"testing"

	"github.com/numerus-closus/numerus/keyed"
	"pgregory.net/rapid"
)

// TestKeySplits: a key that keyed frames splits after its namespace whatever the namespace and
// the subject hold, so a bound limiter's key (prefix, subject) hashes and matches as the same key
// in a Request does; and a key that is not framed hashes whole.
func TestKeySplits(t *testing.T) {
	seed := maphash.MakeSeed()
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
		bytes := key{bytes: framed}
		if h := mix(maphash.String(seed, prefix), maphash.String(seed, subject)); h != hash(seed, framed) {
			t.Fatalf("key %q hashes apart bound and framed", framed)
		}
		if !bound.matches(bytes.String()) || !bytes.matches(bound.String()) || bound.String() != string(framed) {
			t.Fatalf("key %q: bound and framed keys differ", framed)
		}
		other := rapid.StringOf(rapid.RuneFrom([]rune{'0', '3', ':', 'b'})).Draw(t, "other")
		if bound.matches(prefix+other) != (other == subject) {
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
	seed := maphash.MakeSeed()
	for _, pair := range [][2]string{{"1:a:1:b:", "1:b:1:a:"}, {"3:api:1:x:", "1:x:3:api:"}} {
		if hash(seed, []byte(pair[0])) == hash(seed, []byte(pair[1])) {
			t.Errorf("%q and %q hash alike", pair[0], pair[1])
		}
	}
	for _, k := range []string{"1:a:1:a:", "9:ratelimit:9:ratelimit:", "3:api:3:api:"} {
		if hash(seed, []byte(k)) == 0 {
			t.Errorf("%q hashes to 0", k)
		}
	}
}
