package typed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func leafSpec(a Algo, count int64, period time.Duration, burst int64) Spec {
	return Spec{Algo: a, Count: count, Period: period, Burst: burst}
}

func TestParseExamples(t *testing.T) {
	gcra := func(n int64, d time.Duration) Spec { return leafSpec(AlgoGCRA, n, d, 0) }
	sliding := func(n int64, d time.Duration) Spec { return leafSpec(AlgoSliding, n, d, 0) }
	cases := []struct {
		text, canonical string
		want            Spec
	}{
		{"10/s burst 20", "gcra 10/s burst 20", leafSpec(AlgoGCRA, 10, time.Second, 20)},
		{"gcra 10/s burst 5 & window 1000/1h", "gcra 10/s burst 5 & window 1000/h",
			Spec{Algo: AlgoAnd, Of: []Spec{leafSpec(AlgoGCRA, 10, time.Second, 5), leafSpec(AlgoWindow, 1000, time.Hour, 0)}}},
		{"5/s | 100/min", "sliding 5/s | sliding 100/m", Spec{Algo: AlgoOr, Of: []Spec{sliding(5, time.Second), sliding(100, time.Minute)}}},
		{"100/min", "sliding 100/m", sliding(100, time.Minute)},
		{"100/60s", "sliding 100/m", sliding(100, time.Minute)},
		{"sliding 100/1m", "sliding 100/m", sliding(100, time.Minute)},
		{"count 50/10s", "count 50/10s", leafSpec(AlgoCount, 50, 10*time.Second, 0)},
		{"500/7d", "sliding 500/7d", sliding(500, 7*24*time.Hour)},
		{"10/second;100/minute", "sliding 10/s & sliding 100/m", Spec{Algo: AlgoAnd, Of: []Spec{sliding(10, time.Second), sliding(100, time.Minute)}}},
		{"finite 100", "finite 100", Spec{Algo: AlgoFinite, Count: 100}},
		{"buckets 100/1m in 6", "buckets 100/m in 6", Spec{Algo: AlgoBuckets, Count: 100, Period: time.Minute, In: 6}},
		{"token 10/s burst 30", "token 10/s burst 30", leafSpec(AlgoToken, 10, time.Second, 30)},
		{"leaky 3/1500ms", "leaky 3/1500ms", leafSpec(AlgoLeaky, 3, 1500*time.Millisecond, 0)},
		{"gcra 100/min", "gcra 100/m", gcra(100, time.Minute)},
		{"  GCRA   10 / 7 Days  BURST 5 ", "gcra 10/7d burst 5", leafSpec(AlgoGCRA, 10, 7*24*time.Hour, 5)},
		{"1/s | 2/s & 3/s", "sliding 1/s | sliding 2/s & sliding 3/s", Spec{Algo: AlgoOr, Of: []Spec{sliding(1, time.Second),
			{Algo: AlgoAnd, Of: []Spec{sliding(2, time.Second), sliding(3, time.Second)}}}}},
		{"(1/s | 2/s) & 3/s burst 2", "(sliding 1/s | sliding 2/s) & gcra 3/s burst 2", Spec{Algo: AlgoAnd, Of: []Spec{
			{Algo: AlgoOr, Of: []Spec{sliding(1, time.Second), sliding(2, time.Second)}}, leafSpec(AlgoGCRA, 3, time.Second, 2)}}},
		{"((1/s))", "sliding 1/s", sliding(1, time.Second)},
	}
	for _, c := range cases {
		sp, err := Parse(c.text)
		require.NoError(t, err, c.text)
		assert.True(t, c.want.Equal(sp), "%q parsed as %#v", c.text, sp)
		assert.Equal(t, c.canonical, sp.String(), c.text)
	}
}

func TestParseUnits(t *testing.T) {
	units := map[string]time.Duration{
		"ns": 1, "us": time.Microsecond, "µs": time.Microsecond, "μs": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second, "S": time.Second,
		"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute, "MIN": time.Minute,
		"h": time.Hour, "hour": time.Hour, "hours": time.Hour, "d": 24 * time.Hour, "day": 24 * time.Hour,
		"days": 24 * time.Hour, "Hours": time.Hour,
	}
	for unit, d := range units {
		sp, err := Parse("7/2" + unit)
		require.NoError(t, err, unit)
		assert.Equal(t, 2*d, sp.Period, unit)
	}
}

// TestNotationRoundTrip: for every valid spec, Parse(sp.String()) equals sp.
func TestNotationRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sp := genSpec(t, 4)
		back, err := Parse(sp.String())
		require.NoError(t, err, sp.String())
		require.True(t, sp.Equal(back), "%s read back as %s", sp, back)
	})
}

// TestParseErrorGivesTheZeroSpec: a text that parses but does not validate gives the zero Spec
// beside its error, not the spec as written.
func TestParseErrorGivesTheZeroSpec(t *testing.T) {
	for _, text := range []string{"0/s", "1/s & window 0/s", "1/s &"} {
		sp, err := Parse(text)
		require.Error(t, err, text)
		assert.Equal(t, Spec{}, sp, text)
	}
}
