package redisstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
)

// TestDurability spends a subject (gcra 1/h burst 3, three admitted), kills the server with
// SIGKILL and starts it again from its directory. Without persistence (the server's default in
// these tests: no RDB saves, no AOF) the subject has its whole burst back; with appendonly yes
// and appendfsync always, as the package doc advises where a restart must not grant anything,
// it is still spent.
func TestDurability(t *testing.T) {
	for _, c := range []struct {
		name  string
		args  []string
		spent bool
	}{
		{"no persistence", nil, false},
		{"appendfsync always", []string{"--appendonly", "yes", "--appendfsync", "always"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := redistest.Spawn(t, c.args...)
			client := srv.Client(t)
			l := limiter(t, redisstore.MustNew(client), "gcra 1/h burst 3", newClock(t0))
			ctx := context.Background()
			for range 3 {
				d, err := l.TryAcquire(ctx, "alice", 1)
				require.NoError(t, err)
				require.True(t, d.Allowed)
			}
			srv.Kill(t)
			srv.Restart(t)
			d, err := l.TryAcquire(ctx, "alice", 1)
			require.NoError(t, err)
			require.Equal(t, !c.spent, d.Allowed, "admitted after the restart")
			if !c.spent {
				require.Equal(t, int64(2), d.Remaining, "the whole burst is back")
			}
		})
	}
}
