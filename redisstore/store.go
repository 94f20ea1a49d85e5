package redisstore

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultNamespace is the namespace of a store given no WithNamespace option.
const DefaultNamespace = "ratelimit"

// Store keeps each subject's limiter state in one Redis hash and checks it with one atomic Lua
// script per call. It is safe for concurrent use; it holds no state of its own besides its options.
//
// The zero Store is not usable: build one with New.
type Store struct {
	client redis.UniversalClient
	script *redis.Script
	ns     string
	now    func() time.Time
	minTTL string // ms
}

// Option configures a Store.
type Option interface{ apply(*Store) }

type option func(*Store)

func (o option) apply(s *Store) { o(s) }

// WithNamespace sets the namespace that prefixes every key (DefaultNamespace by default). Stores
// of different namespaces never share a key, whatever their subjects.
func WithNamespace(ns string) Option { return option(func(s *Store) { s.ns = ns }) }

// WithClock makes the store send now() with every check, truncated to the microsecond, instead
// of letting the script read the server's TIME. Use it for tests and replays, and for managed
// servers that forbid TIME in scripts. Every process sharing keys should then keep close clocks:
// a clock behind the others cannot mint tokens (the script never moves a subject's time back),
// but keys expire by the server's clock.
func WithClock(now func() time.Time) Option { return option(func(s *Store) { s.now = now }) }

// WithMinTTL keeps every written key at least d (rounded up to the millisecond; 1ms by default)
// instead of only until its subject is full again. A key that outlives that instant decides exactly
// as an absent one, so this costs memory, never admissions. Use it with WithClock when the caller's
// clock runs slower than the server's (tests stepping through a timeline, slow replays): keys
// expire by the server's clock.
func WithMinTTL(d time.Duration) Option {
	return option(func(s *Store) {
		s.minTTL = strconv.FormatInt(max(1, (int64(d)+int64(time.Millisecond)-1)/int64(time.Millisecond)), 10)
	})
}

// New returns a store on client: a standalone, Sentinel, Ring or Cluster client all work, since
// every call touches one key.
func New(client redis.UniversalClient, opts ...Option) *Store {
	s := &Store{client: client, script: redis.NewScript(engineSource), ns: DefaultNamespace, minTTL: "1"}
	for _, o := range opts {
		o.apply(s)
	}
	return s
}

// Key returns the Redis key of a subject: the namespace's length, the namespace and the subject,
// so that no two (namespace, subject) pairs share a key.
func (s *Store) Key(subject string) string {
	return strconv.Itoa(len(s.ns)) + ":" + s.ns + ":" + subject
}

// Acquire takes cost tokens for subject under policy p, all or nothing, in one round trip. A
// refusal is a Decision; the error reports a backend failure, corrupt state (ErrCorrupt), or an
// invalid policy, cost or time (numerus.ErrInvalidArgument, before any server call).
func (s *Store) Acquire(ctx context.Context, p Policy, subject string, cost int64) (Decision, error) {
	return s.run(ctx, opAcquire, p, subject, cost)
}

// Peek reports whether subject could take one token under p now, and its balance, taking nothing
// and writing nothing.
func (s *Store) Peek(ctx context.Context, p Policy, subject string) (Decision, error) {
	return s.run(ctx, opPeek, p, subject, 1)
}

// Reset forgets subject: its next check starts from full.
func (s *Store) Reset(ctx context.Context, subject string) error {
	r := s.reset(subject)
	return s.fail(r, s.script.Run(ctx, s.client, r.keys(), r.args...).Err())
}

func (s *Store) run(ctx context.Context, op string, p Policy, subject string, cost int64) (Decision, error) {
	r, err := s.request(op, p, subject, cost)
	if err != nil {
		return Decision{}, err
	}
	return r.decision(s.script.Run(ctx, s.client, r.keys(), r.args...), s)
}
