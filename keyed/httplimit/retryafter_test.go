package httplimit_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/stretchr/testify/assert"
)

// TestSetHeadersRetryAfterAtLeastOne: a refusal whose wait rounds to zero seconds still answers
// Retry-After: 1, never 0 (which a client would take as "retry at once", in a loop).
func TestSetHeadersRetryAfterAtLeastOne(t *testing.T) {
	q := []httplimit.Quota{{Name: "default", Limit: 100, Window: time.Minute}}
	h := http.Header{}
	httplimit.SetHeaders(h, q, keyed.Decision{Limit: 100, FullAfter: keyed.DurationOf(time.Minute), RetryAfter: keyed.DurationOf(0)})
	assert.Equal(t, `"default";r=0;t=0`, h.Get("RateLimit"))
	assert.Equal(t, "1", h.Get("Retry-After"))
}

// TestSetHeadersReplacesRetryAfter: headers set for a refusal and then, on the same map, for an
// admission or a refusal that can never succeed carry no Retry-After: one left from the first
// would tell the client to come back.
func TestSetHeadersReplacesRetryAfter(t *testing.T) {
	q := []httplimit.Quota{{Name: "default", Limit: 100, Window: time.Minute}}
	refused := keyed.Decision{Limit: 100, FullAfter: keyed.DurationOf(time.Minute), RetryAfter: keyed.DurationOf(3 * time.Second)}
	for name, d := range map[string]keyed.Decision{
		"admitted": {Allowed: true, Remaining: 1, Limit: 100, FullAfter: keyed.DurationOf(time.Second), RetryAfter: keyed.DurationOf(0)},
		"never":    {Limit: 100, FullAfter: keyed.Duration{}, RetryAfter: keyed.Duration{}},
	} {
		h := http.Header{}
		httplimit.SetHeaders(h, q, refused)
		assert.Equal(t, "3", h.Get("Retry-After"))
		httplimit.SetHeaders(h, q, d)
		assert.Empty(t, h.Values("Retry-After"), name)
	}
}
