package upstream

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRetryAfter(t *testing.T) {
	ref := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"120", 2 * time.Minute, true},
		{" 5\t", 5 * time.Second, true},
		{"0", 0, true},
		{"99999999999999999999999", seconds(maxSeconds), true},
		{ref.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{ref.Add(-time.Hour).Format(http.TimeFormat), 0, true}, // past: no wait
		{ref.Add(30 * time.Second).Format(time.RFC850), 30 * time.Second, true},
		{ref.Add(30 * time.Second).Format(time.ANSIC), 30 * time.Second, true},
		{"-1", 0, false}, {"1.5", 0, false}, {"+3", 0, false}, {"", 0, false}, {"soon", 0, false},
	}
	for _, c := range cases {
		got, ok := retryAfter(c.in, ref)
		assert.Equal(t, c.ok, ok, "%q", c.in)
		assert.Equal(t, c.want, got, "%q", c.in)
	}
}

// TestServerNowIsTheDateField: a date the upstream writes is read against its own Date, not the
// local clock; without one, against the instant the response came.
func TestServerNowIsTheDateField(t *testing.T) {
	received := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{"Date": {received.Add(-time.Hour).Format(http.TimeFormat)}}
	assert.True(t, serverNow(h, received).Equal(received.Add(-time.Hour)))
	assert.True(t, serverNow(http.Header{}, received).Equal(received))
	assert.True(t, serverNow(http.Header{"Date": {"yesterday"}}, received).Equal(received))
}

func TestReadIETF(t *testing.T) {
	cases := []struct {
		name             string
		policies, limits []string
		want             []quota
	}{
		{"one policy", []string{`"burst";q=100;w=60`}, []string{`"burst";r=50;t=30`},
			[]quota{{name: "burst", left: 50, reset: 30 * time.Second, limit: 100, window: time.Minute}}},
		{"several, in two field lines", []string{`"burst";q=10;w=1`, `"day";q=1000;w=86400`},
			[]string{`"day";r=900;t=7200, "burst";r=0;t=1`},
			[]quota{{name: "day", left: 900, reset: 2 * time.Hour, limit: 1000, window: 24 * time.Hour},
				{name: "burst", left: 0, reset: time.Second, limit: 10, window: time.Second}}},
		{"a policy unknown", nil, []string{`"x";r=3;t=5`}, []quota{{name: "x", left: 3, reset: 5 * time.Second}}},
		{"tokens, as earlier drafts", []string{`burst;q=5;w=2`}, []string{`burst;r=4;t=2`},
			[]quota{{name: "burst", left: 4, reset: 2 * time.Second, limit: 5, window: 2 * time.Second}}},
		{"no t: within w", []string{`"p";q=5;w=10`}, []string{`"p";r=1`},
			[]quota{{name: "p", left: 1, reset: 10 * time.Second, limit: 5, window: 10 * time.Second}}},
		{"no t and no w", nil, []string{`"p";r=1`}, nil},
		{"partition keys apart", []string{`"p";q=5;w=10;pk=:YQ==:`, `"p";q=7;w=10;pk=:Yg==:`},
			[]string{`"p";r=1;t=3;pk=:Yg==:`},
			[]quota{{name: "p\x00b", left: 1, reset: 3 * time.Second, limit: 7, window: 10 * time.Second}}},
		{"bytes are not requests", []string{`"b";q=5000;qu="content-bytes";w=1`}, []string{`"b";r=10;t=1`},
			[]quota{{name: "b", left: 10, reset: time.Second}}},
		{"a bad item, the others stand", nil, []string{`"a";r=-1;t=3, "b";r=1.5;t=3, "c";r=2;t="3", "d";r=2;t=3, ("e");r=1;t=1`},
			[]quota{{name: "d", left: 2, reset: 3 * time.Second}}},
		{"a field that does not parse", nil, []string{`"a";r=1;t=3,,`}, nil},
		{"a policy that does not parse", []string{`"a";q=`}, []string{`"a";r=1;t=3`},
			[]quota{{name: "a", left: 1, reset: 3 * time.Second}}},
		{"no RateLimit", []string{`"a";q=1;w=1`}, nil, nil},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, readIETF(c.policies, c.limits), c.name)
	}
}

func TestReadXRateLimit(t *testing.T) {
	ref := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	epoch := func(d time.Duration) string { return strconv.FormatInt(ref.Add(d).Unix(), 10) }
	cases := []struct {
		name             string
		limit, left, rst string
		want             quota
		ok               bool
	}{
		{"GitHub: an epoch", "5000", "4987", epoch(40 * time.Minute), quota{name: "x-ratelimit", left: 4987, reset: 40 * time.Minute, limit: 5000}, true},
		{"seconds to wait", "60", "0", "30", quota{name: "x-ratelimit", reset: 30 * time.Second, limit: 60}, true},
		{"an epoch past: no wait", "60", "0", epoch(-time.Hour), quota{name: "x-ratelimit", limit: 60}, true},
		{"a fraction", "", "3", epoch(time.Minute) + ".25", quota{name: "x-ratelimit", left: 3, reset: time.Minute + 250*time.Millisecond}, true},
		{"a day's wait is seconds", "", "1", "86400", quota{name: "x-ratelimit", left: 1, reset: 24 * time.Hour}, true},
		{"no Remaining", "60", "", "30", quota{}, false},
		{"no Reset", "60", "1", "", quota{}, false},
		{"a negative Remaining", "60", "-1", "30", quota{}, false},
		{"a bad fraction", "60", "1", "3.", quota{}, false},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range map[string]string{"X-Ratelimit-Limit": c.limit, "X-Ratelimit-Remaining": c.left, "X-Ratelimit-Reset": c.rst} {
			if v != "" {
				h.Set(k, v)
			}
		}
		got, ok := readXRateLimit(h, ref)
		assert.Equal(t, c.ok, ok, c.name)
		assert.Equal(t, c.want, got, c.name)
	}
	h := http.Header{"X-Ratelimit-Remaining": {"1"}, "X-Ratelimit-Reset": {"5"}, "X-Ratelimit-Resource": {"search"}}
	got, _ := readXRateLimit(h, ref)
	assert.Equal(t, "x-ratelimit\x00search", got.name, "each resource is a quota of its own")
}

// TestReadSignal: Retry-After counts on a 429 or a 503 only; a quota with nothing left pauses
// until its reset; every span is at most the max pause.
func TestReadSignal(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{"Retry-After": {"7"}}
	assert.Equal(t, 7*time.Second, readSignal(429, h, now, time.Hour).pause)
	assert.Equal(t, 7*time.Second, readSignal(503, h, now, time.Hour).pause)
	assert.Zero(t, readSignal(200, h, now, time.Hour).pause)
	assert.Equal(t, 5*time.Second, readSignal(429, h, now, 5*time.Second).pause, "clamped")

	h = http.Header{"Ratelimit": {`"a";r=0;t=20, "b";r=3;t=50`}}
	s := readSignal(200, h, now, 30*time.Second)
	assert.Equal(t, 20*time.Second, s.pause, "nothing left of a until its reset")
	assert.Equal(t, 30*time.Second, s.quotas[1].reset, "clamped")

	h = http.Header{"Retry-After": {now.Add(10 * time.Second).Format(http.TimeFormat)}, "Date": {now.Format(http.TimeFormat)}}
	assert.Equal(t, 10*time.Second, readSignal(429, h, now.Add(time.Hour), time.Hour).pause,
		"a local clock an hour ahead does not shorten it")
}
