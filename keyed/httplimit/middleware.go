package httplimit

import (
	"context"
	"net/http"
	"net/netip"
	"slices"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/typed"
)

// OnError says what the middleware does with a request when the store fails (a backend down, a
// timeout): there is no decision to go by, and the caller must choose.
type OnError int

const (
	// FailClosed refuses the request with 503 Service Unavailable, without rate-limit fields:
	// an outage of the store is an outage of the service.
	FailClosed OnError = iota + 1
	// FailOpen serves the request, without rate-limit fields: an outage of the store lifts the
	// limit.
	FailOpen
)

// Middleware limits the requests of each client with a keyed.Limiter. Build one with New.
//
// For each request it takes cost(r) tokens for key(r) (by default one token for the client's IP
// address, see [ClientIP]) and then:
//
//   - admitted: sets the fields of [SetHeaders] and serves the request;
//   - refused: sets the fields and Retry-After and answers 429 Too Many Requests;
//   - refused for good (RetryAfter Never: a spent finite quota, or a cost above the capacity):
//     answers 429 without Retry-After and without t, with a body saying that retrying will not
//     help;
//   - store failure: as the OnError given to New says, after reporting the error to the function
//     of WithErrorLog.
//
// A cost of 0 serves the request unchecked, with no fields: a request the caller declares free (a
// health check, say). A negative cost is a bug of the cost function, not a way to lift the limit:
// it is reported to the function of WithErrorLog as an error matching numerus.ErrInvalidArgument,
// and the request is handled as a store failure is, by the OnError given to New.
//
// The zero Middleware is not usable; a Middleware is a value, safe for concurrent use.
type Middleware struct {
	l       keyed.Limiter[string]
	onError OnError
	key     func(*http.Request) string
	cost    func(*http.Request) int64
	quota   Quota
	limit   int64 // the policy's capacity: a cost above it can never be taken
	log     func(*http.Request, error)
	trusted []netip.Prefix
	v6bits  int // the length of an IPv6 client's network that the default key names; 128 the address
}

// Option configures a [Middleware].
type Option interface{ apply(*Middleware) }

type optionFunc func(*Middleware)

func (f optionFunc) apply(m *Middleware) { f(m) }

// WithKey sets the function that names a request's subject (by default its client's IP address,
// see [WithIPv6Prefix]). Nil restores the default. The default names a peer that has no IP
// address by its RemoteAddr: every client of a server on a Unix socket ("@") then shares one
// limit, X-Forwarded-For unread; behind a proxy that connects over a Unix socket, name clients
// with a key function of your own.
func WithKey(key func(*http.Request) string) Option {
	return optionFunc(func(m *Middleware) { m.key = key })
}

// WithCost sets the function that says how many tokens a request takes (by default one; 0 for a
// free request, see [Middleware]). Nil restores the default.
func WithCost(cost func(*http.Request) int64) Option {
	return optionFunc(func(m *Middleware) { m.cost = cost })
}

// WithIPv6Prefix makes the default key of an IPv6 client its network of the given length rather
// than its whole address: WithIPv6Prefix(64) limits a /64 as one client. A host is commonly given
// a whole /64, and can take a fresh address of it for every request: keyed by address, it would
// never meet its limit. By default (and for bits below 1 or above 127) the key is the whole
// address, which keeps apart the hosts of a network that shares one /64. IPv4 clients are keyed
// by their address either way.
func WithIPv6Prefix(bits int) Option {
	if bits < 1 || bits > 128 {
		bits = 128
	}
	return optionFunc(func(m *Middleware) { m.v6bits = bits })
}

// WithTrustedProxies lets the default key read X-Forwarded-For when the peer lies in one of
// prefixes: see [ClientIP]. Without it, X-Forwarded-For is never read.
func WithTrustedProxies(prefixes ...netip.Prefix) Option {
	return optionFunc(func(m *Middleware) { m.trusted = slices.Clone(prefixes) })
}

// WithQuota sets what RateLimit-Policy advertises (by default QuotaOf("default", policy)).
func WithQuota(q Quota) Option { return optionFunc(func(m *Middleware) { m.quota = q }) }

