package memory

import (
	"context"

	"math/bits"
	"runtime"
	"strconv"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/internal/bind"
	"github.com/numerus-closus/numerus/typed"
)

// Store is the in-memory [keyed.Store]. Build one with [New].
//
// The zero Store is not usable: its methods panic.
type Store struct {
	shards []shard
	mask   uint64
	seed   seed
	names  names
	now    func() int64 // nil for the default clock: wall + the monotonic time since base
	base   time.Time
	wall   int64
	grace  int64
	limit  capacity
	binder // binds limiters of string subjects (see package bind); no name a user sees
}

type binder = bind.Binder

// DefaultGrace is how long a subject back to full keeps its entry, unless WithGrace says
// otherwise.
const DefaultGrace = time.Second

// Option configures a [Store].
type Option interface{ apply(*Store) }

type optionFunc func(*Store)

func (f optionFunc) apply(s *Store) { f(s) }

// WithClock makes the store read now() for requests that carry no instant, instead of its own
// clock (see the package doc's section on time). Tests pass a fake clock here, or run in a
// testing/synctest bubble.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(s *Store) { s.now = func() int64 { return kernel.FromTime(now()) } })
}

// WithGrace sets how long a subject back to full keeps its entry (DefaultGrace by default); zero
// drops entries once full. A grace longer than the gaps between a subject's checks keeps steady
// traffic from remaking entries. A check more than the grace behind an earlier instant is decided
// no earlier than the watermark of what was dropped.
func WithGrace(grace time.Duration) Option {
	return optionFunc(func(s *Store) { s.grace = int64(max(grace, 0)) })
}

// WithShards sets the number of shards, rounded up to a power of two (by default 16 per CPU,
// at least 64). A check takes its shard's lock: more shards mean less waiting when many
// goroutines check at once, and a little more memory.
func WithShards(n int) Option {
	return optionFunc(func(s *Store) { s.shards = make([]shard, pow2(max(n, 1))) })
}

// New returns an empty store.
func New(opts ...Option) *Store {
	base := time.Now()
	s := &Store{seed: newSeed(), base: base, wall: base.UnixNano(), grace: int64(DefaultGrace)}
	for _, o := range opts {
		o.apply(s)
	}
	if s.shards == nil {
		s.shards = make([]shard, pow2(max(64, 16*runtime.GOMAXPROCS(0))))
	}
	s.binder = bind.New(s, s.bind)
	s.mask = uint64(len(s.shards) - 1)
	s.names.init()
	for i := range s.shards {
		s.shards[i].t = newTable(minSlots)
	}
	return s
}

func pow2(n int) int { return 1 << bits.Len(uint(n-1)) }

// Acquire takes r.Cost tokens for the subject of r.Key under r.Policy, all or nothing; it ignores
// ctx. It returns an error matching numerus.ErrInvalidArgument, taking nothing, for an invalid
// request (a cost below 1 or above the policy's capacity, the zero Policy), and ErrFull for a new
// subject that a capped store ([WithMaxSubjects]) has no room for. A key not framed as keyed
// frames it is a subject of its own.
func (s *Store) Acquire(_ context.Context, r keyed.Request) (d keyed.Decision, err error) {
	if err := check(r.Policy, r.Cost); err != nil {
		return keyed.Decision{}, err
	}
	k := s.requestKey(r.Key)
	h := s.seed.hash(r.Key, k.n)
	o, ok, at, err := s.shard(h).acquire(s, h, &k, r.Policy, s.at(r.At), r.Cost)
	switch {
	case err != nil:
		return keyed.Decision{}, err
	case !ok && r.Cost > o.Limit: // refused with Never, taking nothing: found here, off the common path
		return keyed.Decision{}, costError(r, o.Limit)
	}
	d.SetOutcome(o, ok, at)
	return d, nil
}

// Peek reports whether the subject of r.Key could take one token, taking nothing. A subject
// found full for the grace or more is dropped, which changes no decision.
func (s *Store) Peek(_ context.Context, r keyed.Request) (d keyed.Decision, err error) {
	if err := check(r.Policy, 1); err != nil {
		return keyed.Decision{}, err
	}
	k := s.requestKey(r.Key)
	h := s.seed.hash(r.Key, k.n)
	o, ok, at := s.shard(h).peek(s, h, &k, r.Policy, s.at(r.At))
	d.SetOutcome(o, ok, at)
	return d, nil
}

// Reset drops the subject of r.Key: its next check starts from full.
func (s *Store) Reset(_ context.Context, r keyed.Request) error {
	k := s.requestKey(r.Key)
	h := s.seed.hash(r.Key, k.n)
	s.shard(h).reset(s, h, &k)
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

// Sweep moves each shard's clock hand over up to n entries, drops those full for the grace or
// more at the store's clock, and returns how many it dropped, locking one shard at a time. Do not
// sweep a store whose requests carry instants of another clock unless WithClock gives it that
// clock: a dropped subject is decided no earlier than it was full.
func (s *Store) Sweep(n int) int {
	at, dropped := s.clock(), 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		dropped += sh.sweep(s, at, n)
		sh.mu.Unlock()
	}
	return dropped
}

// at returns the instant of a request in nanoseconds since the Unix epoch: its At, or the
// store's clock if At is zero.
func (s *Store) at(at time.Time) int64 {
	if at == (time.Time{}) && s.now == nil { // the common case: the zero Time itself, not an instant
		return s.wall + int64(time.Since(s.base)) // clock's, one call less on every check
	}
	return s.instant(at)
}

// instant is at for every case.
func (s *Store) instant(at time.Time) int64 {
	switch {
	case !at.IsZero():
		return kernel.FromTime(at)
	case s.now != nil:
		return s.now()
	}
	return s.clock()
}

// requestKey returns the key of a Request's bytes, its namespace numbered.
func (s *Store) requestKey(b []byte) key {
	k := requestKey(b)
	k.name = s.names.id(b[:k.n])
	return k
}

// clock reads the store's clock. The default one reads only the monotonic clock, which costs
// half of what time.Now does: the wall time read at New plus the monotonic time elapsed since.
func (s *Store) clock() int64 {
	if s.now != nil {
		return s.now()
	}
	return s.wall + int64(time.Since(s.base))
}

func (s *Store) shard(h uint64) *shard { return &s.shards[h&s.mask] }

var (
	errCost   = &numerus.ParamError{Param: "cost", Problem: "must be at least 1"}
	errPolicy = &numerus.ParamError{Param: "policy", Problem: "is the zero Policy"}
)

// costError is the error of a request whose cost exceeds its policy's capacity, limit.
func costError(r keyed.Request, limit int64) error {
	return &numerus.ParamError{Param: "cost", Problem: "must be from 1 to the capacity " +
		strconv.FormatInt(limit, 10) + " of " + r.Policy.String() + ", got " + strconv.FormatInt(r.Cost, 10)}
}

func check(p typed.Policy, cost int64) error {
	switch {
	case cost < 1:
		return errCost
	case p == typed.Policy{}:
		return errPolicy
	}
	return nil
}
