// Package bind lets a store that decides in process (memory.Store) spare the checks of a
// keyed.Limiter of string subjects the framing of their key, its buffer and the copies of a
// Request: keyed.New binds the limiter's namespace and policy once, and TryAcquire and Peek then
// ask the Bound directly, with the subject as it is.
//
// A store binds by embedding a [Binder] under an unexported name (type binder = bind.Binder):
// the Binder's one method is unexported, so the store gains no name a user sees, and no store
// outside this repository can bind. [Of] binds only the store that made the Binder: a store that
// wraps it by embedding (struct{ *memory.Store } with an Acquire of its own, to count or log
// checks) gets the Binder too, but a Bound would skip the wrapper's methods, so the wrapper is
// sent Requests.
package bind

import (
	"time"

	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/typed"
)

// Bound decides for the subjects of one namespace under one policy, on the state of the store
// that bound it: its Acquire and Peek of subject are the store's of the Request with Key
// prefix+subject, the bound policy, cost and at. Instead of a Decision, they return what
// keyed.Decision.SetOutcome takes: the inplace.Outcome, whether admitted, and the instant decided
// at in nanoseconds since the Unix epoch (at, or the store's clock for the zero at). The Limiter
// only asks with costs from 1 to the policy's capacity; a Bound never fails, and is safe for
// concurrent use.
type Bound interface {
	Acquire(subject string, cost int64, at time.Time) (o inplace.Outcome, ok bool, ns int64)
	Peek(subject string, at time.Time) (o inplace.Outcome, ok bool, ns int64)
}

// Binder is what a store that binds embeds. Its zero value binds nothing.
type Binder struct {
	owner any
	bind  func(prefix string, p typed.Policy) Bound
}

// New returns the Binder of store, which is the store itself (as keyed.New is given it, a
// pointer) and binds with bind. bind returns the Bound of the keys prefix+subject under p, or nil
// to be sent Requests; prefix is a namespace framed as keyed.Request.Key frames it
// ("9:ratelimit:"), and p a policy that compiled and that the store accepted.
func New(store any, bind func(prefix string, p typed.Policy) Bound) Binder {
	return Binder{owner: store, bind: bind}
}

func (b Binder) binderOf() Binder { return b }

// binding is the method set that embedding a Binder gives.
type binding interface{ binderOf() Binder }

// Of returns the Bound of store for the namespace framed as prefix under p, or nil: when store
// does not bind, binds only through a store it embeds, or declines.
func Of(store any, prefix string, p typed.Policy) Bound {
	s, ok := store.(binding)
	if !ok {
		return nil
	}
	b := s.binderOf()
	if b.bind == nil || b.owner != store { // a wrapper holds another type: != never panics here
		return nil
	}
	return b.bind(prefix, p)
}
