package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// dialects are the ways the demo's API speaks of its quota, as -dialect names them.
var dialects = []string{"ietf", "github", "retry-after"}

// api is the demo's upstream: an HTTP API that serves at most quota requests in each window of
// its length, aligned on the Unix epoch, counted by itself (no numerus), and tells clients of
// its quota in its dialect: the IETF RateLimit fields, GitHub's X-RateLimit fields, or nothing
// but a Retry-After on its 429s. It records every arrival.
type api struct {
	dialect string
	quota   int64
	window  time.Duration

	mu       sync.Mutex
	served   map[int64]int64 // per window, by its index
	arrivals []arrival
}

// arrival is a request as the API saw it: when, and whether it served it.
type arrival struct {
	at     time.Time
	served bool
}

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	i := now.UnixNano() / int64(a.window)
	ok := a.served[i] < a.quota
	if ok {
		a.served[i]++
	}
	a.arrivals = append(a.arrivals, arrival{now, ok})
	a.fields(w.Header(), now, a.quota-a.served[i], ok)
	if !ok {
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprintln(w, "quota exceeded")
		return
	}
	fmt.Fprintln(w, "ok")
}

// fields writes the dialect's fields for a response at now, with left requests left in the
// window.
func (a *api) fields(h http.Header, now time.Time, left int64, ok bool) {
	end := time.Unix(0, (now.UnixNano()/int64(a.window)+1)*int64(a.window))
	wait := strconv.FormatInt(int64((end.Sub(now)+time.Second-1)/time.Second), 10)
	switch a.dialect {
	case "ietf":
		h.Set("RateLimit-Policy", fmt.Sprintf(`"window";q=%d;w=%d`, a.quota, int64((a.window+time.Second-1)/time.Second)))
		h.Set("RateLimit", fmt.Sprintf(`"window";r=%d;t=%s`, left, wait))
	case "github":
		h.Set("X-RateLimit-Limit", strconv.FormatInt(a.quota, 10))
		h.Set("X-RateLimit-Remaining", strconv.FormatInt(left, 10))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(end.Unix(), 10))
	}
	if !ok {
		h.Set("Retry-After", wait)
	}
}

// windows returns, for each window that saw an arrival, in order, its start, how many arrived
// and how many the API served.
func (a *api) windows() []window {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []window
	for _, ar := range a.arrivals {
		start := time.Unix(0, ar.at.UnixNano()/int64(a.window)*int64(a.window))
		if len(out) == 0 || !out[len(out)-1].start.Equal(start) {
			out = append(out, window{start: start})
		}
		w := &out[len(out)-1]
		w.arrived++
		if ar.served {
			w.served++
		}
	}
	return out
}

// window is what the API counted in one of its windows.
type window struct {
	start           time.Time
	arrived, served int64
}

// serveLoopback starts the API on a loopback port; close stops it.
func serveLoopback(a *api) (url string, stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: a, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	return "http://" + l.Addr().String(), func() { srv.Close(); <-done }, nil
}
