// Package memory is the in-process [keyed.Store]: each subject's state lives in a sharded index,
// and only while the subject is below full.
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
// and of [Store.Sweep]) once their subject has been full for the grace; a check whose instant
// lies further back than that, behind an instant the store was given before, may therefore find
// its subject's entry dropped while the subject was not yet full at its instant, and start
// afresh. The store's own clock never does this: it never steps back, and a check that finds no
// entry for its subject, under the lock of its shard, decides at no reading earlier than the
// latest that dropped an entry there (a reading the clock gave already, so no later than now).
// The clock is read under no lock of the store's.
// Instants a caller gives (a request's At, or a keyed.Limiter's clock) must keep to it
// themselves: across subjects, none more than the grace behind the latest the store was given.
// A replay in time order does; a test that moves its clock back should set a longer grace
// ([WithGrace]). Within that, dropping entries changes no decision.
//
// # Memory
//
// An entry exists only while its subject is below full, and for a grace after (one second by
// default, see [WithGrace]). Entries are reclaimed incrementally, with no goroutine and no
// pause, by a clock hand in each shard: each new entry moves its shard's hand over three
// entries, and the hand drops those whose subject has been full for the grace; a Peek drops its
// own subject's entry likewise. The live entries of a shard are thus at most about one and a half
// times the subjects below full or within their grace. The grace spares subjects that refill between
// their checks from having their entry dropped and made again, so steady traffic neither churns
// nor allocates. [Store.Sweep] moves the hands further on request, for a caller that wants
// memory back after traffic stops. A finite bucket never refills, so its charged subjects stay
// until Reset.
//
// A live subject takes about 270 bytes under a GCRA, with a key of 27 bytes (10^6
// subjects measured by BenchmarkBytesPerSubject): its entry, 256 bytes that hold the typed.State,
// the refusal kept (see Concurrency) and a subject of up to 24 bytes (a longer one takes an
// allocation of its own), and its slots in the shard's index and list. A check that debits reads
// its slot and the first cache line of the entry, and writes the second, fetching both at once; it
// writes no memory but the entry's. A check answered by the refusal kept writes no memory at all.
//
// # Concurrency
//
// A Store is safe for concurrent use. A check of an existing subject finds its entry in its
// shard's index without a lock, and takes the lock of that entry alone, for the arithmetic (no
// call out): checks of different subjects write no memory in common, so they
// scale with the cores. Keys are spread over shards, whose locks serialize only what changes an
// index: new subjects, dropped ones, the clock hand.
//
// A subject over its limit is refused without a lock once it has been refused with one. An entry
// keeps its latest refusal of one token, with the Policy it was refused under, and answers the
// checks of one token under that Policy (or one that decides like it) that follow, Acquires and
// Peeks, from a keyed.Limiter or as Requests, with it until its Retry: the same Outcome, since
// while the state is unchanged a refusal holds at every instant before its Retry (typed's
// TestRefusalHolds).
// Such a check loads a few words and writes nothing, so every core refuses a hot subject at once
// (a flood of refused requests from one client does not queue on one lock), and it allocates
// nothing under any policy. Whatever changes the state, or the policy to one that decides
// otherwise, or drops the entry, forgets the refusal under the entry's lock, before releasing it.
// A check of more than one token takes the entry's lock. Policies that decide alike (one text
// compiled twice, as by two keyed.Limiters of one namespace) share the refusal kept, and a check
// under one adopts it as the entry's policy under the entry's lock alone.
//
// Checks of an existing subject allocate nothing under every policy whose typed.State fits its 12
// inline words and holds no log: every algorithm but the sliding log and the bucketed sliding
// window, and trees of them up to four GCRAs or three counters, say. Under a policy with a log
// (the notation's bare rates, "100/s", are sliding logs: "gcra 100/s burst 100" is a policy of no
// allocation), or a larger tree, a TryAcquire makes two allocations, admitted or refused (but for
// a refusal that the refusal kept answers): the state's extra block is copied before the debit, so
// that an And refused by a later child leaves the earlier ones as they were
// (typed.Policy.DebitIn). A Peek of a subject kept under the request's policy allocates nothing
// under any policy.
//
// A keyed.Limiter of string subjects checks them through a binding of its namespace and policy
// (package keyed/internal/bind), which hashes the namespace once, so that each check hashes and
// compares the subject as it is, without framing a key. A key hashes as its framed namespace and
// the rest, so both ways reach the same entries.
//
// Subjects of up to 16 bytes hash with a multiply-fold under three keys drawn at random for each
// store, a few cycles; longer ones, and namespaces, with hash/maphash. Either way a client that
// does not know the keys cannot pick subjects that collide in the index.
// A bound check of a subject of 8 to 16 bytes reads it once as two words, its first and last 8
// bytes, which hash it and, with its length, tell it apart from another entry's subject: no
// call to hash or to compare bytes on the common path.
package memory
