package keyed

import (
	"context"
	"time"

	"github.com/numerus-closus/numerus/typed"
)

// Store keeps the state of every subject and runs the policy on it, atomically, in process or on
// a server; the keyed [Limiter] frames the key and checks the arguments.
//
// Every method takes ctx first and returns an error only for a failure of the store itself: a
// refusal is a Decision. A store must be safe for concurrent use and pass [storetest].
//
// [storetest]: https://pkg.go.dev/github.com/numerus-closus/numerus/keyed/storetest
type Store interface {
	// Acquire takes r.Cost tokens for the subject of r.Key under r.Policy at r.At, all or
	// nothing. A refusal takes no token (it may keep the subject's state carried over to
	// r.Policy, see the package doc's Policy change).
	Acquire(ctx context.Context, r Request) (Decision, error)
	// Peek reports whether the subject could take one token at r.At, and its balance, taking
	// nothing (it may keep the state carried over to r.Policy, as Acquire). r.Cost is 1.
	Peek(ctx context.Context, r Request) (Decision, error)
	// Reset forgets the subject of r.Key: its next check starts from full. Only r.Key is set.
	Reset(ctx context.Context, r Request) error
}

// Request is one check that a [Limiter] asks of its [Store]. A Limiter only sends valid ones: a
// framed Key, a Policy the store accepted ([PolicyChecker]), and a Cost from 1 to the policy's
// capacity. A store given anything else returns an error matching numerus.ErrInvalidArgument,
// taking nothing, and never panics.
type Request struct {
	// Key identifies the subject: the namespace's length in decimal, ':', the namespace, ':',
	// then the subject as its codec encodes it (see [Codec]). No two (namespace, subject) pairs
	// share a key. Key is valid only during the call: the Limiter reuses its buffer afterwards, so
	// a store that keeps the key must copy it (string(r.Key) does).
	Key []byte
	// Policy is the policy to run. A subject whose state was kept under another policy continues
	// under this one as typed.Policy.Continue says: it keeps the lesser of its tokens and the new
	// capacity.
	Policy typed.Policy
	// Cost is the tokens to take, from 1 to the policy's capacity.
	Cost int64
	// At is the instant of the check, or the zero time for the store's own clock (the real clock
	// of the memory store, the server's clock of a remote one). A store whose clock is coarser
	// than a nanosecond truncates At to its resolution.
	At time.Time
}

// PolicyChecker is implemented by a [Store] that cannot run every policy the keyed package
// accepts (a store whose arithmetic is narrower than int64 nanoseconds, say). [New] calls
// CheckPolicy once, before it returns; the error should match numerus.ErrInvalidArgument. It
// must not call a backend.
type PolicyChecker interface {
	CheckPolicy(p typed.Policy) error
}
