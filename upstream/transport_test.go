package upstream

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/schedule"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPauseFailsALateRequestAtOnce: after a 429 with Retry-After: 10, returned with its body
// intact since retries are off, a request whose deadline is in 2s fails at once with a
// *schedule.DeadlineError, sending nothing; with retries, a request refused so gets the refusal
// at once, its body intact, rather than a retry that would come too late.
func TestPauseFailsALateRequestAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		qs := newQuotaServer(retrySeconds, limit{"q", 1, 10 * time.Second})
		s := servePipe(qs)
		defer s.close()
		rt := newTransport(t, s.base)
		require.Equal(t, answer{status: 200, body: "served request 0"}, do(t.Context(), rt, s.srv.URL, 0))
		refused := do(t.Context(), rt, s.srv.URL, 1)
		require.Equal(t, answer{status: 429, body: "refused request 1"}, refused, "returned with its body")

		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		late := do(ctx, rt, s.srv.URL, 2)
		var de *schedule.DeadlineError
		require.ErrorAs(t, late.err, &de)
		require.ErrorIs(t, late.err, context.DeadlineExceeded)
		assert.True(t, de.At.Equal(bubbleStart.Add(10*time.Second)), "the pause's end: %v", de.At)
		assert.Len(t, qs.seen(), 2, "nothing sent")
		assert.Zero(t, elapsed(), "at once")

		retrying := newTransport(t, s.base, WithRetries(3), WithKey(func(*http.Request) string { return "other" }))
		require.Equal(t, 200, do(t.Context(), retrying, s.srv.URL, 3).status, "refused, then sent again")
		require.Equal(t, 10*time.Second, elapsed(), "after the pause")
		ctx, cancel = context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		got := do(ctx, retrying, s.srv.URL, 4)
		require.Equal(t, answer{status: 429, body: "refused request 4"}, got)
		assert.Equal(t, 10*time.Second, elapsed(), "at once")
	})
}

// bubbleStart is the instant every synctest bubble starts at.
var bubbleStart = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func elapsed() time.Duration { return time.Since(bubbleStart) }

// refuser answers 429 with Retry-After: 1 to every request, and records the bodies.
type refuser struct {
	mu     sync.Mutex
	bodies []string
}

func (f *refuser) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(b))
	f.mu.Unlock()
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusTooManyRequests)
	io.WriteString(w, "no")
}

func (f *refuser) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// TestRetriesOnlyWhatCanBeSentAgain: a PUT is sent again, its body intact, up to the retries and
// a second apart, and then the last refusal is returned; a POST only with WithRetryAnyMethod; a
// body that cannot be had again (no GetBody) never.
func TestRetriesOnlyWhatCanBeSentAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &refuser{}
		s := servePipe(f)
		defer s.close()
		send := func(rt http.RoundTripper, method string, body io.Reader) int {
			req, err := http.NewRequestWithContext(t.Context(), method, s.srv.URL, body)
			require.NoError(t, err)
			resp, err := rt.RoundTrip(req)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, "no", string(b), "the last refusal, its body intact")
			return resp.StatusCode
		}
		rt := newTransport(t, s.base, WithRetries(2))
		require.Equal(t, 429, send(rt, http.MethodPut, strings.NewReader("put")))
		require.Equal(t, []string{"put", "put", "put"}, f.sent(), "two retries")
		require.Equal(t, 2*time.Second, elapsed(), "each after the pause")

		send(rt, http.MethodPost, strings.NewReader("post"))
		require.Len(t, f.sent(), 4, "a POST is not retried")
		anyVerb := newTransport(t, s.base, WithRetries(1), WithRetryAnyMethod())
		send(anyVerb, http.MethodPost, strings.NewReader("post"))
		require.Len(t, f.sent(), 6, "unless the caller says so")
		send(anyVerb, http.MethodPut, io.MultiReader(strings.NewReader("once")))
		require.Equal(t, "once", f.sent()[6])
		require.Len(t, f.sent(), 7, "a body that cannot be had again is sent once")
	})
}

// recorder is a handler that answers 200 and records when each request came, by its body.
type recorder struct {
	mu  sync.Mutex
	at  []time.Duration
	got []string
	// fields, if set, are written on every response for the request's Authorization
	fields func(token string) map[string]string
}

func (h *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.at = append(h.at, elapsed())
	h.got = append(h.got, string(b))
	h.mu.Unlock()
	if h.fields != nil {
		for k, v := range h.fields(r.Header.Get("Authorization")) {
			w.Header().Set(k, v)
		}
	}
}

func (h *recorder) arrivals() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Duration(nil), h.at...)
}

// TestLocalPolicyPaces: with WithPolicy and an upstream that says nothing, the local policy
// alone paces the requests.
func TestLocalPolicyPaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &recorder{}
		s := servePipe(h)
		defer s.close()
		rt := newTransport(t, s.base, WithPolicy(typed.Spec{Algo: typed.AlgoGCRA, Count: 2, Period: time.Second}))
		for i := range 4 {
			require.Equal(t, 200, do(t.Context(), rt, s.srv.URL, i).status)
		}
		ms := time.Millisecond
		assert.Equal(t, []time.Duration{0, 500 * ms, 1000 * ms, 1500 * ms}, h.arrivals())
	})
}

// TestWithKeyKeepsTokensApart: with gates per API token, the budget one token spent holds back
// that token's requests only.
func TestWithKeyKeepsTokensApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &recorder{fields: func(token string) map[string]string {
			if token == "spent" {
				return map[string]string{"RateLimit": `"t";r=0;t=10`}
			}
			return map[string]string{"RateLimit": `"t";r=50;t=10`}
		}}
		s := servePipe(h)
		defer s.close()
		rt := newTransport(t, s.base, WithKey(func(r *http.Request) string { return r.Header.Get("Authorization") }))
		for _, token := range []string{"spent", "fresh", "fresh", "spent"} {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.srv.URL, nil)
			req.Header.Set("Authorization", token)
			resp, err := rt.RoundTrip(req)
			require.NoError(t, err)
			resp.Body.Close()
		}
		assert.Equal(t, []time.Duration{0, 0, 0, 10 * time.Second}, h.arrivals(),
			"the fresh token goes at once, the spent one after its reset")
	})
}

// TestNewValidates: invalid options are errors matching numerus.ErrInvalidArgument.
func TestNewValidates(t *testing.T) {
	for name, o := range map[string]Option{
		"policy":    WithPolicy(typed.Spec{Algo: typed.AlgoGCRA, Count: -1, Period: time.Second}),
		"max pause": WithMaxPause(0),
		"retries":   WithRetries(-1),
		"key":       WithKey(nil),
	} {
		_, err := New(nil, o)
		assert.ErrorIs(t, err, numerus.ErrInvalidArgument, name)
	}
}

// TestZeroTransportSends: the zero Transport sends through http.DefaultTransport's place, here a
// base set on it, paced by the upstream alone; and it passes CloseIdleConnections on.
func TestZeroTransportSends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &recorder{fields: func(string) map[string]string { return map[string]string{"RateLimit": `"t";r=0;t=3`} }}
		s := servePipe(h)
		defer s.close()
		var rt Transport
		rt.base = s.base
		for i := range 2 {
			require.Equal(t, 200, do(t.Context(), &rt, s.srv.URL, i).status)
		}
		assert.Equal(t, []time.Duration{0, 3 * time.Second}, h.arrivals())
		rt.CloseIdleConnections()
	})
}
