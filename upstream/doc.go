// Package upstream paces outbound HTTP by what the upstream says of its quota: an
// [http.RoundTripper] that takes each request from a [schedule.Gate] of its upstream, and steers
// the gate by the 429s, Retry-After fields and rate-limit fields of the responses.
//
//	rt, err := upstream.New(http.DefaultTransport, upstream.WithRetries(3))
//	client := &http.Client{Transport: rt}
//
// With a policy of your own as well, which every request must keep besides what the upstream
// says, with a margin for the network's delays (see package typed, "Margins"):
//
//	sp, _ := typed.Parse("10/s & 5000/h")
//	sp, _ = sp.WithMargin(50 * time.Millisecond)
//	rt, err := upstream.New(http.DefaultTransport, upstream.WithPolicy(sp))
//
// # Signals
//
// After each response the [Transport] reads what it says of its upstream's quota:
//
//   - A 429 or a 503 with Retry-After, in seconds or as an HTTP-date, pauses the upstream's gate
//     until then ([schedule.Gate.RetryAfter]): no request goes during the pause.
//   - RateLimit and RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers -10 and -11,
//     Structured Fields of RFC 9651, read with github.com/dunglas/httpsfv):
//     "burst";r=50;t=30 lets at most 50 more go in the next 30 seconds, and then the policy's
//     q in each window of w; r=0 pauses until t. Each policy of the fields, by its name and
//     partition key (pk), is a budget of its own, and every budget must admit a request: the
//     most restrictive governs.
//   - X-RateLimit-Remaining and X-RateLimit-Reset (with X-RateLimit-Limit, as GitHub sends them),
//     the same way. A Reset later than a day before the response's Date, in Unix seconds, is an
//     instant (GitHub's); any other is seconds to wait.
//
// An HTTP-date or a Reset instant is read against the response's Date field when it has one, so
// that a local clock set apart from the upstream's neither shortens nor lengthens the wait. Every
// wait is at most the max pause ([WithMaxPause], [DefaultMaxPause] by default). Fields that do
// not parse say nothing.
//
// # Budgets
//
// A budget is a [numerus.Limiter] of its own, composed with the local policy in the gate's
// limiter: [numerus.AllOf] of them decides each request, and answers when a refused one may go.
// The gate's waiters are played again under each new budget ([schedule.Gate.Update]), so a
// request queued behind a spent budget goes at its reset, and one whose context's deadline the
// reset passes fails at once.
//
// A response leaves its upstream before the requests sent after it arrive there, so a budget it
// announces counts as spent the requests let go and not yet answered. Two responses of the same
// window keep the lesser budget (one may have left the upstream before the other and come
// after it); a later window replaces it. From its reset on, a budget admits the quota in each of
// its windows, aligned on the reset: the policy's w for the IETF fields; for the X-RateLimit
// family, which does not say, the longest time from a response to its reset seen so far. A
// budget that knows no quota admits anything from its reset on, until a response steers it again.
//
// # Retries
//
// With [WithRetries], a request answered 429 or 503 with a pause is sent again after it, up to the
// count, within the request's context: a request with no body or one that GetBody gives again,
// of an idempotent method unless [WithRetryAnyMethod]. Otherwise, and once the retries are spent,
// the response is returned as it came, its body unread. A retry that would come at or after the
// request's deadline is not made: the refusal is returned at once, its body kept in memory (up to
// 64 KiB; a refusal with a longer body is not retried).
//
// # Keys
//
// Requests share a gate by key: their host by default, or what [WithKey] returns, such as the
// API token, when the upstream counts per token. The Transport keeps one gate per key for as
// long as it lives.
//
// # Time
//
// The gates read the system clock, as package schedule's do; test code that sends through a
// Transport inside a [testing/synctest] bubble, where the clock is virtual, over an in-memory
// connection.
//
// # Concurrency
//
// A Transport is safe for concurrent use. It starts no goroutine: a request waits in its own
// goroutine, and a gate arms a timer only while a request waits.
//
// # Errors
//
// [New] returns an error matching [numerus.ErrInvalidArgument] for an invalid option. RoundTrip
// returns a [*schedule.DeadlineError] (matching [context.DeadlineExceeded]) at once, sending
// nothing, for a request that the gate would let go only at or after its context's deadline; the
// context's error if it is done while the request waits; and the base transport's errors.
package upstream
