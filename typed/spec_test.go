package typed

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/limits"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestValidateNamesTheParameter(t *testing.T) {
	gcra := leafSpec(AlgoGCRA, 1, time.Second, 0)
	cases := []struct {
		name  string
		sp    Spec
		param string
	}{
		{"zero", Spec{}, "algo"},
		{"unknown algo", Spec{Algo: "bucket", Count: 1, Period: time.Second}, "algo"},
		{"no count", leafSpec(AlgoGCRA, 0, time.Second, 0), "count"},
		{"negative period", leafSpec(AlgoToken, 1, -time.Second, 0), "period"},
		{"negative burst", leafSpec(AlgoLeaky, 1, time.Second, -1), "burst"},
		{"burst on a window", leafSpec(AlgoWindow, 1, time.Second, 2), "burst"},
		{"finite period", leafSpec(AlgoFinite, 1, time.Second, 0), "period"},
		{"in on sliding", Spec{Algo: AlgoSliding, Count: 1, Period: time.Second, In: 2}, "in"},
		{"leaf with children", Spec{Algo: AlgoGCRA, Count: 1, Period: time.Second, Of: []Spec{gcra, gcra}}, "of"},
		{"and of one", Spec{Algo: AlgoAnd, Of: []Spec{gcra}}, "of"},
		{"and with count", Spec{Algo: AlgoAnd, Count: 1, Of: []Spec{gcra, gcra}}, "count"},
		{"or with burst", Spec{Algo: AlgoOr, Burst: 1, Of: []Spec{gcra, gcra}}, "burst"},
		{"and with in", Spec{Algo: AlgoAnd, In: 2, Of: []Spec{gcra, gcra}}, "in"},
		{"nested", Spec{Algo: AlgoOr, Of: []Spec{gcra, {Algo: AlgoAnd, Of: []Spec{gcra, {Algo: AlgoCount}}}}}, "of[1].of[1].period"},
		{"burst too long", leafSpec(AlgoGCRA, 1, 24*time.Hour, 1<<40), "burst"},
		{"rate too fine", leafSpec(AlgoToken, math.MaxInt64, time.Nanosecond, 1), "count"},
		{"one token's interval too long", leafSpec(AlgoGCRA, 1, math.MaxInt64, 1), "period"},
	}
	for _, c := range cases {
		err := c.sp.Validate()
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, c.name)
		var pe *numerus.ParamError
		require.True(t, errors.As(err, &pe), c.name)
		assert.Equal(t, c.param, pe.Param, c.name)
		_, err = Compile(c.sp)
		assert.ErrorIs(t, err, numerus.ErrInvalidArgument, c.name)
	}
	deep := gcra
	for range 40 {
		deep = Spec{Algo: AlgoAnd, Of: []Spec{deep, gcra}}
	}
	assert.ErrorIs(t, deep.Validate(), numerus.ErrInvalidArgument)
}

func TestSpecJSON(t *testing.T) {
	sp := MustParse(t, "gcra 10/s burst 5 & (window 1000/h | finite 7) & buckets 60/m in 6")
	data, err := json.Marshal(sp)
	require.NoError(t, err)
	assert.JSONEq(t, `{"and":[{"algo":"gcra","limit":"10/s","burst":5},
		{"or":[{"algo":"window","limit":"1000/h"},{"algo":"finite","limit":"7"}]},
		{"algo":"buckets","limit":"60/m","in":6}]}`, string(data))
	var back Spec
	require.NoError(t, json.Unmarshal(data, &back))
	assert.True(t, sp.Equal(back))

	var config struct {
		API   Spec `json:"api"`
		Login Spec `json:"login"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"api":"10/s burst 20 & 1000/h",
		"login":{"limit":"5/min"}}`), &config))
	assert.Equal(t, "gcra 10/s burst 20 & sliding 1000/h", config.API.String())
	assert.Equal(t, "sliding 5/m", config.Login.String(), "a limit without algo, as the notation reads it")
	require.NoError(t, json.Unmarshal([]byte(`{"limit":"5/min","burst":2}`), &config.Login))
	assert.Equal(t, "gcra 5/m burst 2", config.Login.String(), "with a burst, a GCRA")
	require.NoError(t, json.Unmarshal([]byte(`{"algo":"gcra","limit":"5/min"}`), &config.Login))
	assert.Equal(t, Spec{Algo: AlgoGCRA, Count: 5, Period: time.Minute}, config.Login, "the default burst")

	for name, bad := range map[string]string{
		"unknown field": `{"algo":"gcra","limit":"1/s","rate":"1/s"}`,
		"bad limit":     `{"algo":"gcra","limit":"1/x"}`,
		"limit extra":   `{"algo":"gcra","limit":"1/s & 2/s"}`,
		"and and or":    `{"and":["1/s","2/s"],"or":["1/s","2/s"]}`,
		"and with algo": `{"algo":"gcra","and":["1/s","2/s"]}`,
		"unknown algo":  `{"algo":"fast","limit":"1/s"}`,
		"bad notation":  `"10/"`,
	} {
		assert.Error(t, json.Unmarshal([]byte(bad), &back), name)
	}

	// The object form is validated as the notation is, naming the parameter by its path.
	for bad, param := range map[string]string{
		`{"limit":"0/s"}`: "count",
		`{"algo":"window","limit":"5/h","burst":3}`:                                        "burst",
		`{"and":[{"limit":"10/s"},{"algo":"buckets","limit":"60/m","in":7}]}`:              "of[1].in",
		`{"or":[{"limit":"10/s"}]}`:                                                        "of",
		`{"and":["10/s","0/s"]}`:                                                           "of[1].count",
		`{"and":[{"limit":"1/s"},{"algo":"nope","limit":"1/s"}]}`:                          "of[1].algo",
		`{"and":[{"limit":"1/s"},{"and":["1/s","2/s"],"burst":2}]}`:                        "of[1].and",
		`{"and":[{"limit":"1/s"},{"or":[{"limit":"1/s"},{"algo":"finite","limit":"0"}]}]}`: "of[1].of[1].count",
	} {
		err := json.Unmarshal([]byte(bad), &back)
		var pe *numerus.ParamError
		require.ErrorAs(t, err, &pe, bad)
		assert.ErrorIs(t, err, numerus.ErrInvalidArgument, bad)
		assert.Equal(t, param, pe.Param, bad)
	}
}

