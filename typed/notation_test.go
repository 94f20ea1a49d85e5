package typed

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
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

// notationErrors holds every error the notation can give: a text, the column the error names,
// its message after "typed: column <n>: ", and for an error about a value, a parameter or a limit
// the parameter its *numerus.ParamError names (empty for a token out of place).
var notationErrors = []struct {
	text   string
	column int
	msg    string
	param  string
}{
	// Tokens out of place: ErrSyntax alone.
	{"", 1, "expected a limit such as 10/s, or '(', found the end", ""},
	{"10/s # 5/m", 6, "expected a count, a word or one of / & | ; ( ), found '#'", ""},
	{"10/x", 4, `expected a unit such as s, min or h, found "x"`, ""},
	{"10/ß", 4, `expected a unit such as s, min or h, found "ß"`, ""},
	{"10 s", 4, `expected '/' and a period, as in 10/s, found "s"`, ""},
	{"gcra /s", 6, `expected a count, found "/"`, ""},
	{"tokens 10/s", 1, `expected an algorithm (gcra, token, leaky, finite, window, sliding, buckets, count) or a count, found "tokens"`, ""},
	{"and 10/s", 1, `expected an algorithm (gcra, token, leaky, finite, window, sliding, buckets, count) or a count, found "and"`, ""},
	{"10/s & (5/m", 12, "expected ')', found the end", ""},
	{"10/s 5", 6, `expected '&', '|' or the end, found "5"`, ""},
	{"10/s)", 5, `expected '&', '|' or the end, found ")"`, ""},
	{"10/s &", 7, "expected a limit such as 10/s, or '(', found the end", ""},
	{"gcra 10/s burst", 16, "expected a burst size, found the end", ""},
	{"10/µs burst x", 13, `expected a burst size, found "x"`, ""},     // columns count characters
	{"10/s\u00a0burst x", 12, `expected a burst size, found "x"`, ""}, // a space of two bytes is one
	{"buckets 10/s in", 16, "expected a number of sub-windows, found the end", ""},

	// Values and parameters: ErrSyntax and numerus.ErrInvalidArgument.
	{"0/s", 1, "the count must be at least 1", "count"},
	{"finite 0", 8, "the count must be at least 1", "count"},
	{"1/s & window 0/s", 14, "the count must be at least 1", "of[1].count"},
	{"1/s | (1/s & 0/s)", 14, "the count must be at least 1", "of[1].of[1].count"},
	{"99999999999999999999/s", 1, "the count must be below 2^63", "count"},
	{"token 9223372036854775807/1ns burst 1", 7, "the rate is too fine for exact arithmetic: in lowest terms, its count over its period leaves no room for one token", "count"},
	{"10/0s", 4, "a period must be at least 1ns", "period"},
	{"window 5/0ms", 10, "a period must be at least 1ns", "period"},
	{"10/999999999999d", 4, "a period must be below 292 years", "period"},
	{"10/99999999999999999999s", 4, "a period must be below 292 years", "period"},
	{"gcra 1/9223372036854775807ns", 8, "the period is too long for exact arithmetic: in lowest terms with the count, it fills the range of instants", "period"},
	{"10", 3, "a limit needs a period, as in 10/s", "period"},
	{"10 & 5/s", 4, "a limit needs a period, as in 10/s", "of[0].period"},
	{"gcra 10 burst 2", 9, "gcra needs a period, as in gcra 10/s", "period"},
	{"finite 5/s", 9, "finite takes no period", "period"},
	{"10/s burst 0", 12, "a burst must be at least 1", "burst"},
	{"10/s burst 99999999999999999999", 12, "the burst must be below 2^63", "burst"},
	{"gcra 1/d burst 9999999999999", 16, "the burst, times the interval between tokens (the period over the count), must stay below about 292 years", "burst"},
	{"window 5/s burst 2", 12, "window takes no burst: only gcra, token and leaky have one", "burst"},
	{"finite 5 burst 2", 10, "finite takes no burst: only gcra, token and leaky have one", "burst"},
	{"buckets 100/1m", 15, `buckets needs "in" and a number of sub-windows, as in buckets 100/m in 6`, "in"},
	{"buckets 100/1m & 1/s", 16, `buckets needs "in" and a number of sub-windows, as in buckets 100/m in 6`, "of[0].in"},
	{"buckets 6/s in 0", 16, "the number of sub-windows must be at least 1", "in"},
	{"buckets 1/s in 99999999999999999999", 16, "the number of sub-windows must be below 2^63", "in"},
	{"buckets 6/s in 7", 16, "the period 1s does not split into 7 sub-windows of whole nanoseconds", "in"},
	{"gcra 5/s in 2", 10, `gcra takes no "in": only buckets has sub-windows`, "in"},
	{"sliding 5/s in 2", 13, `sliding takes no "in": only buckets has sub-windows`, "in"},

	// The limits on a policy's size (see TestParseLimits for each at its limit).
	{strings.Repeat("(", 33) + "1/s" + strings.Repeat(")", 33), 33, "parentheses nest at most 32 levels", "of"},
	{strings.Repeat("(", 32) + "1/s" + strings.Repeat(" & 1/s)", 32) + " & 1/s", 261, "'&' and '|' nest at most 32 levels", "of"},
	{strings.Repeat("1/s & ", 1000) + "1/s", 5999, "'&' joins at most 1000 limits or groups", "of"},
	{strings.Repeat("1/s | ", 1000) + "1/s", 5999, "'|' joins at most 1000 limits or groups", "of"},
	{strings.Repeat("(1/s ; 1/s) | ", 500) + "1/s", 7001, "a policy holds at most 1000 limits", "of"},
	{"1/s" + strings.Repeat(" ", 1<<17-2), 131073, "a policy's text is at most 131072 bytes", "text"},
}

