package frame_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus/keyed/internal/frame"
)

// TestFramingInjective is the property that no two (namespace, subject) pairs share a key, and
// that Split recovers both from the key.
func TestFramingInjective(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alpha := rapid.SampledFrom([]byte("0123456789:ab"))
		str := func(name string) []byte { return rapid.SliceOfN(alpha, 0, 8).Draw(t, name) }
		ns1, s1, ns2, s2 := str("ns1"), str("s1"), str("ns2"), str("s2")
		k1, k2 := frame.Append(nil, string(ns1), s1), frame.Append(nil, string(ns2), s2)
		same := bytes.Equal(ns1, ns2) && bytes.Equal(s1, s2)
		if bytes.Equal(k1, k2) != same {
			t.Fatalf("(%q, %q) and (%q, %q) give keys %q and %q", ns1, s1, ns2, s2, k1, k2)
		}
		ns, s, ok := frame.Split(k1)
		if !ok || ns != string(ns1) || !bytes.Equal(s, s1) {
			t.Fatalf("Split(%q) = %q, %q, %v", k1, ns, s, ok)
		}
	})
}

func TestSplitRejects(t *testing.T) {
	for _, k := range []string{"", ":", "a:b", "01:a:", "2:a:", "1:ab", "3:ab", "99999999999999999999:a:"} {
		_, _, ok := frame.Split([]byte(k))
		assert.False(t, ok, "%q", k)
	}
}
