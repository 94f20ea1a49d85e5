package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
)

// TestLogDropsExpiredFields: a log's hash holds its policy, its state and one field for each
// live entry but the newest (kept inline): entries that expire are deleted as they go, so a
// subject checked steadily keeps a bounded hash, not one field for every check it ever passed.
func TestLogDropsExpiredFields(t *testing.T) {
	c := redistest.Start(t).Client(t)
	clk := newClock(t0)
	l := limiter(t, redisstore.New(c, redisstore.WithMinTTL(time.Hour)), "sliding 100/3us", clk)
	ctx := context.Background()
	for i := range 50 {
		clk.set(t0.Add(time.Duration(i) * time.Microsecond))
		d, err := l.TryAcquire(ctx, "s", 1)
		require.NoError(t, err)
		require.True(t, d.Allowed)
		require.Equal(t, int64(100-min(i+1, 3)), d.Remaining)
	}
	// live at +49µs: the entries at 47, 48 and 49; fields p, 1, and the entries at 47 and 48.
	fields, err := c.HKeys(ctx, l.Key("s")).Result()
	require.NoError(t, err)
	require.Len(t, fields, 4, "fields %v", fields)
}
