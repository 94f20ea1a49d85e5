// Package numerus provides rate limiters that are immutable values, exact to the nanosecond, and
// composable.
//
// A [Limiter] is a value, like a [time.Time]. Debiting it does not change it: [Limiter.Debit] and
// [Limiter.DebitN] return the limiter that follows an admitted debit, or say when the same debit
// could succeed:
//
//	limiter := numerus.And(
//		numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5)),   // 5 at once, 10 a second: up to 14 in a second
//		numerus.Must(numerus.SlidingWindow(time.Minute, 100)), // and 100 in any minute
//	)
//	now := time.Now()
//	next, from, ok := limiter.Debit(now)
//	if !ok {
//		wait, finite := from.Wait(now) // finite is false when from is Never: no wait will do
//		...
//	}
//	limiter = next
//
// A debit has two outcomes: admitted, with the next limiter, or refused, with the instant from
// which it would be admitted. Go has no sum type, so the outcome is three results (next, from,
// ok), each meaningful in both cases. When ok is true, next is the limiter after the debit and
// from is [DebitableFrom] the instant of the debit. When ok is false, next is the receiver itself
// and from is when the same debit would succeed, or [Never]. Either way limiter = next is right,
// and nothing is nil.
//
// A refusal returns the receiver, unchanged, because a refused debit must not count: limiters
// that count refusals lock out a client that keeps trying. Returning the receiver makes that
// impossible to get wrong, costs no allocation, and lets a caller keep next without looking at ok.
//
// The zero [NextDebitable] is [Never], after every instant. An answer that nobody set reads as
// "never", not as "retry now" (as a zero time.Time, an instant long past, would), so a forgotten
// answer cannot turn into a retry loop. A debit of more than a limiter can ever hold is Never too,
// not a wait after which it would still fail. A refusal's instant is held as the debit's own
// time.Time and an offset ([DebitableAfter]), so refusing costs no time arithmetic and the
// instant keeps the location and monotonic reading of the time the caller passed; like
// time.Time, compare answers with Equal or Compare, not ==.
//
// Since an old value stays valid, a caller can peek (debit and discard the result), try a debit
// on several branches, or retry from a value kept aside. [Admissions] lists the instants at which
// back-to-back debits would be admitted, and a refusal's [NextDebitable.Wait] says how long one
// must wait; neither sleeps.
// (Admissions is named for what it yields, so that "schedule" names only package schedule.)
//
// # Choosing an algorithm
//
// Every constructor validates its policy and returns a [Limiter]. In the table, d is any span of
// time (from an instant up to, not including, the instant d later), w the window, k the number of
// sub-windows, and a debit costs O(1) unless said otherwise.
//
//	constructor                     bound                           burst after idle     memory
//	GCRA(rate, b)                   b − 1 + ⌈rate·d⌉ in any span d  b, then one per      arrival, its
//	                                                                rate interval        fraction, instant
//	TokenBucket(b, rate)            as GCRA: decides the same       b (starts full)      count, instant
//	LeakyBucket(b, rate)            as GCRA: decides the same       b (starts empty)     level, instant
//	FiniteBucket(n)                 n in all, ever                  n                    one count
//	FixedWindow(w, n, start)        n in each window; up to 2n      n, at any instant    window, count,
//	                                across a window boundary        of a window          instant
//	SlidingWindow(w, n)             n in any span w, exactly        n                    up to n entries
//	SlidingWindowBucketed(w, k, n)  n in any k consecutive          n                    up to k entries
//	                                sub-windows; under 2n in w
//	SlidingWindowCount(w, n, start) n in each window; estimated     n                    window, two
//	                                in between; at most 2n in w                          counts, instant
//
// A rate of N per period with a burst b thus admits up to b + N - 1 in a span of the period:
// GCRA(PerSecond(10), 5) admits 14 in some second. "At most N in any period" is a burst of 1
// (GCRA(PerSecond(10), 1): one every 100ms), or SlidingWindow(period, N), which admits all N at
// once; the notation of package typed reads "10/s" as the latter.
//
// [GCRA] is the default: a steady rate with a bounded burst, in three words of state. [TokenBucket]
// and [LeakyBucket] make the same decisions in the vocabulary of tokens held or water poured; their
// status reads as tokens or room left. [FiniteBucket] is a quota that never refills. [FixedWindow] matches
// quotas that reset on the clock ("1000 a day from midnight") and is the cheapest window, at the
// price of its boundary burst. [SlidingWindow] is the exact window log: one entry per distinct
// instant, debits O(1) amortized, and the answer of a refusal found by binary search, O(log n).
// [SlidingWindowBucketed] is the same log over sub-windows aligned on the Unix epoch, so its memory
// is bounded by k rather than n. [SlidingWindowCount] is the sliding window counter: two counts and
// an estimate, exact in integer arithmetic, for large n where the log's memory matters.
// [AlwaysAllow] and [AlwaysDeny] are the neutral elements of composition.
//
// # Composition
//
// [And] and [Or] combine two limiters; [AllOf] and [AnyOf] any number. They return a [Limiter], so
// they nest. AllOf and AnyOf copy their arguments; AllOf() is [AlwaysAllow], AnyOf() is
// [AlwaysDeny], and AllOf(l) and AnyOf(l) are l.
//
// AllOf admits a debit only if every child admits it, at the same instant and cost, and then
// charges every child. It is atomic: if one child refuses, no child is charged and the receiver is
// returned. The answer is the latest of the children's answers, and [Never] as soon as one child
// says Never. That instant is then checked against every child, and moved on to the latest of
// their answers while some child refuses, for at most 64 rounds, after which it is Never;
// children that keep pushing each other's answer on cannot loop. The built-in limiters settle in
// the first round, since waiting never takes capacity away. Its [Status] has the least Limit and
// Remaining of its children and the latest Full.
//
// AnyOf admits a debit if at least one child admits it, and charges every child that admits it;
// the others keep their value. It refuses only if every child refuses, with the earliest of their
// answers, Never only if all of them say Never. Its Status has the greatest Limit and Remaining of
// its children and the latest Full: it is full when every child is.
//
// AlwaysAllow is neutral for And; AlwaysDeny is neutral for Or and absorbing for And. [Latest] and
// [Earliest] are the answers of And and Or for two children, and [NextDebitable.Compare] orders
// answers with Never last.
//
// # Time
//
// Time is a parameter: every decision takes the instant it is made at, and nothing in this package
// reads the clock. Pass time.Now() in production and fixed instants in tests; the same value
// debited at the same instant always answers the same.
//
// An instant is its wall-clock reading in nanoseconds since the Unix epoch (its monotonic
// reading and location do not count), clamped to what an int64 can hold: from late 1677 to early
// 2262. Answers come back in the location of the instant asked about.
//
// An instant earlier than the latest one a limiter admitted at is treated as that latest one, so
// time never runs backwards for a limiter: out-of-order instants, a clock stepped back, or the same
// instant repeated never credit capacity twice. A composite keeps the rule as a whole: an And or
// an Or counts an instant earlier than the latest it admitted at as that one for every child,
// also for a child of an Or that took no part in that admission (which would otherwise free its
// capacity early).
//
// Arithmetic is exact. A [Rate] is the fraction n/d, reduced: [PerSecond](3) is three every second
// for ever, never one every 333,333,333ns. The GCRA keeps its theoretical arrival time as whole
// nanoseconds plus a fraction, the buckets count in fractions of a token fine enough that every
// nanosecond refills a whole number of them, and the sliding counter compares its estimate in
// 128-bit integers. A policy whose numbers do not
// fit is refused at construction, and instants saturate at the ends of the range rather than
// wrap. The numbers fit when the time a burst (or a bucket's capacity) takes at the rate is under
// the exact range: about 292 years divided by the rate's count in lowest terms, since that
// arithmetic counts in fractions of a nanosecond. That is 292 years at one token per interval
// ([Every], or [PerSecond](1)), about 42 years at [Per](7, 10*time.Second), and 9.2 seconds at
// [PerSecond](999_999_999).
//
// Answers are tight: the same debit, with no other debit in between, is admitted at the instant
// from names and refused a nanosecond before it. An answer that falls between two nanoseconds is
// rounded up, never advising an early retry; [Status] rounds Remaining down and Full up.
//
// [FixedWindow] and [SlidingWindowCount] align their windows on the start they are given, before
// it as well as after; [SlidingWindowBucketed] aligns its sub-windows on the Unix epoch.
//
// # Concurrency
//
// Values are immutable, so any number of goroutines may debit, read and share the same value
// without locks. The sliding logs share storage between successive values: a value appends in
// place only after claiming the next slot with an atomic compare-and-swap, and copies its live
// entries otherwise, so a written slot never changes and an old value debited again, on any
// goroutine, still answers correctly.
//
// Sharing one limit is the caller's choice: goroutines that each debit their own copy each get the
// whole allowance. To share one, keep the current value in one place, behind a sync.Mutex or in an
// atomic.Pointer updated with CompareAndSwap (and debited again when the swap loses), and debit
// that.
//
// # Errors
//
// Constructors validate once. An invalid parameter is an error of type [*ParamError], which names
// the parameter and the problem and matches [ErrInvalidArgument] with errors.Is. After that a debit
// never returns an error: a refusal is ok == false with an answer. [Must] turns an error into a
// panic, for policies written as literals.
//
// A debit costs at least one token: a cost below 1 is a programmer error, and [Limiter.DebitN]
// panics on it, as does the sequence of [Admissions] given one.
//
// # Performance
//
// Through the [Limiter] interface, an admitted debit of one algorithm allocates once, the next
// value, and a refused one allocates nothing, since it returns the receiver; [Limiter.Status]
// allocates nothing. The sliding logs also grow their shared storage, by doubling, which adds a
// small fraction of an allocation per debit. A combinator allocates what its children do, plus
// two for its own next value when it admits. An [AllOf] asks its built-in children before it
// charges them, so a refusal allocates nothing; a child written outside this package is asked by
// debiting it and discarding the result. An [AnyOf] refuses only when every child does, and
// allocates nothing of its own then. The benchmarks and allocation tests of this package measure
// and pin these figures.
//
// Package [github.com/numerus-closus/numerus/typed] provides the same algorithms as concrete
// values sharing the same arithmetic, composed with generics rather than interfaces: their debits,
// compositions included, allocate nothing (only the sliding log does, amortized, when its storage
// grows), they save and restore their state, and they turn into a [Limiter] when they must mix with
// dynamic ones. It also reads policies written as data or as text ("gcra 10/s burst 5 & window
// 1000/1h"). Package [github.com/numerus-closus/numerus/schedule] waits over limiters: Wait, a
// goroutine-safe Gate, and Drain loops. Module github.com/numerus-closus/numerus/upstream paces
// outbound HTTP through such gates, steered by what the upstream's responses say of its quota.
//
// # Testing your own limiter
//
// [Limiter] is an interface that other packages may implement, and combinators take any
// implementation. Package [github.com/numerus-closus/numerus/numerustest] checks an implementation against the laws every limiter
// must obey, among them those above: the same debits give the same answers, debiting a value does
// not change it, a refusal changes nothing, answers are tight and Never is final. Call its Run from
// a test with a function that returns a fresh limiter; each law runs as a subtest over random
// timelines.
package numerus
