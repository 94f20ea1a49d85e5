package httplimit_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
)

func TestMiddlewareCost(t *testing.T) {
	cost := map[string]int64{"/free": 0, "/big": 3, "/huge": 11}
	byPath := httplimit.WithCost(func(r *http.Request) int64 { return cost[r.URL.Path] })
	everyone := httplimit.WithKey(func(r *http.Request) string { return "everyone" })
	f := newFixture(t, memory.New(), "token 1/s burst 10", httplimit.FailClosed, byPath, everyone, httplimit.WithFreeRequests())
	req := func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		return w
	}
	w := req("/free")
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Empty(t, w.Header().Get("RateLimit"), "a free request is not checked")
	for range 3 {
		assert.Equal(t, http.StatusOK, req("/big").Code)
	}
	w = req("/big")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, `"default";r=1;t=2`, w.Header().Get("RateLimit"))
	w = req("/huge")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Empty(t, w.Header().Get("Retry-After"), "a cost above the capacity never fits")
	assert.Equal(t, 4, f.served)

	f = newFixture(t, memory.New(), "token 1/s burst 10", httplimit.FailClosed, byPath, everyone)
	for i := range 10 {
		w := req("/free")
		assert.Equal(t, http.StatusOK, w.Code)
		assert.NotEmpty(t, w.Header().Get("RateLimit"), "without WithFreeRequests, 0 is charged")
		assert.Equal(t, fmt.Sprintf(`"default";r=%d;t=1`, 9-i), w.Header().Get("RateLimit"), "request %d costs 1: one more token in a second", i)
	}
	assert.Equal(t, http.StatusTooManyRequests, req("/free").Code, "ten requests of cost 0 took the ten tokens")
}

// TestMiddlewareNegativeCost: a negative cost is an unknown one, answered 400 Bad Request by the
// middleware itself and reported, under FailOpen as under FailClosed: never a request served
// unchecked.
func TestMiddlewareNegativeCost(t *testing.T) {
	var logged []error
	opts := []httplimit.Option{
		httplimit.WithCost(func(*http.Request) int64 { return -1 }),
		httplimit.WithErrorLog(func(_ *http.Request, err error) { logged = append(logged, err) }),
	}
	for _, onError := range []httplimit.OnError{httplimit.FailClosed, httplimit.FailOpen} {
		f := newFixture(t, memory.New(), "10/s", onError, opts...)
		assert.Equal(t, http.StatusBadRequest, f.do("192.0.2.1:1").Code)
		assert.Zero(t, f.served)
	}
	require.Len(t, logged, 2)
	assert.ErrorIs(t, logged[0], numerus.ErrInvalidArgument)
}

// uploads starts a real server on loopback behind the middleware of policy, with cost, and
// returns a function that uploads body (chunked when it is not a bytes.Reader) and the count of
// uploads the handler served, having read them whole.
func uploads(t *testing.T, policy string, onError httplimit.OnError, cost func(*http.Request) int64) (func(io.Reader) int, *int) {
	sp, err := typed.Parse(policy)
	require.NoError(t, err)
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) // a clock that stands still: no new window mid-test
	l, err := keyed.New(memory.New(), sp, keyed.StringKey{}, keyed.WithClock(func() time.Time { return now }))
	require.NoError(t, err)
	m, err := httplimit.New(l, onError, httplimit.WithCost(cost))
	require.NoError(t, err)
	served := new(int)
	srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		*served++
	})))
	t.Cleanup(srv.Close)
	client := srv.Client()
	client.Timeout = 10 * time.Second
	return func(body io.Reader) int {
		resp, err := client.Post(srv.URL, "application/octet-stream", body)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}, served
}

// chunked hides the length of a body, so that the client sends it chunked and the server sees
// ContentLength −1.
type chunked struct{ io.Reader }

// TestChunkedUploadsAreNotFree sends 50 chunked uploads of 100 kB to a real server on loopback
// under window 10000/h. With the cost r.ContentLength, −1 for a chunked body, every one is
// answered 400 under FailOpen and FailClosed alike (they were all served before); with a cost
// in KiB that rounds −1 up to 0, each is charged 1 (they were free before). Small bodies are
// charged at least 1.
func TestChunkedUploadsAreNotFree(t *testing.T) {
	body := func() io.Reader { return chunked{bytes.NewReader(make([]byte, 100_000))} }
	length := func(r *http.Request) int64 { return r.ContentLength }
	for _, onError := range []httplimit.OnError{httplimit.FailOpen, httplimit.FailClosed} {
		upload, served := uploads(t, "window 10000/h", onError, length)
		for range 50 {
			assert.Equal(t, http.StatusBadRequest, upload(body()))
		}
		assert.Zero(t, *served, "no chunked upload served")
	}
	kib := func(r *http.Request) int64 { return (r.ContentLength + 1023) / 1024 }
	upload, served := uploads(t, "window 49/h", httplimit.FailClosed, kib)
	for range 49 {
		assert.Equal(t, http.StatusOK, upload(body()))
	}
	assert.Equal(t, http.StatusTooManyRequests, upload(body()), "the 50th chunked upload is over the limit")
	assert.Equal(t, 49, *served)

	upload, served = uploads(t, "window 3/h", httplimit.FailClosed, kib)
	for _, n := range []int{0, 1, 1024} {
		assert.Equal(t, http.StatusOK, upload(bytes.NewReader(make([]byte, n))), "a body of %d bytes", n)
	}
	assert.Equal(t, http.StatusTooManyRequests, upload(bytes.NewReader(nil)), "an empty body costs 1")
	assert.Equal(t, 3, *served)
}

// TestCostAboveCapacity: a request costing more than the capacity is refused for good: the body
// says retrying will not succeed, with no Retry-After and no t, and the body is not sniffed.
func TestCostAboveCapacity(t *testing.T) {
	f := newFixture(t, memory.New(), "token 1/s burst 10", httplimit.FailClosed,
		httplimit.WithCost(func(*http.Request) int64 { return 11 }))
	w := f.do("192.0.2.1:1")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "429 too many requests: retrying will not succeed\n", w.Body.String())
	assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
	assert.Equal(t, `"default";r=10`, w.Header().Get("RateLimit"))
	assert.Empty(t, w.Header().Values("Retry-After"))
}
