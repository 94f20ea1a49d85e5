package kernel

import (
	"testing"
	"time"
)

// kernel is what the three rate kernels share, for the tests.
type kernel[K any] interface {
	Debit(at, cost int64) (K, int64, bool)
}

// TestExactRate drives the GCRA, token and leaky kernels at 3/s, back to back, over 10^7 debits:
// exactly 3 in every second after the first. With a burst of 2 the n-th debit after the first is
// due at ⌈(n−1)/3⌉ s exactly: the fractions of a nanosecond are kept, never rounded away.
func TestExactRate(t *testing.T) {
	events := 10_000_000
	if testing.Short() || race {
		events = 1_000_000
	}
	rate := NewRate(3, int64(time.Second))
	for _, burst := range []int64{1, 2} {
		g, _ := GCRAOf(rate, burst)
		b, _ := BucketOf(rate, burst)
		name := "/burst=" + itoa(burst)
		t.Run("gcra"+name, func(t *testing.T) { exactRate(t, g.Fresh(), burst, events) })
		t.Run("token"+name, func(t *testing.T) { exactRate(t, b.FreshTokens(), burst, events) })
		t.Run("leaky"+name, func(t *testing.T) { exactRate(t, b.FreshLeaky(), burst, events) })
	}
}

func exactRate[K kernel[K]](t *testing.T, k K, burst int64, events int) {
	t.Parallel()
	const sec = int64(time.Second)
	at, second, inSecond, last := int64(0), int64(0), int64(0), int64(0)
	for n := 0; n < events; {
		next, from, ok := k.Debit(at, 1)
		if !ok {
			at = from
			continue
		}
		if s := at / sec; s != second {
			want := int64(3)
			if second == 0 {
				want += burst - 1 // the burst at 0, then 3/s
			}
			if inSecond != want {
				t.Fatalf("burst %d: %d debits in second %d, want %d", burst, inSecond, second, want)
			}
			second, inSecond = s, 0
		}
		k, inSecond, last, n = next, inSecond+1, at, n+1
	}
	if due := (int64(events-2)*sec + 2) / 3; burst == 2 && last != due {
		t.Fatalf("the last debit at %dns, want %dns", last, due)
	}
}
