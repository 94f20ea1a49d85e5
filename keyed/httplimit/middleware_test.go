package httplimit_test

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
)

func TestMiddleware(t *testing.T) {
	f := newFixture(t, memory.New(), "gcra 2/s burst 2", httplimit.FailClosed)
	w := f.do("192.0.2.1:1000")
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, `"default";q=2;w=1`, w.Header().Get("RateLimit-Policy"))
	assert.Equal(t, `"default";r=1;t=1`, w.Header().Get("RateLimit"))
	assert.Empty(t, w.Header().Get("Retry-After"))
	f.do("192.0.2.1:1001")
	w = f.do("192.0.2.1:1002", "198.51.100.1") // a spoofed X-Forwarded-For changes nothing
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, `"default";r=0;t=1`, w.Header().Get("RateLimit"))
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	assert.Equal(t, http.StatusOK, f.do("192.0.2.2:1000").Code, "another client has a limit of its own")
	assert.Equal(t, 3, f.served)
}

func TestMiddlewareTrustedProxy(t *testing.T) {
	f := newFixture(t, memory.New(), "finite 1", httplimit.FailClosed,
		httplimit.WithTrustedProxies(netip.MustParsePrefix("10.0.0.0/8")))
	assert.Equal(t, http.StatusOK, f.do("10.0.0.1:80", "198.51.100.1").Code)
	assert.Equal(t, http.StatusOK, f.do("10.0.0.1:80", "198.51.100.2").Code)
	w := f.do("10.0.0.2:80", "198.51.100.1")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Empty(t, w.Header().Get("Retry-After"), "a spent finite quota has no retry")
	assert.Equal(t, `"default";r=0`, w.Header().Get("RateLimit"))
	assert.Equal(t, "429 too many requests: retrying will not succeed\n", w.Body.String())
}

// TestMiddlewareNilOptions checks that WithKey(nil) and WithCost(nil) restore the defaults rather
// than leave a function that panics on the first request.
func TestMiddlewareNilOptions(t *testing.T) {
	f := newFixture(t, memory.New(), "finite 1", httplimit.FailClosed, httplimit.WithCost(nil), httplimit.WithKey(nil))
	assert.NotPanics(t, func() { assert.Equal(t, http.StatusOK, f.do("192.0.2.1:1").Code) })
	assert.Equal(t, http.StatusTooManyRequests, f.do("192.0.2.1:1").Code, "the default cost is one token")
	assert.Equal(t, http.StatusOK, f.do("192.0.2.2:1").Code, "the default key is the client")
}

// invalid is a store that refuses every request as an invalid argument, for reasons of its own.
type invalid struct{ keyed.Store }

func (invalid) Acquire(context.Context, keyed.Request) (keyed.Decision, error) {
	return keyed.Decision{}, &numerus.ParamError{Param: "key", Problem: "is not one this store keeps"}
}

// failing is a store whose backend is down.
type failing struct{ keyed.Store }

var errDown = errors.New("backend down")

func (failing) Acquire(context.Context, keyed.Request) (keyed.Decision, error) {
	return keyed.Decision{}, errDown
}

func TestMiddlewareStoreErrors(t *testing.T) {
	var logged []error
	log := httplimit.WithErrorLog(func(_ *http.Request, err error) { logged = append(logged, err) })
	closed := newFixture(t, failing{memory.New()}, "10/s", httplimit.FailClosed, log)
	w := closed.do("192.0.2.1:1")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Empty(t, w.Header().Get("RateLimit"))
	assert.Zero(t, closed.served)
	open := newFixture(t, failing{memory.New()}, "10/s", httplimit.FailOpen, log)
	w = open.do("192.0.2.1:1")
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Empty(t, w.Header().Get("RateLimit"))
	assert.Equal(t, 1, open.served)
	require.Len(t, logged, 2)
	assert.ErrorIs(t, logged[0], errDown)
	// a store's own error that matches ErrInvalidArgument is a store error, not a cost above the
	// capacity: OnError decides, and no 429 tells the client never to retry
	picky := newFixture(t, invalid{memory.New()}, "10/s", httplimit.FailClosed, log)
	w = picky.do("192.0.2.1:1")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Zero(t, picky.served)
	require.Len(t, logged, 3)
	assert.ErrorIs(t, logged[2], numerus.ErrInvalidArgument)
}

func TestNewRejects(t *testing.T) {
	l, err := keyed.New(memory.New(), numerus.Must(typed.Parse("1/s")), keyed.StringKey{})
	require.NoError(t, err)
	_, err = httplimit.New(l, 0)
	assert.Error(t, err)
	_, err = httplimit.New(keyed.Limiter[string]{}, httplimit.FailOpen)
	assert.Error(t, err)
	_, err = httplimit.New(l, httplimit.FailOpen, nil)
	var pe *numerus.ParamError
	if assert.ErrorAs(t, err, &pe) {
		assert.Equal(t, "option", pe.Param)
	}
}
