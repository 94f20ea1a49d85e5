// Package redisstore keeps numerus limiters on Redis, so that a limit holds across every process
// pointed at the same server. Each subject's state lives in one hash, and every check is one
// atomic Lua script: one round trip (EVALSHA, falling back to EVAL when the server lost the
// script), the first check of a new subject included.
//
//	store := redisstore.New(client) // a *redis.Client, Ring, ClusterClient or any UniversalClient
//	policy := numerus.Must(redisstore.GCRA(numerus.PerSecond(10), 20))
//	d, err := store.Acquire(ctx, policy, "user:42", 1)
//	if err != nil {
//		// the server could not answer: see FailOpen and FailClosed
//	}
//	if !d.Allowed {
//		// refused: d.RetryAfter says how long to wait, or Never
//	}
//
// # Policies
//
// A [Policy] is any numerus algorithm — [GCRA], [TokenBucket], [LeakyBucket], [FiniteBucket],
// [FixedWindow], [SlidingWindowCount], [SlidingWindow], [SlidingWindowBucketed] — or an And/Or
// tree of them ([AllOf], [AnyOf]), built from the parameters of the numerus constructor of the
// same name. The script decides exactly as the in-process limiter of the same policy does: an And
// charges every child or none and answers with the latest of their waits (searched as numerus
// searches it); an Or charges every child that admits and answers with the earliest wait. A test
// drives random policies and timelines through both and requires the same decisions.
//
// # Exact arithmetic
//
// Lua numbers are doubles, so the script counts integer microseconds since the Unix epoch, and
// every number it handles stays at or below 2^53. Its answers are the in-process limiter's
// nanosecond answers rounded up to the microsecond; remaining tokens round down. A policy that
// cannot stay exact is refused by its constructor, before any server call, with an error matching
// numerus.ErrInvalidArgument: a rate period, window or sub-window that is not a whole number of
// microseconds, a window start that is not one either, a burst or capacity whose refill takes
// more than about 71 years (2^51 µs) or whose burst·period exceeds 2^53, a size at or above 2^53,
// and for the sliding counter a limit·window (in µs) above 2^53 (for example at most 104,249 a
// day, or 2,501,999 an hour).
//
// # Time
//
// By default the script reads the server's clock (TIME), so processes with skewed clocks agree.
// [WithClock] makes the store send the caller's time instead (tests, replays, and managed servers
// that forbid TIME in scripts); it must lie between 1970 and 2112. Either way a clock that steps
// back credits nothing: each algorithm treats an instant before the latest one it admitted as
// that one, as numerus does.
//
// # Keys
//
// A subject's key is the namespace's length, the namespace and the subject ([Store.Key]), so no
// two (namespace, subject) pairs share a key. Each check touches that one key, so a cluster routes
// it to one slot with no hash tag (a namespace holding "{...}" would put every subject on one
// slot). The hash holds:
//
//   - p: the policy it was written under, as the script's tokens ("g 1 100000 5");
//   - "1", "2", …: the state of each leaf of the policy tree, in prefix order, as numbers joined by
//     spaces, instants in µs:
//   - gcra: TAT as a whole µs and a remainder in 1/N µs, then the latest instant: "q r last";
//   - token bucket: tokens scaled by the rate's period (a token is P units, a µs refills N), and
//     the latest instant: "tokens last"; leaky bucket: the level of water, scaled alike: "level last";
//   - finite bucket: the tokens left: "left";
//   - fixed window and sliding counter: the start of the current window, the previous window's
//     count (0 for a fixed window), the current count and the latest instant: "start prev cur last";
//   - sliding log and bucketed window: the head and tail indexes of the log's entries, the tokens
//     admitted before the head, the latest instant, and the newest entry (instant and cumulative
//     count): "head tail base last at cum";
//   - "<leaf>.<n>": entry n of a log leaf, older than its newest: "at cum", the instant (rounded
//     down to the sub-window for the bucketed window) and the tokens admitted up to it. A debit
//     appends at most one entry and deletes those that expired, so a check costs O(1) amortized
//     writes and O(log k) reads for k expired entries; a log holds at most its limit of entries.
//
// A fresh subject has no key: its buckets are full and its windows empty. A key that is not a
// hash, or that lacks a field, holds a number out of its range (tokens above the capacity, an
// instant before 1970 or beyond 2^53 µs, a TAT beyond its burst), or a policy the script cannot
// read, makes the check fail with [ErrCorrupt], never grant; Reset clears it.
//
// # Policy changes
//
// A check under a policy other than the one a key was written under carries the subject over: a
// leaf identical to the old one at its place keeps its exact state (logs keep their entries);
// every other leaf starts with the lesser of its new capacity and what the old leaf at its place
// had left — the old tree's remaining when the trees differ in shape. A larger capacity does not
// refill, and alternating policies never hands out a token that was not left. An acquisition
// writes the carried state (even when it refuses); a peek only computes it. Re-applying the same
// policy changes nothing.
//
// # Expiry
//
// Every write sets the key's TTL to the time until the subject is full again, rounded up to the
// millisecond and at least 1ms, so live keys track the subjects seen within one refill, and an
// expired key answers like a fresh one because a full subject decides like a fresh one. Peeks and
// refusals write nothing. A spent finite bucket never refills: its key is kept until 2255. Keys
// expire by the server's clock: with [WithClock], a timeline that runs slower than the server's
// (a test stepping through fake time) needs [WithMinTTL], which keeps keys longer and costs only
// memory.
//
// # Errors and faults
//
// A refusal is a [Decision], never an error. Methods return an error for an invalid policy, cost
// or time (matching numerus.ErrInvalidArgument, before any server call), for corrupt state
// ([ErrCorrupt]), and for backend failures — unreachable server, timeout, cancelled context,
// restart — wrapping the cause; never a decision made up in their place, and never a panic. The
// caller chooses what a failure means: [FailOpen] admits, [FailClosed] refuses. After a restart
// or a failover the server no longer holds the script: the store sends it again (EVAL) and goes
// on. go-redis retries a command on some network errors (MaxRetries); a retried check whose first
// attempt reached the server is charged twice, which can only refuse early, never admit too much.
//
// # Pipelining
//
// [Store.QueueAcquire] and [Store.QueuePeek] queue a check on a caller's pipeline, to share one
// round trip with other commands; [Store.AcquireBatch] checks many subjects in one round trip.
//
// # Performance
//
// On a shared two-core machine, the script runs in about 12µs of server time for a GCRA, 20–25µs
// for a sliding log or a tree of two; a serial check over loopback takes about 60µs, and a
// pipelined batch of 100 about 20µs a check (see bench_test.go).
package redisstore
