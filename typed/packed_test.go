package typed_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/typed"
)

// TestPackedRoundTrip: a State of a policy whose PackedWords fit, packed into that many words and
// unpacked, decides as the State it was packed from, and DebitPacked on the words decides as
// DebitIn on the State; a policy with a log does not fit.
func TestPackedRoundTrip(t *testing.T) {
	for _, c := range []struct {
		text string
		n    int
		ok   bool
	}{
		{"gcra 10/s burst 5", 3, true},
		{"token 10/s burst 5", 2, true},
		{"gcra 1/s & window 10/min", 6, true},
		{"window 10/min", 3, true},
		{"count 10/min", 4, true},
		{"finite 7", 1, true},
		{"sliding 10/min", 0, false},
	} {
		pol := typed.MustCompile(c.text)
		p := pol.InPlace(inplace.Key{})
		n, ok := p.PackedWords()
		require.Equal(t, c.ok, ok, c.text)
		if !ok {
			continue
		}
		require.Equal(t, c.n, n, c.text)
		s := pol.Fresh()
		_, admitted := p.DebitIn(&s, 1e9, 1)
		require.True(t, admitted, c.text)
		w := make([]int64, n)
		p.Pack(&s, w)
		var back typed.State
		p.Unpack(&back, w)
		packed := append([]int64(nil), w...)
		for at := int64(1e9); at < 3e9; at += 7e7 {
			want, wok := p.DebitIn(&back, at, 1)
			got, gok := p.DebitPacked(packed, at, 1)
			require.Equal(t, want, got, "%s: DebitPacked at %d", c.text, at)
			require.Equal(t, wok, gok, "%s: DebitPacked at %d", c.text, at)
		}
		p.Unpack(&back, w)
		for at := int64(1e9); at < 3e9; at += 1e8 {
			want, wok := p.PeekIn(&s, at)
			got, gok := p.PeekIn(&back, at)
			require.Equal(t, want, got, "%s at %d", c.text, at)
			require.Equal(t, wok, gok, "%s at %d", c.text, at)
		}
	}
}
