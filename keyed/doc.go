// Package keyed limits each subject on its own (per API key, per account, per client address)
// under one policy, with every subject's state kept in a [Store]: in process ([memory.Store])
// or on a server that many processes share (the Redis store).
//
//	policy, err := typed.Parse("100/s") // at most 100 in any second
//	lim, err := keyed.New(memory.New(), policy, keyed.StringKey{})
//	d, err := lim.TryAcquire(ctx, apiKey, 1)
//	if !d.Allowed {
//		wait, ok := d.RetryAfter.Duration() // ok is false when no wait will do
//	}
//
// # Policies
//
// A policy is any typed.Spec, written as data or in the notation of package typed
// ("gcra 10/s burst 5 & window 1000/h"). [New] validates it once; every period must be at least
// [MinPeriod].
//
// # Decisions
//
// [Limiter.TryAcquire] takes tokens all or nothing and returns a [Decision]: Allowed, the
// Remaining tokens (rounded down), the Limit, and waits rounded up: RetryAfter, until the same
// request would be admitted, and FullAfter, until the subject is full. A [Duration] is a duration
// or Never, so a request that can never succeed is never told to wait.
//
// A refusal takes nothing and is not an error. Errors are invalid arguments (matching
// numerus.ErrInvalidArgument, before any store call) and failures of the store.
//
// [Limiter.Peek] takes nothing. [Limiter.Reset] forgets a subject, which starts full again.
//
// # Keys
//
// A [Codec] ([StringKey], [BytesKey], [IntKey], [CodecFunc]) encodes subjects. Each key is
// framed with its namespace ([WithNamespace]), so no two (namespace, subject) pairs collide.
//
// # Policy change
//
// Limiters of one namespace share their subjects' state. A subject checked under a new policy
// carries over at most the tokens it had (typed.Policy.Continue), so a change never refills it.
// A namespace is meant to hold one policy at a time: roll a change out to all its limiters at
// once, or under a namespace of its own. Limiters of two policies checking the same subjects in
// turn each carry them over to their own, and give back less than either would alone. To
// enforce two policies at once, compose them with an And, or give each its own namespace.
//
// # Time
//
// By default the store reads its own clock: the process's, or the server's, so that processes
// with skewed clocks agree. [WithClock] makes the limiter send its own instants, for tests and
// replays. A clock that steps back credits nothing.
//
// # Stores
//
// A [Store] receives a [Request] (the framed key, the compiled typed.Policy, the cost, the
// instant) and returns a Decision, running the policy atomically. [Debit] and [Inspect] do the
// work for a store that keeps typed.States. Every store must pass [storetest].
//
// # Concurrency
//
// A Limiter is an immutable value, safe for concurrent use; the store serializes each
// subject's updates. Many goroutines on one subject are admitted exactly the policy's bound.
//
// # Performance
//
// A check on the memory store allocates nothing under a policy that holds no sliding log and
// fits a typed.State's inline words.
//
// [memory.Store]: https://pkg.go.dev/github.com/numerus-closus/numerus/keyed/memory#Store
// [storetest]: https://pkg.go.dev/github.com/numerus-closus/numerus/keyed/storetest
package keyed
