// Package httplimit puts a keyed limit in front of HTTP handlers and tells clients about it with
// the fields of the IETF ratelimit-headers draft (draft-ietf-httpapi-ratelimit-headers-11):
//
//	RateLimit-Policy: "default-1";q=5;w=1, "default-2";q=100;w=60
//	RateLimit: "default-2";r=50;t=30
//	Retry-After: 30
//
// # Fields
//
// [SetHeaders] maps a keyed.Decision to the fields. RateLimit-Policy lists every limit of the
// policy, an And's children each as a policy of its own: q is its quota and w its window in
// seconds ([QuotaOf]). RateLimit reports the limit that binds (the Decision's Binding): r is the
// Decision's Remaining, and t is, on an admission, the seconds until one more token is available
// ("additional quota", RefillAfter) and, on a refusal, until the same request would be admitted
// (RetryAfter), which Retry-After repeats. Every count of seconds is a whole number rounded up,
// so a client that waits it out is never early.
//
// A refusal that can never succeed (RetryAfter is Never: a spent finite quota, or a request whose
// cost exceeds the capacity) is a 429 without Retry-After and without t, whose body says that
// retrying will not succeed: a client must not be told a wait that will not help.
//
// # Middleware
//
// [New] wraps a keyed.Limiter[string]: each request takes cost(r) tokens (one by default) for
// key(r): by default the client's IPv4 address, or the /64 of its IPv6 address, since a host
// handed a /64 can send each request from a fresh address of it ([WithIPv6Prefix] sets another
// length). X-Forwarded-For is never trusted unless the caller names the proxies to trust
// ([WithTrustedProxies]); then the client is the rightmost address that is not a trusted proxy
// ([ClientIP]). No request is free unless [WithFreeRequests] says so: a cost of 0 is charged
// as 1, and a negative (unknown) cost is answered 400. The caller must choose what a failure of
// the store means: [FailOpen] serves the request, [FailClosed] answers 503.
package httplimit
