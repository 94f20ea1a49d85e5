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

	"github.com/stretchr/testify/require"
)

// pipeListener is a net.Listener whose connections are net.Pipe pairs: in memory and durably
// blocking, so that a real net/http server and client run inside a testing/synctest bubble, on
// its virtual clock.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// dial is the client's DialContext: the server accepts the other end of a new pipe.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, srv := net.Pipe()
	select {
	case l.conns <- srv:
		return client, nil
	case <-l.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// served is an httptest server over pipes and the base transport that reaches it.
type served struct {
	srv  *httptest.Server
	base *http.Transport
}

// servePipe starts h over a pipe listener; close stops the server and the client's connections.
func servePipe(h http.Handler) served {
	l := newPipeListener()
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	return served{srv, &http.Transport{DialContext: l.dial}}
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