// TestParseErrorTable: every error of the notation names its column and says what was wrong in
// the notation's words; it matches ErrSyntax, and numerus.ErrInvalidArgument (naming the
// parameter by its path) if and only if it is about a value, a parameter or a limit.
func TestParseErrorTable(t *testing.T) {
	for _, c := range notationErrors {
		name := c.text
		if len(name) > 40 {
			name = name[:20] + "…" + name[len(name)-10:]
		}
		sp, err := Parse(c.text)
		require.Error(t, err, name)
		assert.Equal(t, Spec{}, sp, name)
		require.ErrorIs(t, err, ErrSyntax, name)
		var se *SyntaxError
		require.True(t, errors.As(err, &se), name)
		assert.Equal(t, c.column, se.Column, "%q: %v", name, err)
		assert.EqualError(t, err, "typed: column "+itoa(int64(c.column))+": "+c.msg, name)
		var pe *numerus.ParamError
		if c.param == "" {
			assert.NotErrorIs(t, err, numerus.ErrInvalidArgument, name)
			assert.NotEmpty(t, se.Expected, name)
			continue
		}
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, name)
		require.ErrorAs(t, err, &pe, name)
		assert.Equal(t, c.param, pe.Param, name)
		assert.Empty(t, se.Expected+se.Found, name)
	}
}

// TestParseReportsTheFirstError: of several errors in a text, Parse reports a token out of place
// before any value (the text is read whole first), and otherwise the first in the text.
func TestParseReportsTheFirstError(t *testing.T) {
	for text, column := range map[string]int{
		"0/s & 10/x":               10, // the unit, though the count comes first
		"10/s burst 0 & 10/x":      19, // the unit, though a noted value comes first
		"0/s & 10/s burst 0":       1,
		"10/s burst 0 & 0/s":       12,
		"window 5/s burst 2 & 0/s": 12,
		"0/s burst 0":              1,  // in one limit too
		"window 5/s burst 0":       12, // window takes no burst
		"gcra 5/s in 0":            10, // gcra takes no "in"
		"buckets 5/s in 0":         16, // the number of sub-windows
	} {
		_, err := Parse(text)
		var se *SyntaxError
		require.ErrorAs(t, err, &se, text)
		assert.Equal(t, column, se.Column, "%q: %v", text, err)
	}
}
