package redistest_test

import (
	"context"
	"os"
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
