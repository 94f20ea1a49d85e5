package storetest

import (
	"context"
	"errors"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/typed"
)

// recorder is a store that counts the calls it passes on.
type recorder struct {
	keyed.Store
	calls atomic.Int64
}

func (r *recorder) Acquire(ctx context.Context, q keyed.Request) (keyed.Decision, error) {
	r.calls.Add(1)
	return r.Store.Acquire(ctx, q)
}

func (r *recorder) Peek(ctx context.Context, q keyed.Request) (keyed.Decision, error) {
	r.calls.Add(1)
	return r.Store.Peek(ctx, q)
}

func (r *recorder) Reset(ctx context.Context, q keyed.Request) error {
	r.calls.Add(1)
	return r.Store.Reset(ctx, q)
}

// CheckPolicy passes the store's own check on, without counting it: it calls no backend.
func (r *recorder) CheckPolicy(p typed.Policy) error {
	if pc, ok := r.Store.(keyed.PolicyChecker); ok {
		return pc.CheckPolicy(p)
	}
	return nil
}

// invalidSpecs are policies that no keyed limiter may accept.
var invalidSpecs = map[string]typed.Spec{
	"zero spec":                {},
	"zero rate":                {Algo: typed.AlgoSliding, Period: time.Second},
	"negative rate":            {Algo: typed.AlgoSliding, Count: -1, Period: time.Minute},
	"zero period":              {Algo: typed.AlgoGCRA, Count: 10, Period: 0, Burst: 5},
	"negative period":          {Algo: typed.AlgoGCRA, Count: 10, Period: -time.Second, Burst: 5},
	"negative burst":           {Algo: typed.AlgoGCRA, Count: 10, Period: time.Second, Burst: -1},
	"period under 1µs":         {Algo: typed.AlgoGCRA, Count: 1, Period: 999 * time.Nanosecond, Burst: 1},
	"burst beyond exact range": {Algo: typed.AlgoGCRA, Count: 1, Period: time.Hour, Burst: math.MaxInt64},
	"zero window":              {Algo: typed.AlgoWindow, Count: 5},
	"window under 1µs":         {Algo: typed.AlgoSliding, Count: 5, Period: 500 * time.Nanosecond},
	"sub-window under 1µs":     {Algo: typed.AlgoBuckets, Count: 5, Period: 2 * time.Microsecond, In: 4},
	"zero limit":               {Algo: typed.AlgoWindow, Period: time.Second},
	"zero finite":              {Algo: typed.AlgoFinite},
	"no sub-windows":           {Algo: typed.AlgoBuckets, Count: 5, Period: time.Second},
	"lone child":               {Algo: typed.AlgoAnd, Of: []typed.Spec{{Algo: typed.AlgoSliding, Count: 1, Period: time.Second}}},
	"invalid child":            {Algo: typed.AlgoOr, Of: []typed.Spec{{Algo: typed.AlgoSliding, Count: 1, Period: time.Second}, {Algo: typed.AlgoCount, Count: 1, Period: time.Nanosecond}}},
}

// testInvalid requires invalid policies, invalid costs and the zero Limiter to fail with
// numerus.ErrInvalidArgument before any call to the store.
func testInvalid(h *harness) {
	rec := &recorder{Store: h.store}
	for name, sp := range invalidSpecs {
		if _, err := keyed.New(rec, sp, keyed.StringKey{}); !errors.Is(err, numerus.ErrInvalidArgument) {
			h.t.Errorf("%s: keyed.New returned %v, want an error matching ErrInvalidArgument", name, err)
		}
	}
	l, err := keyed.New(rec, numerus.Must(typed.Parse("gcra 5/s burst 10")), keyed.StringKey{}, keyed.WithClock(h.now))
	if err != nil {
		h.t.Fatal(err)
	}
	ctx := context.Background()
	for _, cost := range []int64{0, -1, math.MinInt64, 11, math.MaxInt64} {
		if _, err := l.TryAcquire(ctx, "s", cost); !errors.Is(err, numerus.ErrInvalidArgument) {
			h.t.Errorf("cost %d: TryAcquire returned %v, want an error matching ErrInvalidArgument", cost, err)
		}
	}
	var zero keyed.Limiter[string]
	_, err1 := zero.TryAcquire(ctx, "s", 1)
	_, err2 := zero.Peek(ctx, "s")
	for _, err := range []error{err1, err2, zero.Reset(ctx, "s")} {
		if !errors.Is(err, numerus.ErrInvalidArgument) {
			h.t.Errorf("zero Limiter: %v, want an error matching ErrInvalidArgument", err)
		}
	}
	if n := rec.calls.Load(); n != 0 {
		h.t.Fatalf("%d store calls for invalid policies and costs, want none", n)
	}
}

// testInvalidRequests requires a store given requests that a Limiter never sends (a cost below 1
// or above the policy's capacity, the zero Policy) to return an error matching
// numerus.ErrInvalidArgument and to take nothing: the subject's whole capacity is there after.
func testInvalidRequests(h *harness) {
	p, err := typed.Compile(typed.Spec(numerus.Must(typed.Parse("gcra 5/s burst 10"))))
	if err != nil {
		h.t.Fatal(err)
	}
	ns := h.namespace()
	key := []byte(strconv.Itoa(len(ns)) + ":" + ns + ":s")
	ctx, at := context.Background(), h.now()
	for _, cost := range []int64{0, -1, math.MinInt64, 11, math.MaxInt64} {
		if _, err := h.store.Acquire(ctx, keyed.Request{Key: key, Policy: p, Cost: cost, At: at}); !errors.Is(err, numerus.ErrInvalidArgument) {
			h.t.Errorf("cost %d of a capacity of 10: Acquire returned %v, want an error matching ErrInvalidArgument", cost, err)
		}
	}
	if _, err := h.store.Acquire(ctx, keyed.Request{Key: key, Cost: 1, At: at}); !errors.Is(err, numerus.ErrInvalidArgument) {
		h.t.Errorf("the zero Policy: Acquire returned %v, want an error matching ErrInvalidArgument", err)
	}
	if d, err := h.store.Acquire(ctx, keyed.Request{Key: key, Policy: p, Cost: 10, At: at}); err != nil || !d.Allowed {
		h.t.Errorf("the whole capacity after the invalid requests: %+v, %v", d, err)
	}
	// Under another policy, an invalid cost carries nothing over either: the subject, spent at at
	// under p (5/s), has a token again 200ms later under p.
	other, err := typed.Compile(typed.Spec(numerus.Must(typed.Parse("gcra 1/h burst 1"))))
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.store.Acquire(ctx, keyed.Request{Key: key, Policy: other, Cost: 2, At: at.Add(100 * time.Millisecond)}); !errors.Is(err, numerus.ErrInvalidArgument) {
		h.t.Errorf("cost 2 of a capacity of 1: Acquire returned %v, want an error matching ErrInvalidArgument", err)
	}
	if d, err := h.store.Acquire(ctx, keyed.Request{Key: key, Policy: p, Cost: 1, At: at.Add(200 * time.Millisecond)}); err != nil || !d.Allowed {
		h.t.Errorf("a token refilled under the first policy after an invalid request under another: %+v, %v", d, err)
	}
}
