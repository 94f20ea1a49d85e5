// Package redistest gives tests a Redis server: one it starts from redis-server on PATH, on a free
// loopback port with persistence off, in a temporary directory, killed when the test ends; or the
// server REDIS_URL names. With neither, tests skip with a message saying so, unless
// NUMERUS_REQUIRE_REDIS=1, which turns the skip into a failure.
package redistest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// startTimeout bounds how long a server may take to say it is ready.
const startTimeout = 10 * time.Second

// Server is a Redis server for a test.
type Server struct {
	// Addr is the server's host:port.
	Addr string
	url  string // REDIS_URL, when the server is not ours
	args []string
	proc *process
}

type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the server's output is drained
}

// unavailable skips the test, or fails it when NUMERUS_REQUIRE_REDIS=1.
func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("NUMERUS_REQUIRE_REDIS") == "1" {
		t.Fatalf("redis required (NUMERUS_REQUIRE_REDIS=1) but %s", why)
	}
	t.Skipf("skipping: %s (install redis-server or set REDIS_URL; NUMERUS_REQUIRE_REDIS=1 makes this a failure)", why)
}

// Start returns the server REDIS_URL names, or starts one.
func Start(t testing.TB) *Server {
	t.Helper()
	if u := os.Getenv("REDIS_URL"); u != "" {
		o, err := redis.ParseURL(u)
		if err != nil {
			t.Fatalf("REDIS_URL: %v", err)
		}
		return &Server{Addr: o.Addr, url: u}
	}
	return Spawn(t)
}

// Spawn starts a redis-server of this test's own, whatever REDIS_URL says, with extra arguments
// appended to its command line.
func Spawn(t testing.TB, extra ...string) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		why := "redis-server is not on PATH and REDIS_URL is not set"
		if os.Getenv("REDIS_URL") != "" { // Spawn was called for a server of the test's own
			why = "this test starts servers of its own (REDIS_URL cannot stand in), and redis-server is not on PATH"
		}
		unavailable(t, why)
	}
	dir := t.TempDir()
	var last error
	for range 5 {
		port := freePort(t)
		s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
		s.args = append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--dir", dir, "--logfile", ""}, extra...)
		if last = s.launch(); last == nil {
			t.Cleanup(s.stop)
			return s
		}
	}
	t.Fatalf("redis-server would not start: %v", last)
	return nil
}

// External reports whether the server is REDIS_URL's, which a test must not kill.
func (s *Server) External() bool { return s.url != "" }

// Options returns the client options for the server.
func (s *Server) Options() *redis.Options {
	if s.url != "" {
		o, _ := redis.ParseURL(s.url)  // parsed by Start already
		o.ContextTimeoutEnabled = true // as redisstore.New requires
		return o
	}
	return &redis.Options{Addr: s.Addr, ContextTimeoutEnabled: true}
}

// Client returns a client of the server, closed when the test ends.
func (s *Server) Client(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(s.Options())
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Kill stops the server at once (SIGKILL). It fails the test for a server that is not ours.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	if s.proc == nil {
		t.Fatal("redistest: cannot kill a server this package did not start")
	}
	s.stop()
}

// Restart starts the server again on the same port, empty, after Kill.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.launch(); err != nil {
		t.Fatalf("redistest: restart: %v", err)
	}
}

// launch starts redis-server and waits until it says it accepts connections.
func (s *Server) launch() error {
	cmd := exec.Command("redis-server", s.args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	ready := make(chan struct{})
	var log strings.Builder
	go p.drain(out, ready, &log)
	select {
	case <-ready:
		s.proc = p
		return nil
	case <-p.done:
		_ = cmd.Wait()
		return fmt.Errorf("redis-server exited: %s", log.String())
	case <-time.After(startTimeout):
		_ = cmd.Process.Kill()
		<-p.done
		_ = cmd.Wait()
		return fmt.Errorf("redis-server not ready after %v", startTimeout)
	}
}

// drain reads the server's output until it ends, closing ready when the server is ready. Output
// before then is kept in log, to explain a failed start.
func (p *process) drain(out io.Reader, ready chan struct{}, log *strings.Builder) {
	defer close(p.done)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if ready == nil {
			continue
		}
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "Ready to accept connections") {
			close(ready)
			ready = nil
		}
	}
	_, _ = io.Copy(io.Discard, out)
}

func (s *Server) stop() {
	if s.proc == nil {
		return
	}
	_ = s.proc.cmd.Process.Kill()
	<-s.proc.done
	_ = s.proc.cmd.Wait()
	s.proc = nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: no free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// poll calls ok every few milliseconds until it returns true, or fails the test after timeout. It
// waits for real processes (a cluster agreeing on its slots), never for a limiter.
func poll(t testing.TB, timeout time.Duration, what string, ok func(ctx context.Context) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !ok(ctx) {
		select {
		case <-ctx.Done():
			t.Fatalf("redistest: %s: not after %v", what, timeout)
		case <-tick.C:
		}
	}
}
