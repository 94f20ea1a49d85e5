package httplimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
)

func ExampleMiddleware() {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // a fixed clock, for the output
	// Per client address: 2 at once, then one every 10s (up to 2 in any 10 seconds).
	lim, _ := keyed.New(memory.New(), numerus.Must(typed.Parse("gcra 1/10s burst 2")), keyed.StringKey{},
		keyed.WithClock(func() time.Time { return at }))
	mw, _ := httplimit.New(lim, httplimit.FailClosed)
	h := mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "hello")
	}))
	for range 3 {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "192.0.2.7:4321"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Printf("%d %s | %s | retry=%q\n", w.Code, w.Header().Get("RateLimit-Policy"), w.Header().Get("RateLimit"), w.Header().Get("Retry-After"))
	}
	// Output:
	// 200 "default";q=2;w=20 | "default";r=1;t=10 | retry=""
	// 200 "default";q=2;w=20 | "default";r=0;t=10 | retry=""
	// 429 "default";q=2;w=20 | "default";r=0;t=10 | retry="10"
}

func ExampleSetHeaders() {
	h := http.Header{}
	// 5 a second and 100 a minute: the minute's limit binds, and its next token comes in 30s.
	qs := []httplimit.Quota{{Name: "burst", Limit: 5, Window: time.Second}, {Name: "minute", Limit: 100, Window: time.Minute}}
	d := keyed.Decision{Allowed: true, Remaining: 2, Limit: 5, FullAfter: keyed.DurationOf(45 * time.Second),
		RetryAfter: keyed.DurationOf(0), RefillAfter: keyed.DurationOf(30 * time.Second), Binding: 1}
	httplimit.SetHeaders(h, qs, d)
	fmt.Println(h.Get("RateLimit-Policy"))
	fmt.Println(h.Get("RateLimit"))
	// Output:
	// "burst";q=5;w=1, "minute";q=100;w=60
	// "minute";r=2;t=30
}

func ExampleClientIP() {
	// A request that reached us through our load balancer, 10.0.0.7, which appended the address
	// it saw to the X-Forwarded-For the client sent.
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.7:41000"
	r.Header.Set("X-Forwarded-For", "198.51.100.9, 203.0.113.5")

	// Trusting no proxy, the header is ignored: any client can write it.
	fmt.Println(httplimit.ClientIP(r))
	// Trusting the load balancer, the entry it appended names the client; the entries before it,
	// which the client wrote, are not read.
	fmt.Println(httplimit.ClientIP(r, netip.MustParsePrefix("10.0.0.0/8")))
	// Output:
	// 10.0.0.7
	// 203.0.113.5
}
