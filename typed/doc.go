// Package typed holds numerus limiters as concrete values: composed without allocating, saved
// and restored, written as text or data, and compiled into a [Policy] for per-subject stores.
//
//	g, _ := typed.NewGCRA(numerus.PerSecond(10), 5) // 5 at once, then one per 100ms
//	w, _ := typed.NewFixedWindow(time.Hour, 1000)   // 1000 in each hour from the top of the hour
//	l := typed.NewAnd(g, w)                         // typed.And[typed.GCRA, typed.FixedWindow]
//	l, from, ok := l.Debit(at)
//
//	sp, err := typed.Parse("10/s & 1000/h") // a Spec, from text
//	p, err := typed.Compile(sp)              // a Policy: many subjects, one State each
//
// Every algorithm of package numerus has a typed form ([GCRA], [TokenBucket], [LeakyBucket],
// [FiniteBucket], [FixedWindow], [SlidingWindow], [SlidingWindowCount]) that decides exactly as
// the dynamic one: they share one implementation. Like numerus limiters they are immutable:
// DebitN returns the value that follows.
//
// # Typed or dynamic
//
// Use numerus.Limiter when the composition is decided at run time or mixes limiters of your
// own. Use typed values when the structure is known as you write the code: [And] and [Or] are
// generic, so a debit allocates nothing (but a sliding log's, when its storage grows).
// [Dynamic] turns a typed value into a numerus.Limiter. Use a [Policy] when the structure comes
// from configuration and many subjects share it: each subject's state is a [State], plain data
// a store keeps.
//
// The [Limiter] constraint is sealed: only this package's types satisfy it.
//
// # Composition
//
// [And] and [Or] mean what numerus.And and numerus.Or mean: And charges both children or
// neither and answers the later; Or charges each child that admits and answers the earlier.
// Nest them for more children: NewAnd(a, NewAnd(b, c)). A composition keeps the time rule as a
// whole: no leaf is ever debited before the tree's latest admission.
//
// # Notation
//
// [Parse] reads a policy written as text; [Spec.String] writes it back, and Parse(s.String())
// equals s. The grammar, case-insensitive, with white space allowed between tokens:
//
//	policy := term { "|" term }
//	term   := factor { ( "&" | ";" ) factor }
//	factor := "(" policy ")" | limit
//	limit  := [ algo ] count [ "/" [ int ] unit ] [ "burst" int ] [ "in" int ]
//	algo   := "gcra" | "token" | "leaky" | "finite" | "window" | "sliding" | "buckets" | "count"
//	unit   := "ns" | "us" | "µs" | "ms" | "s" | "sec" | "second" | "seconds" | "m" | "min"
//	        | "minute" | "minutes" | "h" | "hour" | "hours" | "d" | "day" | "days"
//
// "&" binds tighter than "|"; ";" is "&". Examples:
//
//	100/min                              at most 100 in any minute, all at once (the sliding log)
//	gcra 10/s                            one per 100ms: 10 in any second
//	10/s burst 20                        a GCRA: 20 at once, then one per 100ms; 29 in some second
//	gcra 10/s burst 5 & window 1000/1h   both; the window resets at the top of each hour
//	5/s | 100/min                        admitted while either admits
//	buckets 100/1m in 6                  the sliding window over six 10s sub-windows
//	count 50/10s                         the sliding window counter
//	finite 100                           100 in all
//
// A bare rate is the sliding log, which keeps an entry per admitted instant up to the count;
// for a large count, "gcra 100000/h" keeps three words. The burst of gcra, token and leaky
// defaults to 1. "in" is required for buckets. Windows align on the Unix epoch. An error of
// Parse is a [*SyntaxError] that names the column at fault.
//
// A [Spec] is also JSON: {"algo":"gcra","limit":"10/s","burst":5}, {"limit":"100/min"},
// {"and":[...]}, {"or":[...]}, or a string in the notation.
//
// # Snapshots
//
// Every typed value implements encoding.BinaryMarshaler, BinaryAppender and BinaryUnmarshaler,
// and json.Marshaler and json.Unmarshaler; a snapshot holds the policy and the state. A Policy
// writes one of its States as a snapshot ([Policy.AppendSnapshot], [Policy.SnapshotJSON]), read
// back by [ReadSnapshot] and [ReadSnapshotJSON], or alone and shorter ([Policy.AppendState],
// read only by the same policy with [Policy.DecodeState]).
//
// Decoders validate everything and never panic: bad input is an error matching [ErrCorrupt],
// a policy of the wrong shape [ErrMismatch], and no decoded value admits more than its policy.
// A snapshot once written stays readable: a new format gets a new [Version].
//
// # Margins
//
// An upstream counts requests when they arrive, and each is delayed on the way by its own
// amount. [Spec.WithMargin] returns a policy that keeps the spec's limits at the upstream when
// those delays differ by at most m:
//
//	sp, _ := typed.Parse("gcra 5/s burst 1 & sliding 100/m")
//	safe, _ := sp.WithMargin(50 * time.Millisecond) // gcra 5/1250ms burst 1 & sliding 100/60050ms
//
// An Or takes no margin: its children share its admissions, so none of them bounds the whole.
//
// # Policy change
//
// [Policy.Continue] carries a subject's state over to a changed policy. No change refills: a
// subject keeps at most the tokens it had, re-applying a policy changes nothing, and switching
// back and forth never leaves more than staying.
//
// # Time
//
// Every decision takes its instant; nothing here reads the clock. An instant earlier than the
// latest one admitted counts as that one. Instants are clamped to the years 1678 to 2262.
//
// # Concurrency
//
// Typed values, Policies and States are values, safe to share between goroutines. A store that
// keeps a State per subject serializes its own updates.
//
// # Limits
//
// Every reader of a policy (Parse, JSON, [Compile], the snapshot decoders) holds it to limits
// that no policy written by hand comes near, so that its work and memory stay in proportion to
// its input: at most 1,000 children in an And or Or, 1,000 leaves in all, 32 levels of nesting,
// and 128 KiB of text. A sliding log holds at most its limit of entries.
//
// # Errors
//
// Constructors and [Spec.Validate] return a *numerus.ParamError, matching
// numerus.ErrInvalidArgument; Parse returns a [*SyntaxError] (matching [ErrSyntax], and the
// ParamError for a bad value); decoders return errors matching ErrCorrupt or ErrMismatch. Only a
// debit cost below 1 panics.
//
// # Performance
//
// A debit of a typed value allocates nothing and makes no interface call; an And of three
// takes a few times one limiter. [Policy.DebitN] allocates nothing for policies that fit a
// State's inline words and hold no sliding log. See bench/RESULTS.md.
package typed
