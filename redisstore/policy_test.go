package redisstore_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/typed"
	"github.com/redis/go-redis/v9"
)

// TestEncoding: the script's encoding is canonical (rates reduced to tokens per µs, so policies
// that decide alike encode alike) and compact.
func TestEncoding(t *testing.T) {
	for text, want := range map[string]string{
		"gcra 10/s burst 5":                "g 1 100000 5",
		"gcra 20/2s burst 5":               "g 1 100000 5",
		"10/s":                             "s 1000000 10", // a bare rate is the sliding log
		"gcra 10/s":                        "g 1 100000 1", // of the default burst, 1
		"gcra 10/s burst 10":               "g 1 100000 10",
		"token 3/s burst 7":                "t 3 1000000 7",
		"leaky 1/1500us burst 7":           "l 1 1500 7",
		"gcra 2/3us burst 1":               "g 2 3 1",
		"gcra 1000000000/s burst 9":        "g 1000 1 9",
		"gcra 1/1500ns burst 2":            "g 2 3 2",
		"finite 9":                         "f 9",
		"window 4/s":                       "w 1000000 4 0",
		"count 4/1m":                       "c 60000000 4 0",
		"sliding 4/s":                      "s 1000000 4",
		"buckets 4/s in 1":                 "b 1000000 4 1000000",
		"buckets 4/s in 10":                "b 1000000 4 100000",
		"finite 3 & (finite 3 | finite 3)": "& 2 f 3 | 2 f 3 f 3",
	} {
		got, err := redisstore.Encoding(policy(text))
		require.NoError(t, err, text)
		require.Equal(t, want, got, text)
	}
}

// notExact are valid typed policies that the script cannot keep exact in integer microseconds
// at or below 2^53.
var notExact = map[string]typed.Spec{
	"burst·period > 2^53":  typed.Spec{Algo: typed.AlgoGCRA, Count: 1e9, Period: time.Second, Burst: 1 << 53},
	"refill > 71 years":    typed.Spec{Algo: typed.AlgoGCRA, Count: 1, Period: time.Hour, Burst: 1 << 20},
	"leaky 80 years":       {Algo: typed.AlgoLeaky, Count: 1, Period: 365 * 24 * time.Hour, Burst: 80},
	"rate beyond 2^53/µs":  {Algo: typed.AlgoGCRA, Count: 1 << 50, Period: time.Nanosecond, Burst: 1},
	"finite 2^53":          {Algo: typed.AlgoFinite, Count: 1 << 53},
	"window not in µs":     {Algo: typed.AlgoWindow, Count: 1, Period: 1500},
	"window > 71 years":    {Algo: typed.AlgoSliding, Count: 1, Period: 72 * 365 * 24 * time.Hour},
	"limit·window > 2^53":  {Algo: typed.AlgoCount, Count: 104250, Period: 24 * time.Hour},
	"sub-window not in µs": {Algo: typed.AlgoBuckets, Count: 1, Period: 3 * time.Millisecond, In: 2000},
	"limit 2^53":           {Algo: typed.AlgoSliding, Count: 1 << 53, Period: time.Second},
	"log limit 2^50+1":     {Algo: typed.AlgoSliding, Count: 1<<50 + 1, Period: time.Second},
	"bucketed 2^53-1":      {Algo: typed.AlgoBuckets, Count: 1<<53 - 1, Period: time.Second, In: 10},
	// one step past each bound
	"refill 2^51 µs and a half": {Algo: typed.AlgoGCRA, Count: 2, Period: time.Microsecond, Burst: 1<<52 + 1},
	"window 2^51+1 µs":          {Algo: typed.AlgoWindow, Count: 1, Period: (1<<51 + 1) * time.Microsecond},
	"window limit 2^53":         {Algo: typed.AlgoWindow, Count: 1 << 53, Period: time.Second},
	"limit·window 2^53+1":       {Algo: typed.AlgoCount, Count: (1<<53 + 1) / 3, Period: 3 * time.Microsecond},
	"in a tree":                 {Algo: typed.AlgoOr, Of: []typed.Spec{numerus.Must(typed.Parse("1/s")), {Algo: typed.AlgoFinite, Count: 1 << 53}}},
}

// TestCheckPolicy: what the script could not keep exact fails with numerus.ErrInvalidArgument, in
// CheckPolicy, in keyed.New and in every call given the policy, before any server call (the
// server here does not exist, and the client records every command).
func TestCheckPolicy(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c, hook := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ContextTimeoutEnabled: true}), &sent{}
	defer c.Close()
	c.AddHook(hook)
	s := redisstore.MustNew(c)
	ctx := context.Background()
	for name, sp := range notExact {
		p, err := typed.Compile(sp)
		require.NoError(t, err, name)
		require.ErrorIs(t, s.CheckPolicy(p), numerus.ErrInvalidArgument, name)
		_, err = keyed.New(s, sp, keyed.StringKey{})
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, name)
		_, err = s.Acquire(ctx, keyed.Request{Key: []byte("k"), Policy: p, Cost: 1})
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, name)
		_, err = s.Peek(ctx, keyed.Request{Key: []byte("k"), Policy: p, Cost: 1})
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, name)
	}
	for name, sp := range map[string]typed.Spec{
		"104249 · 8.64e10 µs is within 2^53": {Algo: typed.AlgoCount, Count: 104249, Period: 24 * time.Hour},
		"limit·window 2^53":                  {Algo: typed.AlgoCount, Count: 1 << 52, Period: 2 * time.Microsecond},
		"refill 2^51 µs":                     {Algo: typed.AlgoGCRA, Count: 2, Period: time.Microsecond, Burst: 1 << 52},
		"window 2^51 µs":                     {Algo: typed.AlgoWindow, Count: 1, Period: (1 << 51) * time.Microsecond},
		"window limit 2^53-1":                {Algo: typed.AlgoWindow, Count: 1<<53 - 1, Period: time.Second},
		"1000 children":                      children(1000),
	} {
		ok, err := typed.Compile(sp)
		require.NoError(t, err, name)
		require.NoError(t, s.CheckPolicy(ok), name)
	}
	_, err = typed.Compile(children(1001))
	require.ErrorIs(t, err, numerus.ErrInvalidArgument, "typed's limit, which CheckPolicy shares, keeps such a policy from the store")
	names, _ := hook.take()
	require.Empty(t, names)
}

// children returns an And of n finite buckets.
func children(n int) typed.Spec {
	sp := typed.Spec{Algo: typed.AlgoAnd}
	for range n {
		sp.Of = append(sp.Of, typed.Spec{Algo: typed.AlgoFinite, Count: 3})
	}
	return sp
}
