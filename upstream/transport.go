package upstream

import (
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/schedule"
	"github.com/numerus-closus/numerus/typed"
)

// Transport is an http.RoundTripper that paces the requests to each upstream by a schedule.Gate
// of its own, and steers the gate by what the upstream's responses say of its quota.
//
// A Transport is safe for concurrent use, and starts no goroutine. The zero Transport is New(nil)
// with no options: it sends through http.DefaultTransport, paced by the upstreams' signals alone.
type Transport struct {
	base   http.RoundTripper
	cfg    config
	policy *typed.Policy // the local policy, compiled; nil for none

	mu    sync.Mutex
	gates map[string]*upstream
}

// upstream is the gate of one key, and its count of answers.
type upstream struct {
	gate     *schedule.Gate // holds a steered limiter
	answered atomic.Int64   // the requests let go whose failure, or response read, came
}

// New returns a Transport that sends through base (http.DefaultTransport if nil), configured by
// opts. It returns an error matching numerus.ErrInvalidArgument for an invalid option: a policy
// that does not validate, a max pause that is not positive, a negative count of retries, a nil
// key function.
func New(base http.RoundTripper, opts ...Option) (*Transport, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	t := &Transport{base: base, cfg: c}
	if c.policy != nil {
		p, err := typed.Compile(*c.policy)
		if err != nil {
			return nil, err
		}
		t.policy = &p
	}
	return t, nil
}

// RoundTrip sends req when its upstream's gate lets it go, and reads the upstream's signals
// from the response before returning it. It fails at once, sending nothing, with a
// *schedule.DeadlineError when the gate would let req go only at or after its context's
// deadline. A response it does not retry is returned as it came, its body unread.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	u := t.upstream(t.keyOf(req))
	replay := t.replayable(req)
	var kept *http.Response // the refusal a retry stands in for, its body in memory
	for try := 0; ; try++ {
		r, err := rewind(req, try)
		if err == nil {
			_, err = u.gate.Take(req.Context(), 1)
		}
		if err != nil {
			return giveUp(r, kept, err)
		}
		resp, pause, err := u.exchange(t.baseRT(), r, t.maxPause())
		if err != nil || !replay || try >= t.cfg.retries || !refused(resp, pause) || !keep(resp) {
			return resp, err
		}
		kept = resp
	}
}

// giveUp ends a RoundTrip whose request r could not be sent: it closes r's body and returns the
// refusal a retry was for when the retry would have come too late, or err.
func giveUp(r *http.Request, kept *http.Response, err error) (*http.Response, error) {
	if r != nil && r.Body != nil {
		r.Body.Close()
	}
	if kept != nil && errors.As(err, new(*schedule.DeadlineError)) {
		return kept, nil
	}
	return nil, err
}

// exchange sends r through base and steers the gate by the response; it returns the response
// and the pause its upstream asked for.
func (u *upstream) exchange(base http.RoundTripper, r *http.Request, maxPause time.Duration) (*http.Response, time.Duration, error) {
	resp, err := base.RoundTrip(r)
	received := time.Now()
	if err != nil {
		u.answered.Add(1)
		return nil, 0, err
	}
	s := readSignal(resp.StatusCode, resp.Header, received, maxPause)
	u.steer(s)
	return resp, s.pause, nil
}

// steer applies what a response said to the gate: the budgets it announced, composed with the
// local policy (see steered.steer), and its pause; and counts the response as answered. Until
// then its request counts as in flight for every other response: the upstream may have counted
// it after it wrote the other.
func (u *upstream) steer(s signal) {
	if len(s.quotas) == 0 {
		u.answered.Add(1)
	} else {
		u.gate.Update(func(l numerus.Limiter, now time.Time) numerus.Limiter {
			st := l.(steered)
			inflight := max(st.taken-u.answered.Add(1), 0) // those let go whose answer is not in
			return st.steer(now, s.quotas, inflight)
		})
	}
	if s.pause > 0 {
		u.gate.RetryAfter(s.pause)
	}
}

// upstream returns the gate of key, made on first use.
func (t *Transport) upstream(key string) *upstream {
	t.mu.Lock()
	defer t.mu.Unlock()
	if u, ok := t.gates[key]; ok {
		return u
	}
	if t.gates == nil {
		t.gates = map[string]*upstream{}
	}
	local := numerus.AlwaysAllow()
	if t.policy != nil {
		local = t.policy.Limiter(t.policy.Fresh())
	}
	u := &upstream{gate: schedule.NewGate(newSteered(local))}
	t.gates[key] = u
	return u
}

// CloseIdleConnections closes the idle connections of the base transport, if it has such a
// method, as http.Client.CloseIdleConnections asks.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.baseRT().(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (t *Transport) baseRT() http.RoundTripper {
	if t.base == nil {
		return http.DefaultTransport
	}
	return t.base
}

func (t *Transport) keyOf(r *http.Request) string {
	if t.cfg.key == nil {
		return hostKey(r)
	}
	return t.cfg.key(r)
}

func (t *Transport) maxPause() time.Duration {
	if t.cfg.maxPause <= 0 {
		return DefaultMaxPause
	}
	return t.cfg.maxPause
}
