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
// The store runs each request's typed.Policy on the subject's typed.State, so it decides exactly
// as the numerus limiter of the same policy, to the nanosecond. A refusal takes nothing. A
// subject written under another policy continues under the request's as
// typed.Policy.Continue says.
//
// # Time
//
// A request's instant is its At, or the store's clock when At is zero: the real clock unless
// [WithClock] gives another. The real clock reads the wall clock once, in [New], and then only the
// monotonic clock, so it never steps back. An instant earlier than the latest one a subject was
// admitted at counts as that one.
//
// Caller-supplied instants may go back further than an entry's life (a replay, a clock fed by
// each event's own timestamp). So each shard keeps, for each namespace, a watermark: the latest
// instant from which an entry it dropped was full. A subject with no entry is decided at its
// instant or the watermark, whichever is later, so a dropped subject never starts afresh where
// its kept state would not have been full.
//
// # Memory
//
// An entry exists while its subject is below full, and for a grace after ([WithGrace], one second
// by default). It is one 64-byte slot: the policy it was written under, three state words (all
// a GCRA, a token, leaky or finite bucket or a fixed window uses), part of the key's hash, the
// namespace's number, a subject of up to 17 bytes inline, and a pointer, nil for most
// subjects, to what does not fit (a sliding log or counter, a tree of policies, a longer
// subject). Tables are half to three quarters full, so a subject takes about 100 bytes and no
// allocation of its own.
//
// Entries are reclaimed incrementally, with no goroutine: each new entry moves its shard's clock
// hand over three entries, dropping those full for the grace. [Store.Sweep] moves the hands on
// request. A finite bucket never refills, so its charged subjects stay until Reset.
//
// # Cap
//
// [WithMaxSubjects] caps the subjects a store holds. At the cap the store never drops a subject
// below full to make room, which would hand a limited client a fresh bucket. A new subject takes
// the slot of one back to full if a bounded search finds one; otherwise its check fails with
// [ErrFull], or, with [WithUntracked], is admitted without keeping state. [Store.Stats] counts
// both.
//
// # Concurrency
//
// A Store is safe for concurrent use. A check takes its shard's lock, reads and writes its
// subject's slot, and releases it; a bound check of one token of a subject its shard refused
// twice in a row is refused, as the slot would refuse it, from a record of the refusal read
// without the lock, so that a hot subject refused to every core does not queue them on one
// lock. Checks allocate nothing under policies whose typed.State holds
// no log and fits its inline words; under a sliding log ("100/s" in the notation) an admitted
// check makes two allocations. Subjects hash with keys drawn at random for each store, so a
// client cannot pick subjects that collide.
package memory
