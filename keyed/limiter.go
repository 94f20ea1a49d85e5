package keyed

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed/internal/bind"
	"github.com/numerus-closus/numerus/keyed/internal/frame"
	"github.com/numerus-closus/numerus/typed"
)

// DefaultNamespace is the namespace of a Limiter built without WithNamespace.
const DefaultNamespace = "ratelimit"

// Limiter limits each subject of type S on its own under one policy, with the state kept in a
// [Store]: TryAcquire takes tokens, Peek looks, Reset forgets. Limiters of one namespace share
// each subject's state, across processes (with a shared store) and across policy changes.
//
// A Limiter is an immutable value, safe for concurrent use. The zero Limiter has no store: every
// method returns an error matching numerus.ErrInvalidArgument.
type Limiter[S any] struct {
	c *config[S]
}

type config[S any] struct {
	store  Store
	policy typed.Policy
	limit  int64
	codec  Codec[S]
	ns     string
	prefix []byte // the namespace framed, as frame.AppendPrefix writes it
	now    func() time.Time
	bufs   sync.Pool  // of *keyBuf
	bound  bind.Bound // the store's Bound of the namespace, for string subjects; else nil
}

// Option configures a [Limiter].
type Option interface{ apply(*options) }

type options struct {
	ns  string
	now func() time.Time
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithNamespace sets the namespace of the keys (DefaultNamespace by default). It may be any
// string: keys are framed with its length, so no namespace is a prefix of another's keys.
func WithNamespace(ns string) Option { return optionFunc(func(o *options) { o.ns = ns }) }

// WithClock makes the Limiter send now() as the instant of every check, instead of letting the
// store use its own clock (the real clock in process, the server's clock for a remote store).
// Use it for tests and replays; processes that share a remote store should otherwise leave the
// clock to the server.
func WithClock(now func() time.Time) Option { return optionFunc(func(o *options) { o.now = now }) }

// New returns the Limiter of policy on store, with subjects encoded by codec. It returns an error
// matching numerus.ErrInvalidArgument, before any call to the store's backend, naming the
// parameter: if store, codec or an option is nil (or a nil pointer), if the policy is invalid
// (typed.Spec.Validate), if a period or window is shorter than [MinPeriod], or if the store
// cannot run it ([PolicyChecker]).
func New[S any](store Store, policy typed.Spec, codec Codec[S], opts ...Option) (Limiter[S], error) {
	switch {
	case isNil(store):
		return Limiter[S]{}, &numerus.ParamError{Param: "store", Problem: "must not be nil"}
	case isNil(codec):
		return Limiter[S]{}, &numerus.ParamError{Param: "codec", Problem: "must not be nil"}
	}
	p, limit, err := compile(policy)
	if err != nil {
		return Limiter[S]{}, err
	}
	if pc, ok := store.(PolicyChecker); ok {
		if err := pc.CheckPolicy(p); err != nil {
			return Limiter[S]{}, err
		}
	}
	o := options{ns: DefaultNamespace}
	for _, opt := range opts {
		if opt == nil {
			return Limiter[S]{}, &numerus.ParamError{Param: "option", Problem: "must not be nil"}
		}
		opt.apply(&o)
	}
	c := &config[S]{store: store, policy: p, limit: limit, codec: codec, ns: o.ns, now: o.now}
	c.prefix = frame.AppendPrefix(nil, o.ns)
	c.bufs.New = func() any { return &keyBuf{b: make([]byte, 0, 64), enc: make([]byte, 0, 64)} }
	c.bind()
	return Limiter[S]{c}, nil
}

// isNil reports whether v, a store or a codec, is nil, or a nil pointer, map, slice, channel or
// function in the interface: a value that cannot run, which New rejects rather than let a check
// panic. (A nil pointer whose methods never read it could run; New rejects it all the same.)
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch v := reflect.ValueOf(v); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func:
		return v.IsNil()
	}
	return false
}

// TryAcquire takes cost tokens for subject, all or nothing, and returns the Decision. A refusal
// takes nothing and is a Decision with Allowed false; the error reports an invalid cost (below 1
// or above the policy's capacity, matching numerus.ErrInvalidArgument, before any store call) or
// a failure of the store.
func (l Limiter[S]) TryAcquire(ctx context.Context, subject S, cost int64) (d Decision, err error) {
	c := l.c
	if c != nil && c.bound != nil && 1 <= cost && cost <= c.limit { // checkCost's, without a call
		o, ok, at := c.bound.Acquire(any(subject).(string), cost, c.at())
		d.SetOutcome(o, ok, at)
		return d, nil
	}
	return l.acquire(ctx, subject, cost)
}

// acquire is TryAcquire through the store's Acquire, apart so that the bound check's frame stays
// small.
func (l Limiter[S]) acquire(ctx context.Context, subject S, cost int64) (d Decision, err error) {
	c := l.c
	if err := l.checkCost(cost); err != nil {
		return Decision{}, err
	}
	kb, key := c.key(subject)
	d, err = c.store.Acquire(ctx, Request{Key: key, Policy: c.policy, Cost: cost, At: c.at()})
	c.release(kb, key)
	if err != nil {
		return Decision{}, wrap(opAcquire, err)
	}
	return d, nil
}

