// Package redisstore is the Redis [keyed.Store]: every subject's limiter state lives on a Redis
// server, so a limit holds across every process pointed at it. Each check is one atomic Lua script
// and one round trip (EVALSHA, falling back to EVAL when the server lost the script), the first
// check of a new subject included.
//
//	client := redis.NewClient(&redis.Options{Addr: "localhost:6379", ContextTimeoutEnabled: true}) // or a Ring, Cluster
//	store, err := redisstore.New(client) // an error if the client would ignore deadlines
//	// 20 at once, then 10 a second: up to 29 in a second.
//	policy, err := typed.Parse("gcra 10/s burst 20")
//	lim, err := keyed.New(store, policy, keyed.StringKey{})
//	if err != nil {
//		// an invalid policy, or one the script cannot keep exact (see Exact arithmetic)
//	}
//	d, err := lim.TryAcquire(ctx, "user:42", 1) // give ctx a deadline: no check outlasts it
//	if err != nil {
//		// the server could not answer: admit or refuse, as the caller chose
//	}
//	if !d.Allowed {
//		// refused: d.RetryAfter says how long to wait, or Never
//	}
//
// The keyed Limiter frames the keys (namespace and subject), validates the policy and the costs,
// and hands the store a [keyed.Request]; the store answers with a [keyed.Decision]. The store
// passes the keyed conformance suite (keyed/storetest) on a standalone server and on a cluster.
//
// # Policies
//
// Every typed policy runs in the script: GCRA, token bucket, leaky bucket, finite bucket, fixed
// window, sliding counter, sliding log, bucketed sliding window, and And/Or trees of them (an And
// charges every child or none and answers with the latest of their waits, searched as numerus
// searches it; an Or charges every child that admits and answers with the earliest wait). The
// script decides exactly as the in-process typed.Policy: tests drive random policies and
// timelines, with policy changes, through both and require the same decisions.
//
// # Exact arithmetic
//
// Lua numbers are doubles, so the script counts integer microseconds since the Unix epoch and
// keeps every number at or below 2^53. Its answers are the in-process nanosecond answers rounded
// up to the microsecond (RetryAfter, FullAfter and RefillAfter); remaining tokens round down.
// Binding names the limit the in-process policy names: of two answers that round up to the same
// microsecond, the script tells which comes first in nanoseconds, as typed does. [Store.CheckPolicy], which keyed.New calls,
// refuses what cannot stay exact with an error matching numerus.ErrInvalidArgument, before any
// server call:
//
//   - a window or sub-window that is not a whole number of microseconds (a rate's period need
//     not be: a rate is kept as an exact fraction of tokens per microsecond);
//   - a window, or a bucket's time to refill from empty, longer than 2^51 µs (about 71 years);
//   - a capacity whose refill scaled by the rate's period exceeds 2^53, a size or limit at or
//     above 2^53, a sliding log's limit above 2^50 (its running count must stay exact);
//   - a sliding counter whose limit·window (in µs) exceeds 2^53: at most 104,249 a day, or
//     2,501,999 an hour;
//   - a tree past the limits that package typed holds every policy to (see its doc): nested
//     deeper than 32 levels, a node of more than 1,000 children, more than 1,000 leaves in all.
//     typed.Compile refuses such a policy first; the store and its script check them again.
//
// The store refuses likewise, before any server call, a request whose cost is below 1 or above
// the policy's capacity (keyed.Limiter never sends one), and an instant before 1970 or after 2112.
// A server whose own clock reads past 2112 writes instants that the script then reads as
// corrupt: its checks fail with [ErrCorrupt], never grant.
//
// # Time
//
// A request with a zero At (a keyed Limiter without WithClock) is decided at the server's clock:
// the script reads TIME, so processes with skewed clocks agree. A request with an At is decided
// at that instant truncated to the microsecond; its waits are measured from At itself, so they
// end on the microsecond the script answered. Use keyed.WithClock for tests and replays, and
// keyed.WithClock(time.Now) for managed servers that forbid TIME in scripts; every process sharing
// keys should then keep close clocks. Either way a clock that steps back credits nothing: an
// instant before the latest one a subject was admitted at counts as that one.
//
// # Keys
//
// A subject's state lives at the key the keyed Limiter framed: the namespace's length, the
// namespace and the subject, so no two (namespace, subject) pairs share a key. A plain policy (one
// leaf that is not a log) keeps a string: the policy, a zero byte, and the leaf's state as
// little-endian doubles; a check is one GET and one PSETEX (a SET with its TTL). Every other policy
// keeps a hash: field p holds the policy, field i the state of leaf i, and field i.n entry n of log
// leaf i (a log keeps at most its limit of entries and drops expired ones as it goes, reading
// O(log k) fields for k expired ones). A key that is of another type, lacks a field, or holds a
// number out of its range (tokens above the capacity, a latest instant before 1970 or past 2^52
// µs, the last the store writes, a TAT beyond its burst) makes the check fail with [ErrCorrupt],
// never grant; Reset clears it.
//
// # Policy changes
//
// A key remembers the policy it was written under. A check under another policy carries the
// subject over as keyed's memory store does: a subject full again under its old policy starts
// full under the new one; otherwise it continues as typed.Policy.Continue says — a leaf identical
// to the old one at its place keeps its exact state, a changed one continues from the old leaf at
// its place when both are the only changed leaves of their algorithm, and any other from the most
// used old leaf; each carries the lesser of the tokens remaining and the new capacity (for a
// window, its limit less the count used), so a larger capacity does not refill and alternating
// policies never hands out a token that was not left. The carried state is written by the first check under the
// new policy, admitted or refused, and by a Peek, so the old policy stops refilling the subject;
// a refusal or a Peek does not write a carried state that is full (it would carry back to the old
// policy as full again).
//
// # Expiry
//
// Every write sets the key's TTL to the time until the subject is full again, rounded up to the
// millisecond, and one millisecond more (Redis 7.2 and later count a TTL set in a script from the
// script's start, a little before the TIME the script reads), so live keys track the subjects
// seen within one refill, and an expired key answers like a fresh one because a full subject
// decides like a fresh one. A spent
// finite bucket never refills: its key is kept until 2255. [WithMinTTL] keeps keys longer, which
// costs memory and changes no decision: for requests that carry the caller's time on a timeline
// slower than the server's (a test holding time still, a replay: keys expire by the server's
// clock), and for subjects that refill within milliseconds, whose keys would otherwise expire and
// be created anew at every check.
//
// # Durability
//
// The limits hold only as long as the server keeps its keys. A restart without persistence loses
// them all, and every subject starts full again: a spent subject gets its whole burst back
// (TestDurability). What to configure, for each guarantee:
//
//   - no check granted twice across a crash: appendonly yes with appendfsync always, on a single
//     primary. Each write reaches the disk before its check answers.
//   - at most a second of admissions forgotten in a crash: appendfsync everysec (the default with
//     appendonly yes). The subjects charged in that second may be charged again.
//   - RDB snapshots alone lose everything since the last one.
//   - replication is asynchronous: a failover to a replica that lags forgets the admissions it
//     had not received, and their subjects regain them. min-replicas-to-write and
//     min-replicas-max-lag bound the lag, and keep the primary from writing without replicas.
//
// # Deadlines
//
// No check waits past its context's deadline. [New] requires a go-redis client that applies
// deadlines to its reads (ContextTimeoutEnabled: without it a check against a server that
// accepts and never answers waited 5s against a deadline of 200ms), and a batch of coalesced
// acquires is sent by the one of them whose deadline is the latest, and given up at it: the
// others leave at their own (TestNoCallerWaitsPastItsDeadline). A check cut short by its deadline
// fails with an error that matches context.DeadlineExceeded; it may have been applied on the
// server, which can only refuse early later, never admit too much.
//
// # Errors and faults
//
// A refusal is a Decision, never an error. Errors are for invalid requests (matching
// numerus.ErrInvalidArgument, before any server call), corrupt state ([ErrCorrupt]), and backend
// failures — unreachable server, timeout, cancelled context, restart — which wrap the cause; a failed check
// returns the zero Decision, never a decision made up in its place, and never panics. There is no
// silent fallback: the caller chooses what a failure means, admitting or refusing (as package
// httplimit's FailOpen and FailClosed do; the store has no helpers of its own, which would be a
// second spelling of the same choice). After a restart, a failover or SCRIPT FLUSH the
// server no longer holds the script: the store sends it again (EVAL) and goes on. go-redis retries
// a command on some network errors (MaxRetries); a retried check whose first attempt reached the
// server is charged twice, which can only refuse early, never admit too much.
//
// # Pipelining and batches
//
// [Store.QueueAcquire] and [Store.QueuePeek] queue a check on the caller's pipeline (a
// [Pending]), to share one round trip with other checks and commands. [Store.AcquireBatch] checks
// many requests in one round trip, each built by keyed.Limiter.Request as the Limiter's own check.
// On a single server (a *redis.Client, standalone or behind Sentinel), requests of one policy run
// in one script call per 500 subjects, which reads the plain keys with one MGET; elsewhere each
// check is its own script call, pipelined (on a cluster, one pipeline per node, in parallel), as
// it is on a *redis.Client behind a proxy that spreads keys over servers, with [WithKeyPerCall].
// Each check is atomic either way, and the batch decides as the same checks made one by one.
// A Pending's check whose script the server did not hold is sent again through the store's
// client: queue checks on pipelines of that client (or of one that reaches the same server and
// database), and not inside a MULTI, which the second send would not be part of.
//
// # Coalescing
//
// Acquires made at once by many goroutines share round trips. A Store keeps at most two round
// trips of acquires in flight (see [WithCoalescing]); an Acquire made while both are busy waits,
// and when one ends, every acquire that waited meanwhile goes in the next as a batch, the way
// AcquireBatch sends one: on a single server one script call per policy, which checks them one
// after the other; on a cluster or ring one script call each, pipelined. The callers do the work:
// the store starts no goroutine. A serial caller always finds a round trip free, so its acquires
// go alone, exactly as without coalescing. Under load a batch costs the server far less than as
// many script calls, so throughput grows with the callers instead of stopping at the server's
// speed for single scripts (see Performance).
//
// A batch in flight is not one caller's to cancel: it runs to its end, bounded by the client's
// read and write timeouts, whatever the contexts of its acquires (keep those timeouts on when
// coalescing). An acquire whose context ends before its batch is sent is never sent and takes
// nothing, even when it was to send the batch: it hands the batch on and returns at once. One whose
// context ends while its batch is in flight returns the context's error at once, and may have been
// applied; the caller that sends a batch waits for it. A failed batch fails each of its acquires
// with the cause (a panic in sending it, with an error too). Peek and Reset are never coalesced.
//
// # Cluster
//
// Every check touches one key, so a cluster routes it to one slot with no hash tag, whatever the
// policy, and Ring, Sentinel and Cluster clients work unchanged. A namespace holding "{...}" would
// put every subject of it on one slot: leave braces out of namespaces. A batch on a cluster is
// one script call per subject, pipelined per node.
//
// # Performance
//
// For a plain policy (a GCRA, say) the script costs the server about 49k instructions for an
// admission (of a fresh key) and 41k for a refusal (counted under callgrind), against 62k and 50k
// for go-redis/redis_rate's; most of it is Redis's own cost of running a script and its commands
// (TIME, GET and SET with a TTL alone cost 37k). On a shared two-core machine that is about 22µs
// and 16µs of server time a serial check (INFO commandstats), against 28µs and 20µs; trees and logs
// (the notation's bare rates, "100/s", are sliding logs) cost more. In the bench module's full runs, a serial check over loopback took 0.82–1.07× of
// redis_rate's time (1.07× admitted and 0.96× refused in the latest, ±10%): level within the
// noise, the round trip and the client's system calls taking nearly all of it; 64 goroutines,
// their checks coalesced, got 2.3–4.0× its throughput; a batch of 100 cost 3–10µs a check, the server's
// writes dominating (10µs on a day the machine ran at about 60% of its usual speed). Subjects
// that refill within milliseconds cost the server about 6µs more a check unless [WithMinTTL]
// keeps their keys (see Expiry). See bench/RESULTS.md, run by run. BenchmarkServerCost reports
// the server's own time a call (INFO commandstats) for a GCRA, a tree, a batch, a fixed window
// and a token bucket. The plain kinds but the GCRA run the script's shared functions, which cost
// the server more than the inline code each had before (under callgrind, a token bucket 30%
// more, a fixed window 17%); a GCRA keeps code of its own.
package redisstore
