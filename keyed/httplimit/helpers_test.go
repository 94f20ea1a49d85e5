package httplimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/numerus-closus/numerus/typed"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fixture is a middleware on a memory store at a fixed instant, and a counting handler.
type fixture struct {
	h      http.Handler
	served int
}

func newFixture(t *testing.T, store keyed.Store, policy string, onError httplimit.OnError, opts ...httplimit.Option) *fixture {
	t.Helper()
	sp, err := typed.Parse(policy)
	require.NoError(t, err)
	l, err := keyed.New(store, sp, keyed.StringKey{}, keyed.WithClock(func() time.Time { return t0 }))
	require.NoError(t, err)
	m, err := httplimit.New(l, onError, opts...)
	require.NoError(t, err)
	f := &fixture{}
	f.h = m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f.served++ }))
	return f
}

func (f *fixture) do(remote string, xff ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = remote
	for _, v := range xff {
		r.Header.Add("X-Forwarded-For", v)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}
