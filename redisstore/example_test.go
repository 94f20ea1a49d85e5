package redisstore_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/redis/go-redis/v9"
)

// This example needs a Redis server, so it is compiled but not run.
func Example() {
	client := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer client.Close()
	store := redisstore.New(client, redisstore.WithNamespace("api"))
	// 10 a second with bursts of 20, and at most 1000 an hour.
	policy := numerus.Must(redisstore.AllOf(
		numerus.Must(redisstore.GCRA(numerus.PerSecond(10), 20)),
		numerus.Must(redisstore.SlidingWindowCount(time.Hour, 1000, time.Unix(0, 0))),
	))
	d, err := store.Acquire(context.Background(), policy, "user:42", 1)
	if err != nil {
		log.Print(err)
	}
	d = redisstore.FailOpen(d, err) // or FailClosed: the caller's choice
	if !d.Allowed {
		if wait, ok := d.RetryAfter.Duration(); ok {
			fmt.Println("retry in", wait)
		} else {
			fmt.Println("never")
		}
	}
}