// Peek reports whether subject could take one token now, and its balance and waits, taking
// nothing: Allowed while at least one token is available, and otherwise refused with the wait
// until one is.
func (l Limiter[S]) Peek(ctx context.Context, subject S) (d Decision, err error) {
	c := l.c
	if c == nil {
		return Decision{}, errZero
	}
	if c.bound != nil {
		o, ok, at := c.bound.Peek(any(subject).(string), c.at())
		d.SetOutcome(o, ok, at)
		return d, nil
	}
	kb, key := c.key(subject)
	d, err = c.store.Peek(ctx, Request{Key: key, Policy: c.policy, Cost: 1, At: c.at()})
	c.release(kb, key)
	if err != nil {
		return Decision{}, wrap(opPeek, err)
	}
	return d, nil
}

// Reset forgets subject: its next check starts from full.
func (l Limiter[S]) Reset(ctx context.Context, subject S) error {
	c := l.c
	if c == nil {
		return errZero
	}
	kb, key := c.key(subject)
	err := c.store.Reset(ctx, Request{Key: key})
	c.release(kb, key)
	if err != nil {
		return wrap(opReset, err)
	}
	return nil
}

// Key returns the store key of subject (see [Request.Key]).
func (l Limiter[S]) Key(subject S) string {
	if l.c == nil {
		return ""
	}
	return string(frame.Append(nil, l.c.ns, l.c.codec.AppendKey(nil, subject)))
}

// Request returns the request TryAcquire would send the store for cost tokens of subject, for a
// store's batch methods. It checks nothing; the store does.
func (l Limiter[S]) Request(subject S, cost int64) Request {
	if l.c == nil {
		return Request{Cost: cost}
	}
	key := frame.Append(nil, l.c.ns, l.c.codec.AppendKey(nil, subject))
	return Request{Key: key[:len(key):len(key)], Policy: l.c.policy, Cost: cost, At: l.c.at()}
}

// Policy returns the Limiter's policy.
func (l Limiter[S]) Policy() typed.Policy {
	if l.c == nil {
		return typed.Policy{}
	}
	return l.c.policy
}

// Namespace returns the Limiter's namespace.
func (l Limiter[S]) Namespace() string {
	if l.c == nil {
		return ""
	}
	return l.c.ns
}

var errZero = &numerus.ParamError{Param: "limiter", Problem: "is the zero Limiter: build one with New"}

func (l Limiter[S]) checkCost(cost int64) error {
	switch {
	case l.c == nil:
		return errZero
	case cost < 1:
		return &numerus.ParamError{Param: "cost", Problem: "must be at least 1, got " + strconv.FormatInt(cost, 10)}
	case cost > l.c.limit:
		return &numerus.ParamError{Param: "cost", Problem: strconv.FormatInt(cost, 10) +
			" exceeds the capacity " + strconv.FormatInt(l.c.limit, 10) + " of " + l.c.policy.String()}
	}
	return nil
}

type op uint8

const (
	opAcquire op = iota
	opPeek
	opReset
)

var opNames = [...]string{"acquire", "peek", "reset"}

func wrap(o op, err error) error { return fmt.Errorf("keyed: %s: %w", opNames[o], err) }

// keyBuf is a pooled key buffer. It fills a cache line of its own, so that the processors
// writing their buffers' headers never write to one line.
type keyBuf struct {
	b   []byte // the framed key
	enc []byte // the codec's encoding of the subject
	_   [64 - 48]byte
}

// bind asks the store for the Bound of the namespace, when subjects are strings that StringKey
// encodes as they are: checks then pass the subject without framing a key (see package bind).
func (c *config[S]) bind() {
	if _, str := any(c.codec).(StringKey); str {
		c.bound = bind.Of(c.store, string(c.prefix), c.policy)
	}
}

// key frames the key of subject in a pooled buffer, which release gives back. The pool spares
// each check an allocation: the key goes to the store through an interface, so a buffer on the
// stack would escape.
func (c *config[S]) key(subject S) (*keyBuf, []byte) {
	kb := c.bufs.Get().(*keyBuf)
	// The codec appends to a buffer of its own, and the key frames what it returned: a codec that
	// ignores dst, rewrites it or returns memory it does not own can neither lose the namespace nor
	// hand that memory to the pool, which holds only buffers of ours.
	enc := c.codec.AppendKey(kb.enc[:0], subject)
	if len(enc) > cap(kb.enc) && len(enc) <= 1<<10 { // it allocated: room of ours for the next check
		kb.enc = make([]byte, 0, len(enc)) // (beyond 1 KiB release drops the buffer anyway)
	}
	return kb, append(append(kb.b[:0], c.prefix...), enc...)
}

func (c *config[S]) release(kb *keyBuf, key []byte) {
	if cap(key) <= 1<<10 && cap(kb.enc) <= 1<<10 {
		kb.b = key[:0]
		c.bufs.Put(kb)
	}
}

// at returns the instant a request carries: the limiter's clock, or zero for the store's.
func (c *config[S]) at() time.Time {
	if c.now == nil {
		return time.Time{}
	}
	return c.now()
}
