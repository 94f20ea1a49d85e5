package upstream

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scenario is a server of one dialect and the traffic a client sends it.
type scenario struct {
	name       string
	server     func() *quotaServer
	n, workers int
	// within is how long after the start the last request is served at the latest: the windows
	// the traffic needs, and one more, so that a client that waits too long fails.
	within time.Duration
}

func scenarios() []scenario {
	skewed := func(d dialect, skew time.Duration) func() *quotaServer {
		return func() *quotaServer {
			s := newQuotaServer(d, limit{"hour", 6, 5 * time.Second})
			s.skew = skew
			return s
		}
	}
	return []scenario{
		{"ietf one policy", func() *quotaServer { return newQuotaServer(ietf, limit{"burst", 5, 2 * time.Second}) }, 23, 3, 12 * time.Second},
		{"ietf several policies", func() *quotaServer {
			return newQuotaServer(ietf, limit{"second", 3, time.Second}, limit{"tens", 8, 10 * time.Second})
		}, 20, 3, 30 * time.Second},
		{"github", func() *quotaServer { return newQuotaServer(github, limit{"core", 5, 3 * time.Second}) }, 17, 3, 15 * time.Second},
		{"github, its clock an hour ahead", skewed(github, time.Hour), 10, 2, 15 * time.Second},
		{"github, its clock an hour behind", skewed(github, -time.Hour), 10, 2, 15 * time.Second},
		{"retry-after seconds", func() *quotaServer { return newQuotaServer(retrySeconds, limit{"q", 6, 5 * time.Second}) }, 10, 2, 10 * time.Second},
		{"retry-after date", func() *quotaServer { return newQuotaServer(retryDate, limit{"q", 6, 5 * time.Second}) }, 10, 2, 10 * time.Second},
		{"retry-after date, its clock an hour ahead", skewed(retryDate, time.Hour), 10, 2, 10 * time.Second},
		{"retry-after date, its clock an hour behind", skewed(retryDate, -time.Hour), 10, 2, 10 * time.Second},
		{"503 with retry-after", func() *quotaServer {
			s := newQuotaServer(unavailable)
			s.down = time.Now().Add(7 * time.Second)
			return s
		}, 6, 2, 8 * time.Second},
	}
}

// TestDialects runs each scenario inside a synctest bubble, the server a real net/http server
// over in-memory pipes that counts its quota on its own, the client a Transport with retries.
// From the server's record of arrivals it checks that no request arrived while the upstream's
// budget was spent, once the client could have known it: no request is refused after the first
// response that said so (the first response of all, for the fields sent on every response; the
// first refusal, for a bare Retry-After or a 503), and none at all for the fields sent on every
// response; that every request was served, once, with its body intact, retries included; that
// the traffic did spend a budget and wait for its reset; and that it ended within the windows it
// needs, so that no pause was longer than the upstream asked. The bubble fails if a goroutine
// outlives it.
func TestDialects(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runScenario(t, sc) })
		})
	}
}

func runScenario(t *testing.T, sc scenario) {
	start := time.Now()
	qs := sc.server()
	s := servePipe(qs)
	defer s.close()
	rt := newTransport(t, s.base, WithRetries(3))
	answers := sendAll(t, rt, s.srv.URL, sc.n, sc.workers)
	for i, a := range answers {
		require.NoError(t, a.err, "request %d", i)
		require.Equal(t, http.StatusOK, a.status, "request %d: %s", i, a.body)
		require.Equal(t, "served "+body(i), a.body, "request %d", i)
	}
	seen := qs.seen()
	checkNoRefusalAfterTheSignal(t, qs.dialect, seen)
	checkServedOnceIntact(t, seen, sc.n)
	checkWaited(t, qs, seen, start, sc.workers)
	last := seen[len(seen)-1].at
	assert.True(t, last.Before(start.Add(sc.within)), "the last arrival %v after the start, not within %v", last.Sub(start), sc.within)
}

// checkNoRefusalAfterTheSignal: no arrival is refused after the first signal the client got.
func checkNoRefusalAfterTheSignal(t *testing.T, d dialect, seen []arrival) {
	t.Helper()
	signal := seen[0].at // the fields come with every response
	if d == retrySeconds || d == retryDate || d == unavailable {
		for _, a := range seen {
			if a.status != http.StatusOK {
				signal = a.at
				break
			}
		}
	}
	for i, a := range seen {
		if a.status != http.StatusOK {
			require.False(t, a.at.After(signal), "arrival %d refused (%d) at %v, after the signal at %v", i, a.status, a.at, signal)
			require.NotEqual(t, ietf, d, "arrival %d refused, where every response spoke", i)
			require.NotEqual(t, github, d, "arrival %d refused, where every response spoke", i)
		}
	}
}

// checkServedOnceIntact: every request was served once, with the body it was sent with; a
// refused one came again with the same body.
func checkServedOnceIntact(t *testing.T, seen []arrival, n int) {
	t.Helper()
	times := map[string]int{}
	for _, a := range seen {
		if a.status == http.StatusOK {
			times[a.body]++
		}
	}
	for i := range n {
		require.Equal(t, 1, times[body(i)], "request %d served", i)
	}
	for i, a := range seen {
		if a.status != http.StatusOK {
			require.Equal(t, 1, times[a.body], "refused arrival %d (%q) was sent again intact", i, a.body)
		}
	}
	require.Len(t, times, n, "no body the client did not send")
}

// checkWaited: the traffic spent a budget and went on after its reset (the server down, or a
// first window full but for the requests that were in flight when a response said how much was
// left, which the client counts as spent), so that the scenario tested a wait; and no window
// served more than its limit.
func checkWaited(t *testing.T, qs *quotaServer, seen []arrival, start time.Time, workers int) {
	t.Helper()
	if qs.dialect == unavailable {
		for _, a := range seen {
			require.True(t, a.status != http.StatusOK || !a.at.Before(qs.down), "served at %v, while down", a.at)
		}
		require.True(t, seen[len(seen)-1].at.Equal(qs.down), "served when it was back, not later: %v", seen[len(seen)-1].at)
		return
	}
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
		require.GreaterOrEqual(t, count[key(l, start)], l.q-int64(workers-1), "the first window of %s was spent", l.name)
	}
	require.False(t, seen[len(seen)-1].at.Before(end(qs.limits[0], start)), "the traffic went on after the first reset")
}
