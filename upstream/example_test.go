package upstream_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/numerus-closus/numerus/upstream"
)

// An API that grants two requests and then says, on every response, that nothing is left for a
// second: the client never meets a 429.
func Example() {
	var mu sync.Mutex
	served := 0
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		served++
		left := max(2-served, 0)
		w.Header().Set("RateLimit-Policy", `"burst";q=2;w=1`)
		w.Header().Set("RateLimit", fmt.Sprintf(`"burst";r=%d;t=1`, left))
		fmt.Fprintf(w, "%d left", left)
	}))
	defer api.Close()

	rt, err := upstream.New(http.DefaultTransport, upstream.WithRetries(3))
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: rt}
	defer client.CloseIdleConnections()
	for range 2 {
		resp, err := client.Get(api.URL)
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, string(b))
	}
	// Output:
	// 200 1 left
	// 200 0 left
}
