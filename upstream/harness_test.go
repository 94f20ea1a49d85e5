package upstream

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/numerus-closus/numerus/internal/pipenet"
	"github.com/stretchr/testify/require"
)

// served is an httptest server over pipes and the base transport that reaches it.
type served struct {
	srv  *httptest.Server
	base *http.Transport
}

// servePipe starts h over a pipe listener; close stops the server and the client's connections.
func servePipe(h http.Handler) served {
	l := pipenet.Listen()
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) { return l.Dial(ctx) }
	return served{srv, &http.Transport{DialContext: dial}}
}

func (s served) close() {
	s.base.CloseIdleConnections()
	s.srv.Close()
}

// answer is what a client got for one request.
type answer struct {
	status int
	body   string
	err    error
}

// body is the body of the test's request i, which the server echoes.
func body(i int) string { return fmt.Sprintf("request %d", i) }

// sendAll sends n PUT requests with bodies from workers goroutines through rt, and returns the
// answers in the order of the requests.
func sendAll(t *testing.T, rt http.RoundTripper, url string, n, workers int) []answer {
	t.Helper()
	out := make([]answer, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				out[i] = do(t.Context(), rt, url, i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// do sends request i and reads its answer.
func do(ctx context.Context, rt http.RoundTripper, url string, i int) answer {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, strings.NewReader(body(i)))
	if err != nil {
		return answer{err: err}
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, body: string(b), err: err}
}

// newTransport returns a Transport over base, failing the test on an error.
func newTransport(t *testing.T, base http.RoundTripper, opts ...Option) *Transport {
	t.Helper()
	rt, err := New(base, opts...)
	require.NoError(t, err)
	return rt
}
