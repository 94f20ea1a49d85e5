package redistest_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestServer(t *testing.T) {
	if os.Getenv("REDIS_URL") != "" {
		t.Skip("REDIS_URL names the server: nothing to start")
	}
	s := redistest.Start(t)
	o := s.Options()
	o.MaxRetries, o.DialerRetries = -1, 1
	c := redis.NewClient(o)
	defer c.Close()
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	s.Kill(t)
	if err := c.Ping(ctx).Err(); err == nil {
		t.Fatal("a killed server answered")
	}
	s.Restart(t)
	if n := c.Exists(ctx, "k").Val(); n != 0 {
		t.Fatalf("the restarted server kept %d keys: persistence should be off", n)
	}
}

// TestClusterByHand joins a cluster without redis-cli, as on machines that lack it.
func TestClusterByHand(t *testing.T) {
	c := redistest.StartClusterByHand(t).Client(t)
	ctx := context.Background()
	for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
		if err := c.Set(ctx, k, k, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		return m.Ping(ctx).Err()
	}); err != nil {
		t.Fatal(err)
	}
}

// recorder is a testing.TB that records how a test would end instead of ending it.
type recorder struct {
	testing.TB
	ended string
}

type stopped struct{}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.ended = "skip: " + fmt.Sprintf(format, args...)
	panic(stopped{})
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.ended = "fail: " + fmt.Sprintf(format, args...)
	panic(stopped{})
}

func (r *recorder) run(f func()) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stopped); !ok {
				panic(p)
			}
		}
	}()
	f()
}

// TestUnavailable: with neither redis-server on PATH nor REDIS_URL, a test skips and says why,
// unless NUMERUS_REQUIRE_REDIS=1 makes it fail.
func TestUnavailable(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("REDIS_URL", "")
	for require, want := range map[string]string{
		"":  "skip: skipping: redis-server is not on PATH and REDIS_URL is not set",
		"1": "fail: redis required (NUMERUS_REQUIRE_REDIS=1) but redis-server is not on PATH",
	} {
		t.Setenv("NUMERUS_REQUIRE_REDIS", require)
		for name, start := range map[string]func(testing.TB){
			"Start":        func(tb testing.TB) { redistest.Start(tb) },
			"StartCluster": func(tb testing.TB) { redistest.StartCluster(tb) },
		} {
			r := &recorder{TB: t}
			r.run(func() { start(r) })
			if !strings.HasPrefix(r.ended, want) {
				t.Errorf("%s with NUMERUS_REQUIRE_REDIS=%q ended with %q, want %q", name, require, r.ended, want)
			}
		}
	}
}
