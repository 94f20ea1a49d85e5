package redisstore

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/redis/go-redis/v9"
)

// Store is a keyed.Store that keeps each subject's state in one Redis key and checks it with
// one atomic Lua script per call. It implements keyed.PolicyChecker, so keyed.New refuses a
// policy the script cannot keep exact. It is safe for concurrent use.
//
// The zero Store is not usable: build one with New.
type Store struct {
	client   redis.UniversalClient
	script   *redis.Script
	sha      any      // the script's hash, a string boxed once
	minTTL   any      // ms, a string
	programs sync.Map // typed.Policy → *program
	cached   atomic.Int64
	single   bool       // the client is one server's: batches group by policy
	co       *coalescer // nil when acquires are not coalesced
}

var (
	_ keyed.Store         = (*Store)(nil)
	_ keyed.PolicyChecker = (*Store)(nil)
)

// Option configures a Store.
type Option interface{ apply(*Store) }

type option func(*Store)

func (o option) apply(s *Store) { o(s) }

// WithMinTTL keeps every written key at least d (1ms by default), not only until its subject is
// full again. It costs memory and changes no decision. Use it when requests carry the caller's
// time on a timeline slower than the server's clock (tests, replays), and when subjects refill
// within milliseconds, whose keys would otherwise be made anew at every check;
// WithMinTTL(time.Second) suits the latter.
func WithMinTTL(d time.Duration) Option {
	return option(func(s *Store) {
		ms := d / time.Millisecond // rounded up, without overflowing for the largest d
		if d%time.Millisecond > 0 {
			ms++
		}
		s.minTTL = strconv.FormatInt(max(1, int64(ms)), 10)
	})
}

// WithKeyPerCall makes every script call touch one key, as on a cluster, even through a
// *redis.Client: for a proxy that spreads keys over servers (twemproxy, Envoy). Batches then
// cost the server more.
func WithKeyPerCall() Option { return option(func(s *Store) { s.single = false }) }

// New returns a store on client: standalone, Sentinel, Ring and Cluster clients all work. The
// client must honour its callers' deadlines: New returns an error matching
// numerus.ErrInvalidArgument for a go-redis client without ContextTimeoutEnabled.
func New(client redis.UniversalClient, opts ...Option) (*Store, error) {
	if !honoursDeadlines(client) {
		return nil, &numerus.ParamError{Param: "client", Problem: "must set ContextTimeoutEnabled, so that no check waits past its context's deadline"}
	}
	script := redis.NewScript(engineSource)
	s := &Store{client: client, script: script, sha: script.Hash(), minTTL: "1", co: newCoalescer(defaultInFlight)}
	_, s.single = client.(*redis.Client)
	for _, o := range opts {
		o.apply(s)
	}
	return s, nil
}

// honoursDeadlines reports whether a go-redis client applies its callers' deadlines to its
// reads and writes; clients of other types are taken to.
func honoursDeadlines(c redis.UniversalClient) bool {
	switch c := c.(type) {
	case *redis.Client:
		return c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		return c.Options().ContextTimeoutEnabled
	}
	return true
}

// defaultInFlight is how many round trips of acquires a Store has in flight at most, by default.
const defaultInFlight = 2

// WithCoalescing sets how many round trips of acquires the store keeps in flight, 2 by default.
// An Acquire made while n are in flight goes in the next, with every acquire that waited
// meanwhile, as one batch. n below 1 turns coalescing off.
func WithCoalescing(n int) Option {
	return option(func(s *Store) {
		s.co = nil
		if n >= 1 {
			s.co = newCoalescer(n)
		}
	})
}

// Acquire takes r.Cost tokens for the subject of r.Key under r.Policy, all or nothing, at r.At
// (truncated to the microsecond) or, when r.At is zero, at the server's clock. The error is a
// backend failure, corrupt state (ErrCorrupt), or an invalid request, matching
// numerus.ErrInvalidArgument before any call: a policy the script cannot run, a cost out of range,
// an instant outside 1970 to 2112.
func (s *Store) Acquire(ctx context.Context, r keyed.Request) (keyed.Decision, error) {
	return s.run(ctx, opAcquire, r)
}

// Peek reports whether the subject of r.Key could take one token under r.Policy at r.At (or the
// server's clock), and its balance and waits, taking nothing and writing nothing. r.Cost is
// ignored.
func (s *Store) Peek(ctx context.Context, r keyed.Request) (keyed.Decision, error) {
	return s.run(ctx, opPeek, r)
}

// Reset forgets the subject of r.Key (only r.Key is read): its next check starts from full.
func (s *Store) Reset(ctx context.Context, r keyed.Request) error {
	c := reset(r)
	return c.fail(s.exec(ctx, c).Err())
}

func (s *Store) run(ctx context.Context, op string, r keyed.Request) (keyed.Decision, error) {
	c, err := s.call(op, r)
	if err != nil {
		return keyed.Decision{}, err
	}
	if op == opAcquire && s.co != nil {
		return s.co.acquire(ctx, s, c)
	}
	d, err := c.decision(s.exec(ctx, c))
	return d, withCause(ctx, err)
}

// exec sends c as one EVALSHA or, if the server does not hold the script (after a SCRIPT FLUSH, a
// restart or a failover), as one EVAL, as redis.Script.Run does.
func (s *Store) exec(ctx context.Context, c call) *redis.Cmd {
	cmd := c.command(ctx, "evalsha", s.sha, s.minTTL)
	if err := s.client.Process(ctx, cmd); noScript(err) {
		cmd = c.command(ctx, "eval", engineSource, s.minTTL)
		_ = s.client.Process(ctx, cmd)
	}
	return cmd
}
