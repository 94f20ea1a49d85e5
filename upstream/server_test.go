package upstream

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// dialect is how a test server speaks of its quota.
type dialect int

const (
	ietf         dialect = iota // RateLimit-Policy and RateLimit on every response
	github                      // X-RateLimit-* on every response, Reset in Unix seconds
	retrySeconds                // nothing but Retry-After: <seconds> on a 429
	retryDate                   // nothing but Retry-After: <HTTP-date> on a 429
	unavailable                 // 503 with Retry-After: <seconds> until it is back
)

// limit is one quota a test server enforces: at most q served in each window of w, aligned on the
// Unix epoch.
type limit struct {
	name string
	q    int64
	w    time.Duration
}

// arrival is a request as the server saw it.
type arrival struct {
	at     time.Time
	status int
	body   string
}

// quotaServer is an HTTP API that enforces its limits with counters of its own, not numerus's,
// and tells clients about them in its dialect. It records every arrival.
type quotaServer struct {
	dialect dialect
	limits  []limit
	skew    time.Duration // how far its clock, in the dates it writes, is from the true time
	down    time.Time     // unavailable: it answers 503 before this instant

	mu       sync.Mutex
	served   map[string]int64 // per limit and window
	arrivals []arrival
}

func newQuotaServer(d dialect, limits ...limit) *quotaServer {
	return &quotaServer{dialect: d, limits: limits, served: map[string]int64{}}
}

func (s *quotaServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	status := s.admit(now)
	s.arrivals = append(s.arrivals, arrival{now, status, string(body)})
	s.write(w.Header(), now, status)
	w.WriteHeader(status)
	if status == http.StatusOK {
		fmt.Fprintf(w, "served %s", body)
	} else {
		fmt.Fprintf(w, "refused %s", body)
	}
}

// admit counts a request at now in every limit's window, or refuses it if one is spent.
func (s *quotaServer) admit(now time.Time) int {
	if now.Before(s.down) {
		return http.StatusServiceUnavailable
	}
	for _, l := range s.limits {
		if s.served[key(l, now)] >= l.q {
			return http.StatusTooManyRequests
		}
	}
	for _, l := range s.limits {
		s.served[key(l, now)]++
	}
	return http.StatusOK
}

func key(l limit, now time.Time) string {
	return l.name + "/" + strconv.FormatInt(now.UnixNano()/int64(l.w), 10)
}

// end returns when l's window of now ends.
func end(l limit, now time.Time) time.Time {
	return time.Unix(0, (now.UnixNano()/int64(l.w)+1)*int64(l.w))
}

// ceilSeconds returns d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int64 { return int64((d + time.Second - 1) / time.Second) }

// write sets the dialect's fields for a response of status at now.
func (s *quotaServer) write(h http.Header, now time.Time, status int) {
	h.Set("Date", now.Add(s.skew).UTC().Format(http.TimeFormat))
	switch {
	case status == http.StatusServiceUnavailable:
		h.Set("Retry-After", strconv.FormatInt(ceilSeconds(s.down.Sub(now)), 10))
	case s.dialect == ietf:
		s.writeIETF(h, now, status)
	case s.dialect == github:
		s.writeGitHub(h, now)
	case status != http.StatusTooManyRequests:
	case s.dialect == retrySeconds:
		h.Set("Retry-After", strconv.FormatInt(ceilSeconds(s.wait(now)), 10))
	case s.dialect == retryDate:
		h.Set("Retry-After", now.Add(s.wait(now)+s.skew).UTC().Format(http.TimeFormat))
	}
}

// wait returns how long until every spent limit has reset.
func (s *quotaServer) wait(now time.Time) time.Duration {
	var d time.Duration
	for _, l := range s.limits {
		if s.served[key(l, now)] >= l.q {
			d = max(d, end(l, now).Sub(now))
		}
	}
	return d
}

func (s *quotaServer) writeIETF(h http.Header, now time.Time, status int) {
	var policies, fields []string
	for _, l := range s.limits {
		left := l.q - s.served[key(l, now)]
		policies = append(policies, fmt.Sprintf("%q;q=%d;w=%d", l.name, l.q, ceilSeconds(l.w)))
		fields = append(fields, fmt.Sprintf("%q;r=%d;t=%d", l.name, left, ceilSeconds(end(l, now).Sub(now))))
	}
	h.Set("RateLimit-Policy", strings.Join(policies, ", "))
	h.Set("RateLimit", strings.Join(fields, ", "))
	if status == http.StatusTooManyRequests {
		h.Set("Retry-After", strconv.FormatInt(ceilSeconds(s.wait(now)), 10))
	}
}

func (s *quotaServer) writeGitHub(h http.Header, now time.Time) {
	l := s.limits[0]
	used := s.served[key(l, now)]
	h.Set("X-RateLimit-Limit", strconv.FormatInt(l.q, 10))
	h.Set("X-RateLimit-Remaining", strconv.FormatInt(l.q-used, 10))
	h.Set("X-RateLimit-Used", strconv.FormatInt(used, 10))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(end(l, now).Add(s.skew).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
}

// seen returns the arrivals so far.
func (s *quotaServer) seen() []arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]arrival(nil), s.arrivals...)
}
