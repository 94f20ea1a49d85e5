package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// counting is the transport under the upstream one: it counts the 429s the client receives,
// retries included, and those received after the first response that carried a signal (a
// rate-limit field, or the first 429), which a client that obeys its upstream should not see.
type counting struct {
	base     http.RoundTripper
	signaled atomic.Bool
	refused  atomic.Int64
	late     atomic.Int64 // 429s after the first signal
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	late := c.signaled.Load() // the state when the request left
	resp, err := c.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		c.refused.Add(1)
		if late {
			c.late.Add(1)
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.Header.Get("RateLimit") != "" ||
		resp.Header.Get("X-RateLimit-Remaining") != "" {
		c.signaled.Store(true)
	}
	return resp, nil
}

func (c *counting) CloseIdleConnections() {
	if ci, ok := c.base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// outcome is what the client's requests came to.
type outcome struct {
	ok, failed int
	errs       []error
}

// sendAll sends n GET requests to url from workers goroutines through client, telling progress
// after each.
func sendAll(ctx context.Context, client *http.Client, url string, n, workers int, progress func()) outcome {
	var mu sync.Mutex
	var out outcome
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range next {
				err := get(ctx, client, url, i)
				mu.Lock()
				if err != nil {
					out.failed++
					out.errs = append(out.errs, err)
				} else {
					out.ok++
				}
				mu.Unlock()
				progress()
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func get(ctx context.Context, client *http.Client, url string, i int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/items/%d", url, i), nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("request %d: %s", i, resp.Status)
	}
	return nil
}
