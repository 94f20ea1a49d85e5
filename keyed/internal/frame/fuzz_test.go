package frame_test

import (
	"bytes"
	"testing"

	"github.com/numerus-closus/numerus/keyed/internal/frame"
	"github.com/stretchr/testify/require"
)

// FuzzSplit feeds arbitrary keys to Split, and arbitrary pairs to Append. A key that
// Split accepts is exactly the framing of what it returns, so no two pairs read from one key
// (Split reads the one pair that made it, and accepts nothing else); the framing of any pair
// splits back into that pair, after any prefix dst held.
func FuzzSplit(f *testing.F) {
	for _, seed := range []struct{ key, ns, subject string }{
		{"5:users:42", "users", "42"}, {"0::", "", ""}, {"1::::", ":", ":"}, {"01:a:", "0", "1:a:"},
		{"2:a:", "10", "x"}, {"99999999999999999999:a:", "", "\xff"}, {"3:ab:", "a:b", ":"},
		{"9223372036854775807:", "ns", ""}, {"", "", ""},
	} {
		f.Add([]byte(seed.key), seed.ns, []byte(seed.subject))
	}
	f.Fuzz(func(t *testing.T, key []byte, ns string, subject []byte) {
		if gotNS, gotSubject, ok := frame.Split(key); ok {
			require.Equal(t, key, frame.Append(nil, gotNS, gotSubject),
				"Split(%q) = %q, %q: not the key's framing", key, gotNS, gotSubject)
		} else {
			require.Empty(t, gotNS)
			require.Nil(t, gotSubject)
		}
		framed := frame.Append(bytes.Clone(key), ns, subject)
		require.Equal(t, key, framed[:len(key)], "Append changed dst")
		gotNS, gotSubject, ok := frame.Split(framed[len(key):])
		require.True(t, ok, "%q", framed[len(key):])
		require.Equal(t, ns, gotNS)
		require.True(t, bytes.Equal(subject, gotSubject), "%q split into subject %q", subject, gotSubject)
	})
}
