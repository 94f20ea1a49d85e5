package bench

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisPool is the client's connection pool size: enough for redisGoroutines goroutines to run
// at once, for every library alike.
const redisPool = redisGoroutines

// The Redis server of this test binary: the one REDIS_URL names, or a redis-server from PATH that
// the harness starts on a free loopback port and stops in TestMain. skip says why there is none.
var server struct {
	once sync.Once
	opts *redis.Options
	cmd  *exec.Cmd
	skip string
	err  error
}

// redisClient returns a client of the harness's server, closed when the benchmark ends. It skips
// the benchmark when there is no server, and fails it when the server cannot be reached.
func redisClient(b *testing.B) redis.UniversalClient {
	b.Helper()
	server.once.Do(startRedis)
	switch {
	case server.skip != "" && os.Getenv("NUMERUS_REQUIRE_REDIS") == "1":
		b.Fatalf("redis required (NUMERUS_REQUIRE_REDIS=1) but %s", server.skip)
	case server.skip != "":
		b.Skip(server.skip + " (NUMERUS_REQUIRE_REDIS=1 makes this a failure)")
	case server.err != nil:
		b.Fatal(server.err)
	}
	opts := *server.opts
	opts.PoolSize = max(opts.PoolSize, redisPool)
	rdb := redis.NewClient(&opts)
	b.Cleanup(func() { _ = rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		b.Fatalf("redis at %s: %v", opts.Addr, err)
	}
	return rdb
}

// startRedis settles which server the benchmarks use.
func startRedis() {
	if url := os.Getenv("REDIS_URL"); url != "" {
		server.opts, server.err = redis.ParseURL(url)
		return
	}
	path, err := exec.LookPath("redis-server")
	if err != nil {
		server.skip = "redis: no redis-server on PATH and REDIS_URL is unset"
		return
	}
	for range 3 { // a free port can be taken by someone else before the server binds it
		if server.err = launchRedis(path); server.err == nil {
			return
		}
	}
}

// launchRedis starts redis-server on a free loopback port, without persistence, and waits until
// it answers.
func launchRedis(path string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	cmd := exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", path, err)
	}
	opts := &redis.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), ContextTimeoutEnabled: true}
	if err := awaitRedis(opts); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("redis-server on port %d: %w; it said:\n%s", port, err, out.String())
	}
	server.opts, server.cmd = opts, cmd
	return nil
}

// awaitRedis pings the server until it answers, for at most five seconds.
func awaitRedis(opts *redis.Options) error {
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if err = rdb.Ping(context.Background()).Err(); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// stopRedis stops the server the harness started, if it started one.
func stopRedis() {
	if server.cmd == nil {
		return
	}
	_ = server.cmd.Process.Kill()
	_ = server.cmd.Wait()
}
