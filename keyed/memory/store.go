package memory

import (
	"context"
	"hash/maphash"
	"math/bits"
	"runtime"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/typed"
)

// Store is the in-memory [keyed.Store]. Build one with [New].
//
// The zero Store is not usable: its methods panic.
type Store struct {
	shards []shard
	mask   uint64
	seed   maphash.Seed
	now    func() time.Time
	grace  time.Duration
}

// DefaultGrace is how long a subject back to full keeps its entry, unless WithGrace says
// otherwise.
const DefaultGrace = time.Second

// Option configures a [Store].
type Option interface{ apply(*Store) }

type optionFunc func(*Store)

func (f optionFunc) apply(s *Store) { f(s) }

// WithClock makes the store read now() for requests that carry no instant, instead of the real
// clock. Tests pass a fake clock here, or run in a testing/synctest bubble.
func WithClock(now func() time.Time) Option { return optionFunc(func(s *Store) { s.now = now }) }

// WithGrace sets how long a subject back to full keeps its entry (DefaultGrace by default): an
// entry is dropped once its subject has been full for grace. Zero drops entries as soon as they
// are full; a grace longer than the gaps between a subject's checks spares subjects that refill
// between checks from having their entry dropped and made again, so steady traffic neither
// churns nor allocates. Decisions do not depend on it.
func WithGrace(grace time.Duration) Option {
	return optionFunc(func(s *Store) { s.grace = max(grace, 0) })
}

// WithShards sets the number of shards, rounded up to a power of two (by default 16 per CPU,
// at least 64). More shards mean less contention between subjects and a little more memory.
func WithShards(n int) Option {
	return optionFunc(func(s *Store) { s.shards = make([]shard, pow2(max(n, 1))) })
}

// New returns an empty store.
func New(opts ...Option) *Store {
	s := &Store{seed: maphash.MakeSeed(), now: time.Now, grace: DefaultGrace}
	for _, o := range opts {
		o.apply(s)
	}
	if s.shards == nil {
		s.shards = make([]shard, pow2(max(64, 16*runtime.GOMAXPROCS(0))))
	}
	s.mask = uint64(len(s.shards) - 1)
	for i := range s.shards {
		s.shards[i].m = make(map[string]int32)
	}
	return s
}

func pow2(n int) int { return 1 << bits.Len(uint(n-1)) }

// Acquire takes r.Cost tokens for the subject of r.Key under r.Policy, all or nothing. It
// returns an error only for an invalid request (a cost below 1, the zero Policy), matching
// numerus.ErrInvalidArgument; it ignores ctx, as it never blocks on anything but its shard.
func (s *Store) Acquire(_ context.Context, r keyed.Request) (keyed.Decision, error) {
	if err := check(r); err != nil {
		return keyed.Decision{}, err
	}
	at := s.at(r)
	return s.shard(r.Key).acquire(r, at, s.grace), nil
}

// Peek reports whether the subject of r.Key could take one token, taking nothing. A subject
// found full for the grace or more is dropped, which changes no decision.
func (s *Store) Peek(_ context.Context, r keyed.Request) (keyed.Decision, error) {
	if err := check(keyed.Request{Policy: r.Policy, Cost: 1}); err != nil {
		return keyed.Decision{}, err
	}
	at := s.at(r)
	return s.shard(r.Key).peek(r, at, s.grace), nil
}

// Reset drops the subject of r.Key: its next check starts from full.
func (s *Store) Reset(_ context.Context, r keyed.Request) error {
	s.shard(r.Key).reset(r.Key)
	return nil
}

// Len returns the number of subjects held: those below full, and those back to full that no
// hand has dropped yet.
func (s *Store) Len() int {
	n := 0
	for i := range s.shards {
		n += s.shards[i].len()
	}
	return n
}

// Sweep moves each shard's clock hand over up to n entries, at the store's clock, drops those
// full for the grace or more, and returns how many it dropped. It holds one shard's lock at a
// time, so concurrent checks wait for at most n entries of one shard. Call it from a goroutine
// or a timer of your own to give memory back after traffic stops: the store never sweeps on its
// own beyond the two entries each new subject checks.
func (s *Store) Sweep(n int) int {
	at, dropped := s.now(), 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		dropped += sh.sweep(at, s.grace, n)
		sh.mu.Unlock()
	}
	return dropped
}

func (s *Store) at(r keyed.Request) time.Time {
	if r.At.IsZero() {
		return s.now()
	}
	return r.At
}

func (s *Store) shard(key []byte) *shard {
	return &s.shards[maphash.Bytes(s.seed, key)&s.mask]
}

var (
	errCost   = &numerus.ParamError{Param: "cost", Problem: "must be at least 1"}
	errPolicy = &numerus.ParamError{Param: "policy", Problem: "is the zero Policy"}
)

func check(r keyed.Request) error {
	switch {
	case r.Cost < 1:
		return errCost
	case r.Policy == typed.Policy{}:
		return errPolicy
	}
	return nil
}
