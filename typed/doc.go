// Package typed holds numerus limiters as data: concrete values whose policy and state are plain,
// composed statically without allocating, saved and restored, described by a [Spec] or a short
// notation, and compiled into a [Policy] that debits per-subject [State]s for keyed stores.
//
// Every algorithm of package numerus has a typed form: [GCRA], [TokenBucket], [LeakyBucket],
// [FiniteBucket], [FixedWindow], [SlidingWindow] (the exact log, or bucketed) and
// [SlidingWindowCount]. Each wraps the same kernel as the dynamic limiter, so both decide exactly
// alike: there is one copy of each algorithm's arithmetic. Like numerus limiters they are
// immutable values modelled on time.Time: DebitN returns the value that follows.
//
//	g, _ := typed.NewGCRA(numerus.PerSecond(10), 5) // 5 at once, then one per 100ms: up to 14 in a second
//	w, _ := typed.NewFixedWindow(time.Hour, 1000)   // 1000 in each hour from the top of the hour
//	l := typed.NewAnd(g, w)                         // typed.And[typed.GCRA, typed.FixedWindow]
//	l, from, ok := l.Debit(at)
//
// # Typed or dynamic
//
// Use numerus limiters (the numerus.Limiter interface) when the composition is decided at run
// time, or mixes limiters of your own. Use typed limiters when the structure is known when you
// write the code and the limiter is on a hot path or must be saved: [And] and [Or] are generic,
// so a debit of a typed limiter, compositions included, allocates nothing (only the sliding log
// allocates, amortized, when its storage grows). [Dynamic] turns any typed limiter into a
// numerus.Limiter, so the two mix. Use a [Policy] when the structure comes from configuration and
// many subjects share it: each subject's state is then a [State], plain data a store keeps.
//
// The [Limiter] constraint is sealed: only this package's types satisfy it, which is what lets
// every typed limiter be saved, restored and described by a Spec.
//
// # Composition
//
// [And] admits a debit only if both children admit it and then charges both; refused, it charges
// neither and answers the latest of the children's answers. [Or] charges every child that admits
// and refuses only if both refuse, with the earliest answer. These are the semantics of numerus.And
// and numerus.Or. Nest them for more children: NewAnd(a, NewAnd(b, c)). numerus.AllOf confirms
// its answer with a bounded search, because a limiter of the user's might refuse at the latest
// answer; a typed limiter cannot (its answers are exact, and what it admits at an instant it admits
// at every later one), so And and a Policy return the latest answer directly: the same answer,
// without the search. A property test checks them against numerus.And and numerus.Or.
//
// A composition keeps the time rule as a whole, as numerus.And and numerus.Or do: an instant
// earlier than the latest any leaf holds counts as that one for every leaf, and an Or that admits
// brings the leaves of its other children to its instant (their capacity is what it was; only
// their clock moves), so no leaf of a tree is ever debited before the tree's latest admission.
//
// # Notation
//
// [Parse] reads a policy written as text, and [Spec.String] writes one; Parse(s.String()) equals
// s. The grammar, in EBNF, case-insensitive and tolerant of white space between tokens:
//
//	policy := term { "|" term }
//	term   := factor { ( "&" | ";" ) factor }
//	factor := "(" policy ")" | limit
//	limit  := [ algo ] count [ "/" [ int ] unit ] [ "burst" int ] [ "in" int ]
//	algo   := "gcra" | "token" | "leaky" | "finite" | "window" | "sliding" | "buckets" | "count"
//	unit   := "ns" | "us" | "µs" | "ms" | "s" | "sec" | "second" | "seconds" | "m" | "min"
//	        | "minute" | "minutes" | "h" | "hour" | "hours" | "d" | "day" | "days"
//
// "&" binds tighter than "|". ";" is a synonym of "&", as Python's limits writes
// "10/second;100/minute".
//
// A bare rate, a count and a period with neither an algorithm nor a burst ("100/min",
// "100/minute", "100/1m", "100/60s"), is the exact sliding log "sliding 100/m": at most 100 in
// any minute, all 100 available at once, which is what a reader takes "100 a minute" to mean;
// "10/second;100/minute" admits at most 10 in any second and 100 in any minute. (The log keeps an
// entry per instant it admitted at within the period, up to the count: for a large count whose
// memory matters, "gcra 100000/h" keeps three words and admits at most as many, one every 36ms.)
// A rate with a burst and no algorithm is a GCRA. The burst of gcra, token and leaky
// (at least 1) defaults to 1, so that "gcra 100/min" too admits at most 100 in any minute, one
// every 600ms. A burst b above 1 admits b at once and up to b + N - 1 in a span of the period, for
// a rate of N per period: "10/s burst 20" admits 29 in some second. (A span of a period is
// half-open, from an instant to that instant plus the period.) "in" gives the sub-windows of
// buckets and is required there; finite takes a count and no period ("finite 100"). Every window
// aligns on the Unix epoch. Examples:
//
//	100/min                              at most 100 in any minute, all at once: the sliding log
//	10/s burst 20                        a GCRA: 20 at once, one per 100ms after; 29 in a second
//	gcra 10/s                            a GCRA of burst 1: one per 100ms, 10 in any second
//	gcra 10/s burst 5 & window 1000/1h   both: 5 at once and up to 14 in a second, and 1000 in
//	                                     each hour from the top of the hour (up to 2000 in an
//	                                     hour across its turn)
//	5/s | 100/min                        either: admitted while one of them admits
//	sliding 100/1m                       the exact sliding log, as 100/1m
//	buckets 100/1m in 6                  the sliding window over six 10s sub-windows
//	count 50/10s                         the sliding window counter
//	500/7d                               at most 500 in any week
//
// Every error of [Parse] is a [*SyntaxError] that names the column of the text at fault and says
// what was wrong there in the notation's words: "typed: column 4: expected a unit such as s, min
// or h, found \"x\"" for a token out of place, "typed: column 9: finite takes no period" or
// "typed: column 1: the count must be at least 1" for a value or a parameter, which also matches
// numerus.ErrInvalidArgument.
//
// A [Spec] is also JSON for configuration files: {"algo":"gcra","limit":"10/s","burst":5},
// {"limit":"100/min"} (without algo, as the notation reads it: the sliding log),
// {"and":[...]}, {"or":[...]}, or simply a string in the notation. A Spec's Burst of 0, in JSON
// or in Go, is the default burst, 1.
//
// # Snapshots
//
// Every typed limiter and composition implements encoding.BinaryMarshaler and BinaryAppender
// (with value receivers) and encoding.BinaryUnmarshaler (with a pointer receiver, as time.Time
// does), and json.Marshaler and json.Unmarshaler. A snapshot holds the policy and the state:
//
//	version  one byte, [Version] (1)
//	policy   pre-order: a kind byte (1 gcra, 2 token, 3 leaky, 4 finite, 5 window, 6 count,
//	         7 sliding, 8 buckets, 9 and, 10 or), then its parameters as zig-zag varints:
//	         count, period (ns), and burst (gcra, token, leaky) or in (buckets); finite writes its
//	         count alone; and/or write their number of children (uvarint) and then the children
//	state    for each leaf in pre-order, its state words as zig-zag varints; a log writes its
//	         last instant, its number of live entries (uvarint), then (instant, tokens) pairs
//
// The state words are the kernels' own fields, instants in nanoseconds since the Unix epoch:
//
//	gcra     tat, tat fraction (in 1/N ns, where the rate is N tokens per P ns in lowest terms), last
//	token    tokens (scaled: one token is P units), last
//	leaky    level (scaled like tokens), last
//	finite   left
//	window   start, count, last
//	count    start, prev, cur, last
//	sliding  last, then (instant, tokens) for each live entry; buckets the same over sub-windows
//
// The JSON form is {"version":1,"policy":<Spec>,"state":[[words of leaf 0],[words of leaf 1],...]}.
// Both forms write the burst a gcra, token or leaky leaf decides by, the default included. Earlier
// writers wrote a burst left to its default, which was then the count, as 0 (and the JSON form
// left it out): a snapshot read with a burst of 0, or none, has the count for its burst, and so
// decides as it did when it was written.
// A [Policy] writes such a snapshot of one of its States ([Policy.AppendSnapshot],
// [Policy.SnapshotJSON]), which [ReadSnapshot] and [ReadSnapshotJSON] read back as a Policy and a
// State, whatever wrote them; the limiters of [Policy.Limiter] and [Dynamic] marshal themselves
// so, that one held as a numerus.Limiter can be saved. A [State] alone encodes
// ([Policy.AppendState]) as the version, four bytes identifying its policy, and the state words
// of its leaves: shorter, for a store that keeps the policy apart, and readable only by that
// policy as written ([Policy.DecodeState]).
//
// Decoders validate everything: an unknown version, truncated input or trailing bytes, an invalid
// policy or one past the limits (see Limits), a policy of another shape than the type decoded into
// ([ErrMismatch]), and any state the policy could never reach (tokens above capacity, a TAT
// further ahead than the burst allows, a count above the limit, log entries out of order or beyond
// the limit) are errors matching [ErrCorrupt]. A decoder never panics and never yields a limiter
// that admits more than its policy.
//
// Versioning rule: a new format gets a new version byte; readers keep reading every older version
// exactly as before, so a snapshot once written stays readable. The golden files under testdata
// pin the current format.
//
// # Margins
//
// An upstream counts requests when they arrive, and the network delays each by its own amount:
// the connection set-up, a retransmission, a queue. [Spec.WithMargin] returns a policy that
// keeps a spec's limits at the upstream when those delays differ by at most m:
//
//	sp, _ := typed.Parse("gcra 5/s burst 1 & sliding 100/m")
//	safe, _ := sp.WithMargin(50 * time.Millisecond) // gcra 5/1250ms burst 1 & sliding 100/60050ms
//
// If every admission charged under safe at c arrives at c + d, with d anywhere in [D, D+m] for
// one base delay D, sp decided on the arrivals, in the order they come, admits every one. Each
// leaf is made to put, in any span of length s, no more than sp allows in a span s − m:
//
//	gcra, token, leaky (b at once,  the tolerance (b−1)·T shrinks by m: burst b − ⌈m/T⌉, or one
//	N per P, T = P/N)              token every m + (2−b)·T while no burst would be left
//	sliding n/w                    sliding n/(w+m)
//	buckets n/w in k               ⌈m/(w/k)⌉ + 1 sub-windows more (the upstream's need not be ours)
//	window n/w                     sliding n/(w+m), for the same reason
//	count n/w                      sliding n/(2w+m): the estimate counts from the window before
//	finite n                       finite n: it keeps no time
//	a & b                          the margined a and b; an Or takes no margin (an error)
//
// Why it holds. A GCRA of interval T and tolerance τ admits a sequence exactly when every closed
// span of length s holds at most 1 + ⌊(s+τ)/T⌋ tokens, and its delayed arrivals in a span of
// length s were charged within a span of length s + m. The margined GCRA, of tolerance τ − m,
// puts at most 1 + ⌊(s+m+τ−m)/T⌋ there: the same bound. When τ − m < 0, one token every
// T′ = T − τ + m puts at most 1 + ⌊(s+m)/T′⌋, and s + m ≥ k·T′ gives s + τ ≥ k·T. The windows
// bound the tokens of any span, or of aligned windows, that a span s + m covers; none depends on
// D or on the order of arrival. Rounding only takes away: a burst rounds down. An Or is refused
// because its children share its admissions: none of them sees the whole traffic, so none bounds
// it. TestWithMarginHoldsUpstream checks the rule on random traffic and delays.
//
// # Policy change
//
// [Policy.Continue] carries a subject's state over to a changed policy: a bucket keeps the lesser
// of its tokens and the new capacity (a larger capacity does not refill); a window keeps its count
// in the current window, capped at the new limit, and the lesser of its tokens and the new limit
// less that count (a larger limit does not refill either). In a tree, a leaf identical to the old
// one at its place keeps its state, a changed one continues from the old leaf at its place when
// both are the only changed leaves of their algorithm, and any other from the most used old
// leaf, so a reordered or reshaped tree never holds more than the old one did.
// Re-applying the same policy changes nothing, and switching back and forth never leaves more
// tokens than staying, at the switch or later.
//
// # Time
//
// Every decision takes the instant as a parameter; nothing here reads the clock. An instant
// earlier than the latest one admitted counts as that one. Instants outside the years 1678 to 2262
// are clamped to that range.
//
// # Concurrency
//
// Typed limiters, Policies and States are values, safe to share between goroutines; a store that
// keeps a State per subject serializes its own updates.
//
// # Limits
//
// Every reader of a policy holds it to the same limits, which no policy written by hand comes near
// and which keep a reader's work and memory in proportion to its input:
//
//	children  an And or Or holds at most 1,000 children: "&" or "|" joins at most 1,000
//	leaves    a policy holds at most 1,000 leaves (limits, in the notation) in all
//	depth     And and Or nest at most 32 levels deep; so do the notation's parentheses
//	text      the notation and the JSON form of a spec take at most 128 KiB, which every
//	          valid spec's String and JSON fit in
//
// A snapshot or a State holds no more than its policy can: a sliding log at most its limit of
// entries (a bucketed one, one entry a sub-window). [Spec.Validate] (and so [Compile] and
// [FromSpec]), [Parse], [Spec.UnmarshalJSON], every snapshot and state decoder, and the Redis
// store's CheckPolicy check them before they allocate for what they bound, each as it reads its
// input. Past a limit, Validate and the JSON reader of a spec return a *numerus.ParamError that
// names it, Parse a [*SyntaxError] that matches one too, and the decoders an error matching
// [ErrCorrupt]. Whatever its input, a decoder takes time linear in it and allocates at most about
// ten times its size, beside the policy it returns, which the limits bound: reading and compiling
// one of 1,000 leaves allocates under 1 MB, though its snapshot may take only 3 KB.
//
// # Errors
//
// Constructors and [Spec.Validate] return a *numerus.ParamError (matching
// numerus.ErrInvalidArgument) naming the parameter; decoders return errors matching [ErrCorrupt]
// or [ErrMismatch]; Parse returns a [*SyntaxError] (matching [ErrSyntax]) naming the column, which
// for a value, a parameter or a limit also matches the *numerus.ParamError naming it. Only a debit
// cost below 1 panics, as in package numerus.
//
// # Performance
//
// A debit of a typed limiter is the kernel's arithmetic plus converting the instant: no
// allocation, no interface call. For GCRA, TokenBucket and LeakyBucket, the common case (a rate of
// whole nanoseconds per token, time moving forward, far from the year 2262) is decided by the
// kernel's fast path inlined into DebitN, with no call at all; a refusal's answer is
// numerus.DebitableAfter, which spares the time arithmetic until the caller asks for the instant.
// FixedWindow and SlidingWindowCount do the same for a debit in the window they count, without a
// division (the counter compares its estimate as products; only the instant it answers a refusal
// with takes one). SlidingWindowCount holds its four numbers in three words, so that the value,
// like the others, fits in registers.
// An And whose tree holds only Ands of GCRAs, token and leaky buckets and fixed windows debits its
// leaves in one flat loop, their fast paths inlined, by a plan of where each leaf lies in the
// value that NewAnd makes once; any other tree (an Or, a counter, a log) calls its children
// through Go's generic dispatch, which copies their values in and out at each level. A planned
// And of three costs three to five times one limiter (2.8–4.8× in the bench module's full runs,
// see bench/RESULTS.md), and the copies are why: an And of three limiters holds at least six
// words of state, more than Go's amd64 ABI returns in registers beside numerus.NextDebitable and
// the bool, so `l, _, ok = l.Debit(at)` copies the value into the call, out of it and into l,
// where one limiter stays in registers. The bench module's BenchmarkFloor/case=and3 does only
// that, on a value of the same 112 bytes, writing the words an admitted debit changes and
// computing nothing, and takes as long as the whole debit of three GCRAs (16.7 ns against 16.8
// on an AMD Turin host, where one GCRA takes 4.09): the leaves' arithmetic hides under the
// copies. Neither way allocates.
// [Policy.DebitN] allocates nothing for policies that fit a State's 12 inline words
// (any three algorithms) and hold no sliding log. Stores call [Policy.DebitIn] instead: it debits
// a State in place, on instants in nanoseconds, and reports the status with the verdict, in about
// half the time of DebitN and Status. See bench_test.go.
package typed