// TestSpecJSONRoundTrip: every valid spec survives JSON.
func TestSpecJSONRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sp := genSpec(t, 4)
		data, err := json.Marshal(sp)
		require.NoError(t, err)
		var back Spec
		require.NoError(t, json.Unmarshal(data, &back))
		require.True(t, sp.Equal(back), "%s came back as %s", sp, back)
	})
}

// TestSpecJSONDepth: the JSON reader takes specs as deep as Validate does and rejects deeper ones
// itself, naming the parameter, before it reads below the limit (encoding/json, reading level by
// level, took seconds for a 49 KB snapshot nested 4,900 levels deep); a text longer than the
// limit on its size is refused before it is read.
func TestSpecJSONDepth(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(strings.Repeat(`{"and":[{"limit":"1/s"},`, n) + `{"limit":"2/s"}` + strings.Repeat(`]}`, n))
	}
	var sp Spec
	require.NoError(t, json.Unmarshal(nest(limits.Depth), &sp))
	require.NoError(t, sp.Validate())
	for _, n := range []int{limits.Depth + 1, 4900} {
		err := json.Unmarshal(nest(n), &sp)
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, "%d levels", n)
		require.ErrorContains(t, err, "nests more than 32 levels")
	}
	err := sp.UnmarshalJSON(nest(6000)) // encoding/json would refuse 6000 levels itself
	require.ErrorIs(t, err, numerus.ErrInvalidArgument)
	require.ErrorContains(t, err, "more than the limit of 131072")
	_, _, err = ReadSnapshotJSON([]byte(`{"version":1,"policy":` + string(nest(4900)) + `,"state":[]}`))
	require.ErrorIs(t, err, ErrCorrupt)
	err = json.Unmarshal([]byte(`{"limit":"\\\"`+strings.Repeat("[", 100)+`"}`), &sp)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "nests", "brackets inside a string do not nest")
	require.NoError(t, json.Unmarshal([]byte(`{"or":["10/s", {"and":["5/h", "window 9/d"]}]}`), &sp))
}

// TestSpecJSONNamesDeepReadingErrors: an error of reading (not of Validate) two levels down, under
// an "or" inside an "and", names the full path of the parameter, each level's prefix kept.
func TestSpecJSONNamesDeepReadingErrors(t *testing.T) {
	for bad, param := range map[string]string{
		`{"and":[{"limit":"1/s"},{"or":[{"limit":"1/s"},{"algo":"nope","limit":"1/s"}]}]}`:      "of[1].of[1].algo",
		`{"or":[{"limit":"1/s"},{"and":[{"limit":"1/s"},{"or":["1/s","2/s"],"limit":"1/s"}]}]}`: "of[1].of[1].and",
		`{"or":[{"limit":"1/s"},{"algo":"nope","limit":"1/s"}]}`:                                "of[1].algo",
	} {
		var back Spec
		err := json.Unmarshal([]byte(bad), &back)
		var pe *numerus.ParamError
		require.ErrorAs(t, err, &pe, bad)
		assert.Equal(t, param, pe.Param, bad)
	}
}
