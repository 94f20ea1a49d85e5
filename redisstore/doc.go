// Package redisstore is the Redis [keyed.Store]: every subject's state lives on a Redis server,
// so a limit holds across every process pointed at it. Each check is one atomic Lua script in
// one round trip, the first check of a new subject included.
//
//	client := redis.NewClient(&redis.Options{Addr: "localhost:6379", ContextTimeoutEnabled: true})
//	store, err := redisstore.New(client) // an error if the client would ignore deadlines
//	policy, err := typed.Parse("gcra 10/s burst 20") // 20 at once, then 10 a second
//	lim, err := keyed.New(store, policy, keyed.StringKey{})
//	d, err := lim.TryAcquire(ctx, "user:42", 1) // give ctx a deadline
//	if err != nil {
//		// the server could not answer: admit or refuse, as you choose
//	}
//	if !d.Allowed {
//		// refused: d.RetryAfter says how long to wait, or Never
//	}
//
// The store runs every typed policy (each algorithm, and And/Or trees of them) and decides
// exactly as the in-process typed.Policy does, rounded to the microsecond. It passes
// keyed/storetest on a standalone server and on a cluster. Ring, Sentinel and Cluster clients
// work unchanged.
//
// # Exact arithmetic
//
// Lua numbers are doubles, so the script counts whole microseconds and keeps every number at or
// below 2^53. Waits round up to the microsecond and remaining tokens down. [Store.CheckPolicy],
// which keyed.New calls, refuses with an error matching numerus.ErrInvalidArgument what cannot
// stay exact:
//
//   - a window or sub-window that is not a whole number of microseconds;
//   - a window, or a bucket's time to refill, longer than 2^51 µs (about 71 years);
//   - a size or limit at or above 2^53, a sliding log's limit above 2^50;
//   - a sliding counter whose limit·window (in µs) exceeds 2^53: at most 104,249 a day;
//   - a tree past the limits of package typed.
//
// Instants must lie between 1970 and 2112.
//
// # Time
//
// A request with a zero At is decided at the server's clock (TIME), so processes with skewed
// clocks agree. One with an At (keyed.WithClock) is decided at that instant: use that for tests
// and replays, and keyed.WithClock(time.Now) for managed servers that forbid TIME in scripts.
// A clock that steps back credits nothing.
//
// # Keys and expiry
//
// A subject's state lives at one key: the key that keyed framed, behind a hash tag of the
// store's own, so a cluster routes each check to one slot and spreads subjects over the slots,
// whatever braces a namespace or subject holds. A key written by anything else makes a check
// fail with [ErrCorrupt], never grant; Reset clears it.
//
// Every write sets the key's TTL to the time until the subject is full again, rounded up, so an
// expired key answers as a fresh one would. [WithMinTTL] keeps keys longer, for replays slower
// than the server's clock and for subjects that refill within milliseconds.
//
// A check under a changed policy carries the subject over as typed.Policy.Continue says, as
// the memory store does.
//
// # Durability
//
// The limits hold as long as the server keeps its keys; a restart without persistence gives
// every subject its whole burst back. For each guarantee:
//
//   - no check granted twice across a crash: appendonly yes, appendfsync always, one primary.
//   - at most a second of admissions forgotten: appendfsync everysec.
//   - RDB snapshots alone lose everything since the last one.
//   - replication is asynchronous: a failover to a lagging replica forgets what it had not
//     received; min-replicas-to-write and min-replicas-max-lag bound the lag.
//
// # Errors and deadlines
//
// A refusal is a Decision, never an error. Errors are invalid requests, corrupt state
// ([ErrCorrupt]) and backend failures, which wrap their cause and come with the zero Decision.
// Nothing falls back silently: the caller chooses to admit or refuse. A server that lost the
// script (restart, failover, SCRIPT FLUSH) is sent it again.
//
// No check waits past its context's deadline; [New] requires a client with
// ContextTimeoutEnabled. A check cut short, or retried by go-redis, may have been applied on the
// server: that can only refuse early, never admit too much.
//
// # Pipelining and batches
//
// [Store.QueueAcquire] and [Store.QueuePeek] queue a check on your pipeline (a [Pending]).
// [Store.AcquireBatch] checks many requests in one round trip (keyed.Limiter.Request builds
// them). Each check is atomic, and a batch decides as the same checks made one by one. Queue
// checks on pipelines of the store's own client, and not inside a MULTI.
//
// # Coalescing
//
// Acquires made at once by many goroutines share round trips: while the store has
// [WithCoalescing] round trips in flight, new acquires wait and go in the next one as a batch.
// A serial caller always finds a round trip free. The callers do the work; the store starts no
// goroutine. An acquire whose context ends before its batch is sent takes nothing; one whose
// context ends while the batch is in flight returns at once and may have been applied.
//
// # Performance
//
// A serial check costs about what redis_rate's does, the round trip taking nearly all of it;
// coalesced, 64 goroutines get several times its throughput. See bench/RESULTS.md.
package redisstore
