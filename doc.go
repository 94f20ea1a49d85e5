// Package numerus provides rate limiters that are immutable values, exact to the nanosecond,
// and composable.
//
//	limiter := numerus.And(
//		numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5)),   // 5 at once, 10 a second
//		numerus.Must(numerus.SlidingWindow(time.Minute, 100)), // and 100 in any minute
//	)
//	next, from, ok := limiter.Debit(time.Now())
//	if !ok {
//		wait, finite := from.Wait(time.Now()) // finite is false when no wait will do
//		...
//	}
//	limiter = next
//
// This package is the core: pure values, no clock, no goroutines. Around it:
//
//   - [github.com/numerus-closus/numerus/typed]: the same limiters as concrete values that
//     allocate nothing, snapshots, and policies as data or text ("10/s & 100/min").
//   - [github.com/numerus-closus/numerus/schedule]: waiting for a limiter, alone or shared by
//     goroutines through a Gate.
//   - [github.com/numerus-closus/numerus/keyed]: a limit per subject (API key, account, client
//     address) kept in a store; [github.com/numerus-closus/numerus/keyed/memory] in process.
//   - [github.com/numerus-closus/numerus/keyed/httplimit]: HTTP middleware with RateLimit and
//     Retry-After fields.
//   - [github.com/numerus-closus/numerus/redisstore]: the store on Redis, shared by processes.
//   - [github.com/numerus-closus/numerus/upstream]: an http.RoundTripper that paces outbound
//     requests by your policy and by the upstream's answers.
//
// # Debits
//
// A [Limiter] is a value, like a [time.Time]. [Limiter.Debit] and [Limiter.DebitN] do not
// change it; they return three results:
//
//   - admitted: ok is true, next is the limiter after the debit.
//   - refused: ok is false, next is the receiver unchanged, and from says when the same debit
//     would succeed, or is [Never].
//
// Either way limiter = next is right. A refusal counts nothing, so a client that keeps trying
// is not locked out. A debit larger than the limiter can ever hold is Never, not a wait.
// The zero [NextDebitable] is Never too, so a forgotten answer cannot become a retry loop.
// Compare answers with Equal or Compare, not ==.
//
// An old value stays valid: peek by debiting and discarding the result, or retry from a value
// kept aside. [Admissions] plans debits without sleeping.
//
// # Choosing an algorithm
//
// Every constructor validates its policy once. T is any span, from an instant up to, not
// including, T later.
//
//	GCRA(rate, b)                    b at once, then the rate: b − 1 + ⌈rate·T⌉ in any span T
//	TokenBucket(b, rate)             as GCRA, in tokens held
//	LeakyBucket(b, rate)             as GCRA, in room left
//	SlidingWindow(w, n)              n in any span w, exactly; up to n entries
//	SlidingWindowBucketed(w, k, n)   n in any k consecutive sub-windows; up to k entries
//	SlidingWindowCount(w, n, start)  n per aligned window, estimated in between; ≤ 2n in any w
//	FixedWindow(w, n, start)         n per aligned window; up to 2n across a boundary
//	FiniteBucket(n)                  n in all, never refilled
//
// [GCRA] is the default. A rate of N per period with a burst b admits up to b + N − 1 in some
// period; for "at most N per period" use a burst of 1 or [SlidingWindow]. [FixedWindow] matches
// quotas that reset on the clock. [AlwaysAllow] and [AlwaysDeny] are the neutral elements of
// composition.
//
// # Composition
//
// [And] and [Or] combine two limiters, [AllOf] and [AnyOf] any number; the result is a Limiter,
// so they nest.
//
// AllOf admits only if every child admits, and then charges every child; if one refuses, none
// is charged. Its answer is the latest child's, checked against every child for a bounded
// number of rounds, and Never if any child says Never. Its [Status] has the least Remaining.
//
// AnyOf admits if any child admits, and charges each child that does. It refuses only if every
// child refuses, with the earliest answer. AllOf() is AlwaysAllow and AnyOf() is AlwaysDeny.
//
// # Time
//
// Time is a parameter: every decision takes its instant, and nothing here reads the clock. The
// same value debited at the same instant always answers the same.
//
// An instant earlier than the latest one a limiter admitted at counts as that one, so
// out-of-order instants, a clock stepped back or a repeated instant never grant capacity. An And
// or an Or keeps this rule as a whole, for every child.
//
// Arithmetic is exact: a [Rate] is a reduced fraction, so [PerSecond](3) is three every second,
// never one every 333,333,333ns. Answers are tight: the same debit is admitted at the instant
// from names and refused a nanosecond before. Waits round up, [Status].Remaining rounds down.
// Instants are clamped to what int64 nanoseconds since 1970 can hold (1678 to 2262); a policy
// whose numbers would not fit is refused at construction.
//
// # Concurrency
//
// Values are immutable: any number of goroutines may debit and share one without locks. Each
// copy carries the whole allowance, so to share one limit, keep its current value in one place
// (behind a mutex, or in an atomic.Pointer updated with CompareAndSwap), or use a schedule.Gate.
//
// # Errors
//
// An invalid parameter is a [*ParamError], which names it and matches [ErrInvalidArgument].
// After construction a debit never returns an error. [Must] panics on an error, for policies
// written as literals. A cost below 1 is a programmer error: DebitN and Admissions panic.
//
// # Performance
//
// Through the Limiter interface an admitted debit allocates its next value; a refusal and
// [Limiter.Status] allocate nothing. The values of package typed allocate nothing but a sliding
// log's storage.
//
// # Testing your own limiter
//
// Limiter may be implemented outside this package, and the combinators take any
// implementation. [github.com/numerus-closus/numerus/numerustest] checks one against the laws
// every built-in limiter obeys.
package numerus
