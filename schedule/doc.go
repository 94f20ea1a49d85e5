// Package schedule waits for limiters: the loops that sleep over the pure core of [numerus],
// where nothing blocks. Every decision is still the limiter's own.
//
//	gate := schedule.NewGate(limiter)
//	at, err := gate.Take(ctx, 1) // waits its turn; at is the instant it was charged
//
// # Waiting
//
// [Wait] sleeps until a limiter that one goroutine owns admits a debit, and returns the
// limiter that follows and the instant it charged. [Acquire] does the same for a per-subject
// limit of package keyed; with a store that processes share (Redis), it paces one quota across
// all of them, in no particular order.
//
// Neither sleeps for nothing: a debit that will never be admitted fails at once with
// [ErrNever], and one that would be admitted only past the context's deadline fails at once
// with a [*DeadlineError].
//
// # Gates
//
// A [Gate] holds a limiter that many goroutines share. [Gate.Take] waits in a first-in,
// first-out queue; [Gate.TryTake] never waits. A cancelled waiter takes nothing.
//
// [Gate.Pause] and [Gate.RetryAfter] close the gate until an instant an upstream names (a 429
// Retry-After, an SMTP 421), keeping the limiter's state. [Gate.Update] replaces the limiter
// atomically, for a budget an upstream announces. [Gate.Admissions] forecasts the turns of the
// next takes.
//
// # Draining
//
// [Drain] and [DrainChan] run a function for each job of an [iter.Seq] or a channel, one token
// per job, and pass it the instant its token was charged. They stop at the first error, or,
// with [ContinueOnError], run every job and join the errors.
//
// # Time
//
// Every admission is charged at the instant the caller is let go, read after the wake-up, so
// the instants callers go at never exceed the policy: a late wake-up costs throughput, never
// the quota. Take and Wait return that instant.
//
// A Gate reads the wall clock once, when it is made, and then only the monotonic clock, so a
// wall clock set back does not hold it. Wait reads time.Now on each call: share a long-lived
// limiter through a Gate.
//
// To test code that waits through this package, run it in a [testing/synctest] bubble, where
// the clock is virtual: a day's schedule takes milliseconds.
//
// # Concurrency
//
// A Gate is safe for concurrent use and must not be copied. Nothing here starts a goroutine. A
// Gate arms at most one timer, and none once no one waits.
//
// # Performance
//
// A take that goes at once costs one debit. A take that waits costs about two debits, however
// many wait ahead. Wake-ups come late by the runtime's timer latency (BenchmarkWakeLateness),
// so a policy of one token at a time above about a thousand a second runs at the timer's pace.
//
// # Errors
//
// A refusal that waiting cannot cure is an error, returned at once, taking nothing: [ErrNever],
// a [*DeadlineError] (which matches [context.DeadlineExceeded]), or the context's own error. A
// cost below 1 panics, as in the core; Acquire returns keyed's error for it instead.
package schedule
