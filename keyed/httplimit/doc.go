// Package httplimit puts a keyed limit in front of HTTP handlers and tells clients about it with
// the fields of the IETF ratelimit-headers draft (draft-ietf-httpapi-ratelimit-headers-11).
//
//	policy, err := typed.Parse("100/s")
//	lim, err := keyed.New(memory.New(), policy, keyed.StringKey{})
//	mw, err := httplimit.New(lim, httplimit.FailClosed)
//	http.Handle("/", mw.Handler(app))
//
// A client then sees, for instance:
//
//	RateLimit-Policy: "default-1";q=5;w=1, "default-2";q=100;w=60
//	RateLimit: "default-2";r=50;t=30
//	Retry-After: 30
//
// # Fields
//
// [SetHeaders] writes a keyed.Decision as these fields. RateLimit-Policy lists every limit of the
// policy, each child of an And as a policy of its own ([QuotaOf]). RateLimit reports the limit
// that binds: r is what remains, and t the seconds until one more token (admitted) or until the
// same request would be admitted (refused, as Retry-After). Seconds round up, so a client that
// waits them out is never early. A request that can never succeed is a 429 without Retry-After.
//
// # Middleware
//
// [New] wraps a keyed.Limiter[string]. Each request costs one token, or what [WithCost] says,
// and is keyed by its client's address unless [WithKey] says otherwise: the IPv4 address, or
// the /64 of an IPv6 one ([WithIPv6Prefix]). X-Forwarded-For is trusted only from the proxies [WithTrustedProxies]
// names ([ClientIP]). No request is free unless [WithFreeRequests] says so. The caller chooses
// what a failure of the store means: [FailOpen] serves the request, [FailClosed] answers 503.
package httplimit
