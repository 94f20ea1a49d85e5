package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/typed"
	"github.com/redis/go-redis/v9"
)

// numerusRedisTaker is numerus's Redis store behind the keyed limiter: a GCRA of p.tokens per
// p.per, bursting to p.tokens, decided by one EVALSHA per check at the server's clock. Its keys
// are the keyed limiter's ("9:ratelimit:" and the subject), which contain the subjects as given.
//
// The store keeps each key until its subject is full again, at least WithMinTTL. Under the allow
// policy a subject is full again 3.4µs after a check, so with the default of 1ms every check would
// find its key expired, create it anew, and leave Redis one more key to expire: about 6µs of
// server time a check that redis_rate does not spend, since it rounds its TTLs up to whole
// seconds. WithMinTTL(time.Second) gives the keys redis_rate's lifetime, so that both do the same
// work with Redis's keyspace; it changes no decision.
type numerusRedisTaker struct {
	store *redisstore.Store
	l     keyed.Limiter[string]
}

func openNumerusRedis(_ *testing.B, rdb redis.UniversalClient, p keyedPolicy) keyedTaker {
	store := must(redisstore.New(rdb, redisstore.WithMinTTL(time.Second)))
	l := must(keyed.New(store, typed.Spec{Algo: typed.AlgoGCRA, Count: p.tokens, Period: p.per, Burst: p.tokens}, keyed.StringKey{}))
	return numerusRedisTaker{store: store, l: l}
}

func (t numerusRedisTaker) take(ctx context.Context, subject string) (bool, error) {
	d, err := t.l.TryAcquire(ctx, subject, 1)
	return d.Allowed, err
}

// takeBatch checks every subject in one round trip: a pipeline of one EVALSHA each.
func (t numerusRedisTaker) takeBatch(ctx context.Context, subjects []string, allowed []bool) error {
	reqs := make([]keyed.Request, len(subjects))
	for i, subject := range subjects {
		reqs[i] = t.l.Request(subject, 1)
	}
	ds, err := t.store.AcquireBatch(ctx, reqs)
	if err != nil {
		return err
	}
	if len(ds) != len(subjects) {
		return fmt.Errorf("%d decisions for %d subjects", len(ds), len(subjects))
	}
	for i, d := range ds {
		allowed[i] = d.Allowed
	}
	return nil
}
