// Package keyed limits each subject on its own — per API key, per account, per client address —
// under one policy, with every subject's state kept in a [Store]: in process
// ([memory.Store]) or on a server shared by many processes (the Redis store).
//
//	store := memory.New()
//	policy, err := typed.Parse("100/s") // at most 100 in any second
//	lim, err := keyed.New(store, policy, keyed.StringKey{})
//	d, err := lim.TryAcquire(ctx, apiKey, 1)
//	if !d.Allowed {
//		wait, ok := d.RetryAfter.Duration() // ok is false when no wait will do
//	}
//
// # Policies
//
// A policy is any typed.Spec: a token bucket, a GCRA, a leaky bucket, a fixed window, a sliding
// log or counter, a finite bucket, or And/Or trees of them, written as data or in the notation
// of package typed ("gcra 10/s burst 5 & window 1000/h"): "100/s" is at most 100 in any second,
// all available at once (the sliding log), and "gcra 10/s burst 20" sustains 10 a second with
// 20 at once. The package has no policy constructors of its own: a keyed policy is written in the
// notation (typed.Parse) or as a typed.Spec, as every other policy of numerus. [New] validates
// the policy once; every period must be at least [MinPeriod].
//
// # Decisions
//
// [Limiter.TryAcquire] takes tokens all or nothing and returns a [Decision]: Allowed, the
// Remaining tokens (rounded down; on a refusal, the untouched balance), the Limit, and three waits
// rounded up — RetryAfter, until the same request would be admitted, RefillAfter, until one more
// token, and FullAfter, until the subject is full again. The time until full has one name across
// numerus: an instant is Full (numerus.Status.Full), a duration FullAfter. A [Duration] is a
// duration or never (its zero value, [Duration.IsNever]), so a request that can never succeed (a
// spent finite bucket) is never told to wait; the package has no Never of its own, and its
// Duration is not called Wait, so that each name of numerus means one thing. A refusal takes
// nothing and is never an error; errors are for invalid arguments (matching
// numerus.ErrInvalidArgument, before any store call: a cost below 1 or above the policy's
// capacity) and failures of the store.
//
// [Limiter.Peek] refills by the time elapsed and takes nothing: Allowed while at least one token
// is available, otherwise refused with the wait until one is. [Limiter.Reset] forgets a subject:
// its next request starts from full.
//
// # Keys
//
// Subjects of any type are encoded by a [Codec] ([StringKey], [BytesKey], [IntKey], or a
// [CodecFunc]) and framed with the namespace ([DefaultNamespace] unless [WithNamespace] says
// otherwise) as length, namespace, subject, so no two (namespace, subject) pairs share a key.
//
// # Policy change
//
// Limiters of one namespace share their subjects' state, also across policies: a subject
// checked under a new policy carries over the lesser of its tokens and the new capacity (see
// typed.Policy.Continue), so switching between policies never hands out a full bucket. The
// carry happens at the first check under the new policy, admitted or not (a Peek too): from then
// on the subject refills at the new policy's pace. (A carried state that is full is not kept:
// the subject is full under the new policy at every later check anyway, and kept, it would carry
// back to the old policy as full.) A subject back to full under its old policy starts full under
// the new one.
//
// A namespace is meant to hold one policy at a time, and a change to move all its limiters from
// one to the next at once. While limiters of two policies check the same subjects, each check
// carries a subject over to its own policy, and a carry counts whole tokens only, as used at its
// instant. A bucket (gcra, token, leaky) drops the part of a token refilled since the last whole
// one, so a subject checked by the two in turn more often than it refills a token gets no tokens
// back while that lasts (a Peek under the other policy is enough), and one checked less often
// refills at the pace of the policy that checked it last, less a part of a token at each switch.
// A window counts the tokens carried as used at the switch: a sliding window (count, sliding,
// buckets) holds them for a whole window from each switch, so switched more often than that it
// gets none back, and a fixed window until its next boundary, where it starts afresh as ever.
// Roll a change out to every limiter of a namespace together, or under a namespace of its own
// (whose subjects start full). To enforce two policies at once, give each a namespace of its own
// ([WithNamespace]), or compose them into one (an And).
//
// # Time
//
// By default the store reads its own clock: the real clock in process, the server's for a remote
// store, so that processes with skewed clocks agree. [WithClock] makes the limiter send its own
// instants instead, for tests and replays. An instant earlier than a subject's latest counts as
// that one: a clock stepping back credits nothing.
//
// # Stores
//
// A [Store] receives a [Request] (the framed key, the compiled typed.Policy, the cost and the
// instant) and returns a Decision; it runs the policy itself, atomically. [Debit] and [Inspect]
// are what a store that keeps typed.States runs; one that keeps them in place, as the memory store
// does, runs typed.Policy.DebitIn and PeekIn and answers with [Decision.SetOutcome]. Package
// [storetest] checks a store against the numerus limiters of the same policy; every store must
// pass it.
//
// # Concurrency
//
// A Limiter is an immutable value, safe for concurrent use; the store serializes each subject's
// updates. Many goroutines on one subject are admitted exactly the policy's bound.
//
// # Performance
//
// A check of an existing subject allocates nothing on the memory store, under every policy
// without a sliding log whose state fits typed.State's inline words (see package memory). The
// memory store binds a Limiter of string subjects ([StringKey]) at [New]: it takes the subject as
// it is, with the namespace and policy bound once, so a check frames no key and builds no
// Request. This is internal to the repository's stores, and a store that wraps the memory store
// by embedding it is sent Requests like any other, so that its own methods see every check.
// Other limiters frame the key in a pooled buffer, which the store looks up without copying it.
// See the benchmarks of package memory.
//
// [memory.Store]: https://pkg.go.dev/github.com/numerus-closus/numerus/keyed/memory#Store
// [storetest]: https://pkg.go.dev/github.com/numerus-closus/numerus/keyed/storetest
package keyed
