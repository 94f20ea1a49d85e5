package keyed_test

import (
	"bytes"
	"testing"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/stretchr/testify/require"
)

// FuzzSplitKey feeds arbitrary keys to SplitKey, and arbitrary pairs to AppendFramed. A key that
// SplitKey accepts is exactly the framing of what it returns, so no two pairs read from one key
// (SplitKey reads the one pair that made it, and accepts nothing else); the framing of any pair
// splits back into that pair, after any prefix dst held.
func FuzzSplitKey(f *testing.F) {
	for _, seed := range []struct{ key, ns, subject string }{
		{"5:users:42", "users", "42"}, {"0::", "", ""}, {"1::::", ":", ":"}, {"01:a:", "0", "1:a:"},
		{"2:a:", "10", "x"}, {"99999999999999999999:a:", "", "\xff"}, {"3:ab:", "a:b", ":"},
		{"9223372036854775807:", "ns", ""}, {"", "", ""},
	} {
		f.Add([]byte(seed.key), seed.ns, []byte(seed.subject))
	}
	f.Fuzz(func(t *testing.T, key []byte, ns string, subject []byte) {
		if gotNS, gotSubject, ok := keyed.SplitKey(key); ok {
			require.Equal(t, key, keyed.AppendFramed(nil, gotNS, gotSubject),
				"SplitKey(%q) = %q, %q: not the key's framing", key, gotNS, gotSubject)
		} else {
			require.Empty(t, gotNS)
			require.Nil(t, gotSubject)
		}
		framed := keyed.AppendFramed(bytes.Clone(key), ns, subject)
		require.Equal(t, key, framed[:len(key)], "AppendFramed changed dst")
		gotNS, gotSubject, ok := keyed.SplitKey(framed[len(key):])
		require.True(t, ok, "%q", framed[len(key):])
		require.Equal(t, ns, gotNS)
		require.True(t, bytes.Equal(subject, gotSubject), "%q split into subject %q", subject, gotSubject)
	})
}