// WithErrorLog sets the function told of every store failure, before OnError applies.
func WithErrorLog(log func(*http.Request, error)) Option {
	return optionFunc(func(m *Middleware) { m.log = log })
}

// New returns the middleware of l. onError must be FailOpen or FailClosed, and l must have been
// built by keyed.New; otherwise New returns an error matching numerus.ErrInvalidArgument.
func New(l keyed.Limiter[string], onError OnError, opts ...Option) (Middleware, error) {
	if onError != FailOpen && onError != FailClosed {
		return Middleware{}, &numerus.ParamError{Param: "onError", Problem: "must be FailOpen or FailClosed"}
	}
	if l.Policy() == (typed.Policy{}) {
		return Middleware{}, &numerus.ParamError{Param: "limiter", Problem: "is the zero Limiter"}
	}
	p := l.Policy()
	m := Middleware{l: l, onError: onError, quota: QuotaOf("default", p.Spec()),
		limit: p.Status(p.Fresh(), time.Unix(0, 0)).Limit, v6bits: 128}
	for _, o := range opts {
		if o == nil {
			return Middleware{}, &numerus.ParamError{Param: "option", Problem: "must not be nil"}
		}
		o.apply(&m)
	}
	if m.cost == nil {
		m.cost = func(*http.Request) int64 { return 1 }
	}
	if m.key == nil {
		trusted, bits := m.trusted, m.v6bits
		m.key = func(r *http.Request) string { return clientKey(r, trusted, bits) }
	}
	return m, nil
}

// clientKey names the client of r: its address, or for IPv6 its network of v6bits bits (as
// "2001:db8::/64") when v6bits is below 128; r.RemoteAddr if that is not an address.
func clientKey(r *http.Request, trusted []netip.Prefix, v6bits int) string {
	a := ClientIP(r, trusted...)
	switch {
	case !a.IsValid():
		return r.RemoteAddr
	case a.Is6() && v6bits < 128:
		net, _ := a.WithZone("").Prefix(v6bits) // cannot fail: bits lie in [1, 128]
		return net.String()
	}
	return a.String()
}

// Handler returns next behind the limit.
func (m Middleware) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cost := m.cost(r)
		switch {
		case cost == 0:
			next.ServeHTTP(w, r)
			return
		case cost < 0:
			m.failed(w, r, next, errNegativeCost)
			return
		}
		d, err := m.decide(r.Context(), m.key(r), cost)
		if err != nil {
			m.failed(w, r, next, err)
			return
		}
		SetHeaders(w.Header(), m.quota, d)
		if !d.Allowed {
			refuse(w, d)
			return
		}
		next.ServeHTTP(w, r)
	})
}

var errNegativeCost = &numerus.ParamError{Param: "cost", Problem: "is negative: the cost function of WithCost returned it"}

// decide takes cost for key; a cost above the capacity is a refusal that never succeeds, with
// the balance a Peek reports. Every error of the limiter's, even one a store reports as an
// invalid argument, goes to the OnError choice.
func (m Middleware) decide(ctx context.Context, key string, cost int64) (keyed.Decision, error) {
	if cost <= m.limit {
		return m.l.TryAcquire(ctx, key, cost)
	}
	d, err := m.l.Peek(ctx, key)
	d.Allowed, d.RetryAfter = false, keyed.Never()
	return d, err
}

func refuse(w http.ResponseWriter, d keyed.Decision) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusTooManyRequests)
	if d.RetryAfter.IsNever() {
		_, _ = w.Write([]byte("429 too many requests: retrying will not succeed\n"))
		return
	}
	_, _ = w.Write([]byte("429 too many requests\n"))
}

func (m Middleware) failed(w http.ResponseWriter, r *http.Request, next http.Handler, err error) {
	if m.log != nil {
		m.log(r, err)
	}
	if m.onError == FailOpen {
		next.ServeHTTP(w, r)
		return
	}
	http.Error(w, "503 service unavailable: the rate limit cannot be checked", http.StatusServiceUnavailable)
}
