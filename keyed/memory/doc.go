// Package memory is the in-process [keyed.Store]: each subject's state lives in a sharded map,
// and only while the subject is below full.
//
//	store := memory.New()
//	lim, err := keyed.New(store, keyed.PerSecond(10), keyed.StringKey{})
//	d, err := lim.TryAcquire(ctx, "alice", 1)
//
// # Decisions
//
// The store runs the typed.Policy of each request on the subject's typed.State, so it decides
// exactly as the numerus limiter of the same policy, to the nanosecond: waits are exact (already
// rounded up to the nanosecond), remaining tokens rounded down. A refusal writes nothing. A
// subject whose state was written under another policy continues under the request's as
// typed.Policy.Continue says, when it is next admitted.
//
// # Time
//
// A request's instant is its At, or, when At is zero, the store's clock: the real clock unless
// [WithClock] gives another. An instant earlier than the latest one a subject was admitted at
// counts as that one, so a clock stepping back credits nothing — as long as the subject's entry
// is kept. Once a subject is back to full its entry may be dropped, and it then starts afresh: an
// instant earlier than the dropped entry's latest is no longer raised to it (a full subject
// debited earlier is as full, so this changes only when later tokens come back).
//
// # Memory
//
// An entry exists only while its subject is below full. Entries are reclaimed incrementally, with
// no goroutine and no pause: each new entry checks the two entries under a clock hand in its
// shard and drops those back to full, and a Peek that finds its own subject full drops it. The
// shard's live entries are thus at most about twice the subjects below full. [Store.Sweep] checks
// more on request, for a caller that wants memory back after traffic stops. A finite bucket never
// refills, so its charged subjects stay until Reset.
//
// An entry takes about 200 bytes plus its key (see the package benchmarks: about 230 bytes per
// live subject with 26-byte keys, 10^6 subjects measured).
//
// # Concurrency
//
// A Store is safe for concurrent use. Keys are spread over shards, each with its own mutex,
// held only for the map lookup and the arithmetic (no allocation, no call out). Checks of an
// existing subject with a string key allocate nothing.
package memory
