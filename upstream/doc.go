// Package upstream paces outbound HTTP by what the upstream says of its quota: an
// [http.RoundTripper] that takes each request from a [schedule.Gate] of its upstream, and steers
// the gate by the 429s, Retry-After and rate-limit fields of the responses.
//
//	rt, err := upstream.New(http.DefaultTransport, upstream.WithRetries(3))
//	client := &http.Client{Transport: rt}
//
// With a policy of your own as well, kept with a margin for the network's delays
// (typed.Spec.WithMargin):
//
//	sp, _ := typed.Parse("10/s & 5000/h")
//	sp, _ = sp.WithMargin(50 * time.Millisecond)
//	rt, err := upstream.New(http.DefaultTransport, upstream.WithPolicy(sp))
//
// # Signals
//
// After each response the [Transport] reads what it says of the upstream's quota:
//
//   - a 429 or 503 with Retry-After (seconds or an HTTP-date) pauses the upstream's gate until
//     then;
//   - RateLimit and RateLimit-Policy (the IETF draft, -10 and -11): "burst";r=50;t=30 lets at
//     most 50 more go in the next 30 seconds; each named policy is a budget of its own;
//   - X-RateLimit-Remaining and X-RateLimit-Reset, as GitHub sends them, the same way.
//
// Dates and reset instants are read against the response's Date field, so a local clock set
// apart from the upstream's changes no wait. No wait exceeds [WithMaxPause]. Fields that do not
// parse say nothing.
//
// # Budgets
//
// Each budget is a [numerus.Limiter] composed with your policy by [numerus.AllOf], and waiting
// requests are played again under each new one. A budget counts as spent the requests already
// sent and not yet answered. From its reset on it admits its quota in each of its windows.
//
// # Retries
//
// With [WithRetries], a request answered 429 or 503 with a pause is sent again after it, within
// its context, if its body can be sent again and its method is idempotent (or
// [WithRetryAnyMethod]). A retry that would come at or after the deadline is not made: the
// refusal is returned at once.
//
// # Keys
//
// Requests share a gate per host, or per what [WithKey] returns (an API token, say).
//
// # Time and concurrency
//
// The gates read the system clock; test through a Transport in a [testing/synctest] bubble. A
// Transport is safe for concurrent use and starts no goroutine.
//
// # Errors
//
// [New] returns an error matching [numerus.ErrInvalidArgument] for an invalid option. RoundTrip
// returns a [*schedule.DeadlineError] at once, sending nothing, for a request that could go
// only after its deadline; the context's error if it ends while the request waits; and the
// base transport's errors.
package upstream
