package redisstore_test

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/storetest"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// conformance runs the keyed conformance suite, unchanged, on a store over client.
//
// The suite sends its own instants (keyed.WithClock), on timelines that stand still or jump by
// minutes and days while the test runs for seconds, but keys expire by the server's clock: a key
// whose subject the suite's clock holds below full could expire in real time before the suite
// checks it again (a 1ms period makes a 1ms TTL). WithMinTTL keeps every key for the whole run; a
// key kept past its subject's full instant decides as an absent one, so this changes no decision.
func conformance(t *testing.T, client redis.UniversalClient) {
	s := redisstore.MustNew(client, redisstore.WithMinTTL(10*time.Minute))
	storetest.Run(t, func(*testing.T) keyed.Store { return s })
}

// TestConformance runs the keyed conformance suite on a standalone server.
func TestConformance(t *testing.T) {
	conformance(t, redistest.Start(t).Client(t))
}
