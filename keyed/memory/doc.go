// Package memory is the in-process [keyed.Store]: each subject's state lives in a slot of a
// sharded table, and only while the subject is below full.
//
//	store := memory.New()
//	policy, err := typed.Parse("10/s")
//	lim, err := keyed.New(store, policy, keyed.StringKey{})
//	d, err := lim.TryAcquire(ctx, "alice", 1)
//
// # Decisions
//
// The store runs the typed.Policy of each request on the subject's typed.State, so it decides
// exactly as the numerus limiter of the same policy, to the nanosecond: waits are exact (already
// rounded up to the nanosecond), remaining tokens rounded down. A refusal takes nothing. A
// subject whose state was written under another policy continues under the request's as
// typed.Policy.Continue says, from the first check under it: an Acquire, admitted or refused, or
// a Peek keeps the carried state (unless it is full), so the old policy stops refilling the
// subject.
//
// # Time
//
// A request's instant is its At, or, when At is zero, the store's clock: the real clock unless
// [WithClock] gives another. The real clock reads the wall clock once, when [New] makes the
// store, and after that only the monotonic clock: each instant is New's wall time plus the time
// elapsed since, as time.Since measures it. It costs half of time.Now (which reads both clocks),
// never steps back, and ignores later settings of the wall clock, as a rate limit should; over a
// long life it drifts from the wall clock by what the system's clock adjustments and suspensions
// add up to, which moves nothing but where fixed windows start.
//
// An instant earlier than the latest one a subject was admitted at counts as that one, so a clock
// stepping back credits nothing. Entries are dropped at the instants of checks (of any subject,
// and of [Store.Sweep]) once their subject has been full for the grace. A check whose instant
// lies further back than that, as caller-supplied instants may (a replay, keyed.WithClock fed by
// each event's own timestamp), could then find its subject's entry gone while the subject was
// not yet full at its instant. So the store keeps a watermark for each namespace in each shard:
// the latest instant from which an entry it dropped was full. A check that finds no entry for
// its subject is decided at its instant or the watermark, whichever is later: a dropped subject
// starts afresh only where its kept state would have been full, and an instant never decides a
// subject more generously than its kept state would have at the instant decided. (Each
// namespace has its own, so that limiters on other clocks move none of each other's; a check
// decided at the watermark reports its waits from there.) With the store's own clock, which
// never steps back, the watermark only serves a check that read the clock before another check
// dropped its subject.
//
// # Memory
//
// An entry exists only while its subject is below full, and for a grace after (one second by
// default, see [WithGrace]). An entry is a slot of its shard's table, 64 bytes, one cache line:
// the policy it was written under (8 bytes), three state words (24: all that a GCRA, a token or
// leaky bucket, a finite bucket or a fixed window uses), the high half of its key's hash (4),
// its namespace's number (2, see below) and its subject, up to 17 bytes inline, with its length
// (18), and a pointer (8) to what does not fit, nil for most subjects: a larger state (a sliding
// log or counter, or a tree of policies), a longer subject, a namespace past the first 1024. A
// table is half to three quarters full, so a subject takes 85 to 128 bytes, about 100 (10^6
// subjects measured by BenchmarkScaleFill in the bench module, TestBytesPerSubject here), and no
// allocation of its own.
//
// Entries are reclaimed incrementally, with no goroutine and no pause, by a clock hand in each
// shard: each new entry moves its shard's hand over three entries, and the hand drops those
// whose subject has been full for the grace; a Peek drops its own subject's entry likewise. The
// live entries of a shard are thus at most about one and a half times the subjects below full or
// within their grace. The grace spares subjects that refill between their checks from having
// their entry dropped and made again, so steady traffic neither churns nor allocates.
// [Store.Sweep] moves the hands further on request, for a caller that wants memory back after
// traffic stops. A finite bucket never refills, so its charged subjects stay until Reset.
//
// # Cap
//
// [WithMaxSubjects] caps the subjects a store holds. At the cap the store never drops a subject
// below full to make room, which would hand a limited client a fresh bucket; a new subject's
// check looks for subjects back to full to drop, a bounded search, and if it finds none the
// check fails with [ErrFull] (or, with [WithUntracked], is admitted as a fresh subject without
// keeping its state). [Store.Stats] counts both. Checks of subjects held, and Peeks, go on as
// ever.
//
// # Concurrency
//
// A Store is safe for concurrent use. Keys are spread over shards (16 per CPU, at least 64);
// a check takes its shard's lock, reads its subject's slot (one cache line, the one it writes
// back if the debit changes the state), and releases it, with no call out under the lock. Checks
// of different shards share no memory they write (but for a capped store's count of its
// subjects, which new subjects and drops update). A refusal writes nothing but the lock.
//
// Checks of an existing subject allocate nothing under every policy whose typed.State fits its 12
// inline words and holds no log: every algorithm but the sliding log and the bucketed sliding
// window, and trees of them up to four GCRAs or three counters, say. Under a policy with a log
// (the notation's bare rates, "100/s", are sliding logs: "gcra 100/s burst 100" is a policy of no
// allocation), or a larger tree, an admitted TryAcquire makes two allocations, and so does a
// refused one of more than one token: the state's extra block is copied before the debit, so
// that an And refused by a later child leaves the earlier ones as they were
// (typed.Policy.DebitIn). A check of one token peeks first under those policies and is refused
// from there, so a refusal of one token, and a Peek, allocate nothing under any policy.
//
// A keyed.Limiter of string subjects checks them through a binding of its namespace and policy
// (package keyed/internal/bind), which hashes and numbers the namespace once, so that each check
// hashes and compares the subject as it is, without framing a key. A key hashes as its framed namespace and
// the rest, so both ways reach the same entries.
//
// Subjects of up to 16 bytes hash with a multiply-fold under three keys drawn at random for each
// store, a few cycles; longer ones, and namespaces, with hash/maphash. Either way a client that
// does not know the keys cannot pick subjects that collide in the index.
package memory
