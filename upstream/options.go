package upstream

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/typed"
)

// DefaultMaxPause is the longest an upstream's signal holds requests back unless WithMaxPause
// says otherwise: an hour, GitHub's window.
const DefaultMaxPause = time.Hour

// An Option configures a Transport. The zero set paces by the upstream's signals alone, one gate
// per host, pausing at most DefaultMaxPause, and retries nothing.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	policy   *typed.Spec
	key      func(*http.Request) string
	maxPause time.Duration
	retries  int
	anyVerb  bool
}

// WithPolicy paces each upstream by sp as well as by its signals. Give sp a margin for the
// network's delays (typed.Spec.WithMargin), so that the upstream sees no more than sp.
func WithPolicy(sp typed.Spec) Option { return optionFunc(func(c *config) { c.policy = &sp }) }

// WithKey chooses the gate of a request: requests of one key share one gate, its policy and the
// budgets its upstream announced. The default is the request's host; key by API token when the
// upstream counts per token. The Transport keeps a gate for each key it has seen.
func WithKey(key func(*http.Request) string) Option {
	return optionFunc(func(c *config) { c.key = key })
}

// WithMaxPause bounds how long one signal holds requests back (a Retry-After, a reset): a longer
// one holds them for d. It must be positive.
func WithMaxPause(d time.Duration) Option { return optionFunc(func(c *config) { c.maxPause = d }) }

// WithRetries makes the Transport send a request again, up to n times, after the pause of a 429
// or 503 that says when to come back, within the request's context. Only a request that can be
// sent again is retried: no body or GetBody, and an idempotent method or an Idempotency-Key
// field, unless WithRetryAnyMethod. n must not be negative.
func WithRetries(n int) Option { return optionFunc(func(c *config) { c.retries = n }) }

// WithRetryAnyMethod lets WithRetries send again requests of any method, POST included: for an
// upstream that did nothing with a request it answered 429 or 503.
func WithRetryAnyMethod() Option { return optionFunc(func(c *config) { c.anyVerb = true }) }

// newConfig applies opts to the defaults and validates them.
func newConfig(opts []Option) (config, error) {
	c := config{key: hostKey, maxPause: DefaultMaxPause}
	for _, o := range opts {
		o.apply(&c)
	}
	switch {
	case c.maxPause <= 0:
		return c, &numerus.ParamError{Param: "max pause", Problem: fmt.Sprintf("%v is not positive", c.maxPause)}
	case c.retries < 0:
		return c, &numerus.ParamError{Param: "retries", Problem: fmt.Sprintf("%d is negative", c.retries)}
	case c.key == nil:
		return c, &numerus.ParamError{Param: "key", Problem: "the function is nil"}
	}
	return c, nil
}

func hostKey(r *http.Request) string { return strings.ToLower(r.URL.Host) }
