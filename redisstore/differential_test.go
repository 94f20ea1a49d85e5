package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// pair is one policy built twice from the same parameters: for the store, and as a core limiter.
type pair struct {
	store redisstore.Policy
	core  numerus.Limiter
}

// units are the scales of generated periods, windows and steps.
var units = []time.Duration{time.Microsecond, 3 * time.Microsecond, 100 * time.Microsecond, time.Millisecond}

func genLeaf(t *rapid.T) pair {
	unit := rapid.SampledFrom(units).Draw(t, "unit")
	span := time.Duration(rapid.Int64Range(1, 20).Draw(t, "span")) * unit
	n := rapid.Int64Range(1, 5).Draw(t, "n")
	rate := numerus.Per(rapid.Int64Range(1, 4).Draw(t, "tokens"), span)
	start := t0.Add(time.Duration(rapid.Int64Range(-1_000_000, 1_000_000).Draw(t, "start")) * time.Microsecond)
	switch rapid.IntRange(0, 7).Draw(t, "kind") {
	case 0:
		return pair{numerus.Must(redisstore.GCRA(rate, n)), numerus.Must(numerus.GCRA(rate, n))}
	case 1:
		return pair{numerus.Must(redisstore.TokenBucket(n, rate)), numerus.Must(numerus.TokenBucket(n, rate))}
	case 2:
		return pair{numerus.Must(redisstore.LeakyBucket(n, rate)), numerus.Must(numerus.LeakyBucket(n, rate))}
	case 3:
		n = rapid.Int64Range(1, 30).Draw(t, "size")
		return pair{numerus.Must(redisstore.FiniteBucket(n)), numerus.Must(numerus.FiniteBucket(n))}
	case 4:
		return pair{numerus.Must(redisstore.FixedWindow(span, n, start)), numerus.Must(numerus.FixedWindow(span, n, start))}
	case 5:
		return pair{numerus.Must(redisstore.SlidingWindowCount(span, n, start)), numerus.Must(numerus.SlidingWindowCount(span, n, start))}
	case 6:
		n = rapid.Int64Range(1, 40).Draw(t, "entries")
		return pair{numerus.Must(redisstore.SlidingWindow(span, n)), numerus.Must(numerus.SlidingWindow(span, n))}
	}
	n = rapid.Int64Range(1, 40).Draw(t, "entries")
	k := rapid.IntRange(1, 4).Draw(t, "windows")
	w := span * time.Duration(k)
	return pair{numerus.Must(redisstore.SlidingWindowBucketed(w, k, n)), numerus.Must(numerus.SlidingWindowBucketed(w, k, n))}
}

// genPolicy draws a leaf or an And/Or of two or three policies, nested at most depth deep.
func genPolicy(t *rapid.T, depth int) pair {
	if depth == 0 || rapid.IntRange(0, 2).Draw(t, "leaf") == 0 {
		return genLeaf(t)
	}
	var stores []redisstore.Policy
	var cores []numerus.Limiter
	for range rapid.IntRange(2, 3).Draw(t, "children") {
		p := genPolicy(t, depth-1)
		stores, cores = append(stores, p.store), append(cores, p.core)
	}
	if rapid.Bool().Draw(t, "and") {
		return pair{numerus.Must(redisstore.AllOf(stores...)), numerus.AllOf(cores...)}
	}
	return pair{numerus.Must(redisstore.AnyOf(stores...)), numerus.AnyOf(cores...)}
}

// ceilMicro rounds a core answer up to the microsecond, as the script computes it.
func ceilMicro(d time.Duration) time.Duration {
	return (d + time.Microsecond - 1) / time.Microsecond * time.Microsecond
}

// wantWait is the store's wait for a core answer at at.
func wantWait(from numerus.NextDebitable, at time.Time) redisstore.Wait {
	t, ok := from.Time()
	if !ok {
		return redisstore.Never()
	}
	return redisstore.WaitFor(ceilMicro(t.Sub(at)))
}

var subjects atomic.Int64

// differential drives random policies and random microsecond timelines, with the caller's time,
// through the store's script and the in-process core, and requires the same decisions: the same
// admissions, the same remaining and limit, and the core's retry and reset instants rounded up to
// the microsecond. Timelines step forward by random amounts, repeat instants, and step back.
func differential(t *testing.T, client redis.UniversalClient) {
	c := newClock(t0)
	s := store(t, client, c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		p := genPolicy(rt, 2)
		core, subject := p.core, "s"+strconv.FormatInt(subjects.Add(1), 10)
		at := t0.Add(time.Duration(rapid.Int64Range(0, 1_000_000).Draw(rt, "t0")) * time.Microsecond)
		step := rapid.SampledFrom(units).Draw(rt, "step")
		for i := range rapid.IntRange(1, 60).Draw(rt, "steps") {
			switch dt := time.Duration(rapid.Int64Range(-3, 20).Draw(rt, "dt")) * step; {
			case dt > 0 || rapid.Bool().Draw(rt, "back"):
				at = at.Add(dt)
			}
			c.set(at)
			name := fmt.Sprintf("step %d at +%v on %s", i, at.Sub(t0), p.store)
			switch op := rapid.IntRange(0, 9).Draw(rt, "op"); {
			case op == 0:
				if err := s.Reset(ctx, subject); err != nil {
					rt.Fatalf("%s: reset: %v", name, err)
				}
				core = p.core
			case op <= 2:
				_, from, ok := core.DebitN(at, 1)
				d, err := s.Peek(ctx, p.store, subject)
				compare(rt, name+" peek", d, err, ok, from, core.Status(at), at)
			default:
				cost := rapid.Int64Range(1, 7).Draw(rt, "cost")
				next, from, ok := core.DebitN(at, cost)
				if ok {
					core = next
				}
				d, err := s.Acquire(ctx, p.store, subject, cost)
				compare(rt, fmt.Sprintf("%s acquire %d", name, cost), d, err, ok, from, core.Status(at), at)
			}
		}
	})
}

func compare(t *rapid.T, name string, d redisstore.Decision, err error, ok bool, from numerus.NextDebitable, st numerus.Status, at time.Time) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want := redisstore.Decision{Allowed: ok, Remaining: st.Remaining, Limit: st.Limit,
		RetryAfter: wantWait(from, at), ResetAfter: wantWait(st.Full, at)}
	if d != want {
		t.Fatalf("%s:\n store %+v\n core  %+v", name, d, want)
	}
}

func TestDifferentialStandalone(t *testing.T) {
	differential(t, redistest.Start(t).Client(t))
}
