package redisstore_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/typed"
	"github.com/redis/go-redis/v9"
)

// This example needs a Redis server, so it is compiled but not run.
func Example() {
	client := redis.NewClient(&redis.Options{
		Addr:                  "localhost:6379",
		ContextTimeoutEnabled: true, // a check ends by its context's deadline: New requires it
		DialTimeout:           time.Second,
		ReadTimeout:           time.Second, // a check is one round trip, well under a millisecond
		WriteTimeout:          time.Second,
	})
	defer client.Close()
	store, err := redisstore.New(client)
	if err != nil {
		log.Fatal(err)
	}
	// Per API key: 20 at once, then 10 a second (up to 29 in a second), and 1000 an hour,
	// estimated over the current and the previous clock hour (the sliding counter, which may let
	// up to 2000 through in an hour that spans the turn of one).
	policy, err := typed.Parse("gcra 10/s burst 20 & count 1000/h")
	if err != nil {
		log.Fatal(err)
	}
	limiter, err := keyed.New(store, policy, keyed.StringKey{}, keyed.WithNamespace("api"))
	if err != nil {
		log.Fatal(err) // an invalid policy, or one the script cannot keep exact
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond) // never wait longer
	defer cancel()
	d, err := limiter.TryAcquire(ctx, "user:42", 1)
	if err != nil {
		log.Print(err)
		d = keyed.Decision{Allowed: true} // fail open, or refuse: the caller's choice
	}
	if !d.Allowed {
		if wait, ok := d.RetryAfter.Duration(); ok {
			fmt.Println("retry in", wait)
		} else {
			fmt.Println("never")
		}
	}
}

// ExampleStore_AcquireBatch checks many subjects in one round trip.
func ExampleStore_AcquireBatch() {
	client := redis.NewClient(&redis.Options{Addr: "localhost:6379", ContextTimeoutEnabled: true})
	defer client.Close()
	store, err := redisstore.New(client)
	if err != nil {
		log.Fatal(err)
	}
	limiter, err := keyed.New(store, numerus.Must(typed.Parse("100/s")), keyed.StringKey{}) // at most 100 in any second
	if err != nil {
		log.Fatal(err)
	}
	var reqs []keyed.Request
	for _, subject := range []string{"alice", "bob", "carol"} {
		reqs = append(reqs, limiter.Request(subject, 1))
	}
	ds, err := store.AcquireBatch(context.Background(), reqs)
	if err != nil {
		log.Print(err) // the failed checks' decisions are refusals
	}
	for i, d := range ds {
		fmt.Println(i, d.Allowed)
	}
}
