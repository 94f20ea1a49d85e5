package upstream

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestOverLoopback runs three dialects over real TCP on 127.0.0.1, on the real clock, with
// quotas of 3 a second, from the start of a second: the same checks on the server's record as
// TestDialects, for a single worker, and goleak to show that no goroutine outlives the requests
// once the server and the idle connections are closed. A bare Retry-After announces no quota,
// so that its traffic is of two windows, lest the client meet a second refusal it cannot foresee.
func TestOverLoopback(t *testing.T) {
	for _, d := range []struct {
		name string
		d    dialect
		n    int
	}{{"ietf", ietf, 7}, {"github", github, 7}, {"retry-after seconds", retrySeconds, 5}} {
		t.Run(d.name, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			qs := newQuotaServer(d.d, limit{"second", 3, time.Second})
			srv := httptest.NewServer(qs)
			base := &http.Transport{}
			rt := newTransport(t, base, WithRetries(3))
			time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
			answers := sendAll(t, rt, srv.URL, d.n, 1)
			base.CloseIdleConnections()
			srv.Close()
			for i, a := range answers {
				require.NoError(t, a.err, "request %d", i)
				require.Equal(t, "served "+body(i), a.body, "request %d", i)
			}
			seen := qs.seen()
			checkNoRefusalAfterTheSignal(t, d.d, seen)
			checkServedOnceIntact(t, seen, d.n)
			checkWithinLimits(t, qs, seen)
		})
	}
}

// checkWithinLimits: no window of the server served more than its limit.
func checkWithinLimits(t *testing.T, qs *quotaServer, seen []arrival) {
	t.Helper()
	for _, l := range qs.limits {
		count := map[string]int64{}
		for _, a := range seen {
			if a.status == http.StatusOK {
				count[key(l, a.at)]++
			}
		}
		for w, c := range count {
			require.LessOrEqual(t, c, l.q, "window %s of %s", w, l.name)
		}
		require.Greater(t, len(count), 1, "the traffic spanned windows")
	}
}
