// Package schedule waits: it holds the loops that sleep over the pure core of [numerus], where
// time is a parameter and nothing blocks. Everything here reads a clock and arms timers; every
// decision is still the limiter's own.
//
// # Waiting
//
// [Wait] sleeps until a limiter value that one goroutine owns admits a debit, and returns the
// limiter that follows and the instant it charged. It never sleeps for nothing: a debit the
// limiter will never admit fails at once with [ErrNever], and one it would admit only past the
// context's deadline fails at once with a [*DeadlineError] (which matches
// [context.DeadlineExceeded]).
//
// [Acquire] is the same wait for a per-subject limit of package keyed: it checks, and sleeps out
// each refusal's RetryAfter, until a check is admitted. With a store that several processes share
// (Redis), it paces an outbound quota across all of them; they are not served in order.
//
// # Gates
//
// A [Gate] holds a limiter that many goroutines share. [Gate.Take] waits in a first-in, first-out
// queue, [Gate.TryTake] never waits and never passes a waiter. One timer serves the head of the
// queue and wakes only the head; a waiter, once charged, wakes the next if its turn has come. A
// cancelled waiter leaves the queue and takes nothing. [Gate.Pause] and [Gate.RetryAfter] hold
// the gate closed until an instant an upstream names, keeping the limiter's state: a 429
// Retry-After, an SMTP 421, 450 or 451. A waiter whose turn a pause moves to or past its
// context's deadline fails then, with a [*DeadlineError]. [Gate.Update] replaces the limiter a
// gate holds with one made from it, atomically, and plays the queue again: an upstream's announced
// budget ("50 more in the next 30 seconds") composed with the policy. [Gate.Admissions] runs the
// pure planner [numerus.Admissions] on the gate's state: exact ETAs, for wake-ups on time.
//
// # Draining
//
// [Drain] and [DrainChan] run a function for each job of an [iter.Seq] or a channel, one token
// per job, at the gate's pace, and pass it the instant the job's token was charged at. By
// default they stop at the first job that fails; with [ContinueOnError] they run every job and
// join the errors.
//
// # Time
//
// The package reads the system clock through a seam of its own (the internal package clock, with
// a fake clock for its tests). No option exposes it, on purpose: an exported Clock would be an API
// to keep for one use, tests, which Go 1.25 serves better. To test code that waits through this
// package, run it inside a [testing/synctest] bubble: there the system clock is virtual and moves
// only when every goroutine of the bubble is blocked, so a test of a day's schedule takes
// milliseconds, and the bubble fails if a goroutine outlives it. Waits and gates block on
// channels and timers, which synctest counts as durably blocking.
//
// A Gate reads the wall clock once, when it is made, and after that only the monotonic clock, so
// its instants never step back and a wall clock set back (by NTP, by hand, by a restored VM)
// does not hold its takes for the length of the step; Pause reads the caller's instant by its
// monotonic reading. Wait reads time.Now, so a wall clock set back between two Waits on one
// limiter holds the second for the step: share a long-lived limiter through a Gate.
//
// Every admission, through a Gate or Wait, is charged at the instant it lets its caller go, read
// from the clock after the wake-up, so the instants at which callers go never exceed the policy;
// a late wake-up costs throughput, never the quota. Take and Wait return that instant, and Drain
// passes it on: a caller that records it can check its traffic against the policy.
//
// # Concurrency
//
// A Gate is safe for concurrent use and must not be copied. Wait, Drain and DrainChan start no
// goroutine, nor does Acquire. A Gate arms at most one timer (time.AfterFunc), whose function
// only wakes the head, and none stays armed once no one waits. The woken waiter's own goroutine
// takes the gate's lock, reads the clock, charges itself and hands on.
//
// # Performance
//
// A take that goes through at once costs one debit of the limiter. A take that must wait first
// finds its turn behind the waiters, to fail at once if it would come too late. The gate keeps
// the queue played through the planner, and each new waiter extends that play by its own take:
// about two debits, however many wait ahead (BenchmarkGateQueue). A waiter charged at its turn
// keeps the play. On the system clock nearly every waiter that waited is charged late, which
// moves every turn behind it later: the next take that must wait, refused TryTake or Admissions
// then plays a queue of up to 256 waiters afresh, about two debits per waiter, and keeps the play
// of a longer one as lower bounds of the true turns (BenchmarkGateQueueLate), so that a queue of
// 10,000 costs an admission no more than one of ten. Behind such a queue a forecast may be early,
// and a take whose turn only the true play puts past its deadline waits until its deadline
// rather than failing at once; a waiter that leaves or a pause still plays it afresh.
//
// Every wake-up is a timer's: it comes late by the runtime's timer latency, which
// BenchmarkWakeLateness measures (about a millisecond on some virtual machines, whatever the
// sleep), and by the time the woken goroutine waits to run. The turns behind count from the
// instant charged, so lateness slows the pace and never lets callers go closer together than
// the policy allows: a policy of one token at a time (burst 1) at more than about a thousand a
// second then runs at the timer's pace; with a burst, the tokens that lateness leaves unused go
// at once after the wake-up.
//
// # Errors
//
// A refusal that waiting cannot cure is an error, returned at once and consuming nothing:
// [ErrNever] (with errors.Is), [*DeadlineError] (errors.As; it matches
// [context.DeadlineExceeded]), or the context's own error when it was done before or during the
// wait. A cost below 1 is a programmer error and panics, as in the core; Acquire returns the
// keyed limiter's error for it instead (matching numerus.ErrInvalidArgument), and its errors; its
// error for a cost above the policy's capacity matches ErrNever, as Wait's and Take's do, as well
// as numerus.ErrInvalidArgument.
package schedule
