package memory_test

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/keyed/storetest"
)

// TestConformance runs the keyed conformance suite, with exact (nanosecond) waits, on a store of
// its own for each subtest, and on one store shared by all (few shards, so the clock hands meet
// the entries of other subtests).
func TestConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) keyed.Store { return memory.New() }, storetest.Resolution(time.Nanosecond))
}

func TestConformanceShared(t *testing.T) {
	s := memory.New(memory.WithShards(2))
	storetest.Run(t, func(*testing.T) keyed.Store { return s }, storetest.Resolution(time.Nanosecond))
}

// unbound is a Store with its Bind hidden: the suite's string subjects then take the path of
// every other key type, Acquire and Peek with framed keys, rather than the bound shortcut.
type unbound struct{ keyed.Store }

// TestConformanceUnbound runs the suite through Acquire and Peek.
func TestConformanceUnbound(t *testing.T) {
	storetest.Run(t, func(*testing.T) keyed.Store { return unbound{memory.New()} }, storetest.Resolution(time.Nanosecond))
}
