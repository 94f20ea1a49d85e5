package httplimit

import (
	"context"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
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

// Middleware limits the requests of each client with a keyed.Limiter.
//
// Each request takes cost(r) tokens for key(r): by default 1 for the client's address
// ([ClientIP]). Responses carry the fields of [SetHeaders]; a refused request is answered 429. A
// cost of 0 is charged as 1 unless [WithFreeRequests]; a negative one is answered 400.
//
// The zero Middleware is not usable: build one with New. It is safe for concurrent use.
type Middleware struct {
	l       keyed.Limiter[string]
	onError OnError
	key     func(*http.Request) string
	cost    func(*http.Request) int64
	quotas  []Quota
	limit   int64 // the policy's capacity: a cost above it can never be taken
	log     func(*http.Request, error)
	trusted []netip.Prefix
	v6bits  int  // the length of an IPv6 client's network that the default key names; 128 the address
	free    bool // whether a cost of 0 serves a request unchecked
	err     error
}

// Option configures a [Middleware].
type Option interface{ apply(*Middleware) }

type optionFunc func(*Middleware)

func (f optionFunc) apply(m *Middleware) { f(m) }

// WithKey sets the function that names a request's subject; nil restores the default, the
// client's address. Behind a proxy that connects over a Unix socket, every client would share
// the default's one key: use a key function of your own.
func WithKey(key func(*http.Request) string) Option {
	return optionFunc(func(m *Middleware) { m.key = key })
}

// WithCost sets the function that says how many tokens a request takes (by default one; 0 is
// charged as 1 and a negative cost is answered 400, see [Middleware]). Nil restores the default.
func WithCost(cost func(*http.Request) int64) Option {
	return optionFunc(func(m *Middleware) { m.cost = cost })
}

// WithFreeRequests makes a cost of 0 serve the request unchecked, with no fields: for requests
// the cost function declares free on purpose (a health check, say). Without it, 0 costs 1.
func WithFreeRequests() Option { return optionFunc(func(m *Middleware) { m.free = true }) }

// WithIPv6Prefix sets the length of the network that names an IPv6 client in the default key:
// 64 by default, since a host handed a /64 can use a fresh address for every request. Use 56 or
// 48 where providers hand out such networks; 128 only for hosts you trust not to change
// address. bits must lie in [1, 128].
func WithIPv6Prefix(bits int) Option {
	return optionFunc(func(m *Middleware) {
		if bits < 1 || bits > 128 {
			m.err = &numerus.ParamError{Param: "WithIPv6Prefix", Problem: "must lie in [1, 128], got " + strconv.Itoa(bits)}
			return
		}
		m.v6bits = bits
	})
}

// WithTrustedProxies lets the default key read X-Forwarded-For when the peer lies in one of
// prefixes: see [ClientIP]. Without it, X-Forwarded-For is never read.
func WithTrustedProxies(prefixes ...netip.Prefix) Option {
	return optionFunc(func(m *Middleware) { m.trusted = slices.Clone(prefixes) })
}

// WithQuota sets what RateLimit-Policy advertises: one Quota for each limit of the policy, in
// the order its notation writes them (by default QuotaOf("default", policy)). New returns an
// error matching numerus.ErrInvalidArgument for another number of quotas.
func WithQuota(qs ...Quota) Option {
	return optionFunc(func(m *Middleware) { m.quotas = slices.Clone(qs) })
}

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
	m := Middleware{l: l, onError: onError, quotas: QuotaOf("default", p.Spec()),
		limit: p.Status(p.Fresh(), time.Unix(0, 0)).Limit, v6bits: 64}
	limits := len(m.quotas)
	for _, o := range opts {
		if o == nil {
			return Middleware{}, &numerus.ParamError{Param: "option", Problem: "must not be nil"}
		}
		if o.apply(&m); m.err != nil {
			return Middleware{}, m.err
		}
	}
	if len(m.quotas) != limits {
		return Middleware{}, &numerus.ParamError{Param: "WithQuota", Problem: "names " + strconv.Itoa(len(m.quotas)) +
			" quotas, and the policy has " + strconv.Itoa(limits) + " limits"}
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
		case cost == 0 && m.free:
			next.ServeHTTP(w, r)
			return
		case cost == 0:
			cost = 1
		case cost < 0:
			if m.log != nil {
				m.log(r, errNegativeCost)
			}
			http.Error(w, "400 bad request: the cost of this request is unknown", http.StatusBadRequest)
			return
		}
		d, err := m.decide(r.Context(), m.key(r), cost)
		if err != nil {
			m.failed(w, r, next, err)
			return
		}
		SetHeaders(w.Header(), m.quotas, d)
		if !d.Allowed {
			refuse(w, d)
			return
		}
		next.ServeHTTP(w, r)
	})
}

var errNegativeCost = &numerus.ParamError{Param: "cost", Problem: "is negative (unknown): the cost function of WithCost returned it, and the request was answered 400"}

// decide takes cost for key; a cost above the capacity is a refusal that never succeeds, with
// the balance a Peek reports. Every error of the limiter's, even one a store reports as an
// invalid argument, goes to the OnError choice.
func (m Middleware) decide(ctx context.Context, key string, cost int64) (keyed.Decision, error) {
	if cost <= m.limit {
		return m.l.TryAcquire(ctx, key, cost)
	}
	d, err := m.l.Peek(ctx, key)
	d.Allowed, d.RetryAfter = false, keyed.Duration{}
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
