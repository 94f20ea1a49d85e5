package typed

import (
	"strconv"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/internal/limits"
)

// Algo names an algorithm of a [Spec] leaf, or the composition of an inner node. Its values are
// the words of the notation; the zero Algo names nothing, and a Spec with it is invalid.
type Algo string

// The algorithms and compositions a Spec can describe.
const (
	AlgoGCRA    Algo = "gcra"    // [GCRA]: Count per Period, Burst (default 1) at once
	AlgoToken   Algo = "token"   // [TokenBucket]: refills Count per Period, holds Burst (default 1)
	AlgoLeaky   Algo = "leaky"   // [LeakyBucket]: leaks Count per Period, holds Burst (default 1)
	AlgoFinite  Algo = "finite"  // [FiniteBucket]: Count tokens, never refilled; no Period
	AlgoWindow  Algo = "window"  // [FixedWindow]: Count per window of Period
	AlgoSliding Algo = "sliding" // [SlidingWindow]: the exact log, Count per any span of Period
	AlgoBuckets Algo = "buckets" // [SlidingWindow] split into In sub-windows
	AlgoCount   Algo = "count"   // [SlidingWindowCount]: the two-window estimate
	AlgoAnd     Algo = "and"     // [And]: every child of Of admits
	AlgoOr      Algo = "or"      // [Or]: some child of Of admits
)

// kind is the compact code of an Algo, as written in snapshots.
type kind uint8

const (
	kindNone kind = iota
	kindGCRA
	kindToken
	kindLeaky
	kindFinite
	kindWindow
	kindCount
	kindSliding
	kindBuckets
	kindAnd
	kindOr
)

var algos = [...]Algo{"", AlgoGCRA, AlgoToken, AlgoLeaky, AlgoFinite, AlgoWindow, AlgoCount,
	AlgoSliding, AlgoBuckets, AlgoAnd, AlgoOr}

func (a Algo) kind() kind {
	for k, name := range algos {
		if k > 0 && name == a {
			return kind(k)
		}
	}
	return kindNone
}

func (k kind) algo() Algo { return algos[k] }

func (k kind) inner() bool  { return k == kindAnd || k == kindOr }
func (k kind) bucket() bool { return k >= kindGCRA && k <= kindFinite }

// Spec describes a policy as data: one algorithm with its parameters, or an And or Or of specs.
// It is what configuration files hold ([Spec.MarshalJSON]) and what the notation reads ([Parse]);
// [Compile] turns it into a [Policy], and [FromSpec] into a typed limiter.
//
// The zero Spec is invalid: Validate names the algorithm.
type Spec struct {
	// Algo is the algorithm of a leaf, or AlgoAnd or AlgoOr for an inner node.
	Algo Algo
	// Count is the tokens per Period of a rate, the limit per window, or the size of a finite
	// bucket.
	Count int64
	// Period is the rate's period or the window's length; zero for AlgoFinite.
	Period time.Duration
	// Burst is the capacity of gcra, token and leaky, and zero for the others. Zero means 1: a
	// rate of Count per Period then admits at most Count in any span of Period (half-open, as
	// [start, start+Period)), one token every Period/Count. A Burst b above 1 admits b at once
	// and up to b+Count-1 in such a span.
	Burst int64
	// In is the number of sub-windows of AlgoBuckets, and zero for the others.
	In int64
	// Of holds the children of AlgoAnd and AlgoOr, at least two; nil for a leaf.
	Of []Spec
}

// Validate returns nil if sp can make a limiter, and otherwise a *numerus.ParamError (matching
// numerus.ErrInvalidArgument) that names the parameter by its path, as in "of[1].burst". It
// checks the package's limits on a policy's size first, and never panics.
func (sp Spec) Validate() error {
	leaves := 0
	if err := sp.shape(0, &leaves); err != nil {
		return err
	}
	if leaves > limits.Leaves {
		return paramError("", "of", tooManyLeaves())
	}
	return sp.validate()
}

// validate checks the parameters of sp, whose shape is valid; an error names the parameter from sp.
func (sp Spec) validate() error {
	k := sp.Algo.kind()
	if k == kindNone {
		return paramError("", "algo", "must be one of gcra, token, leaky, finite, window, sliding, buckets, count, and, or; got "+strconv.Quote(string(sp.Algo)))
	}
	if !k.inner() {
		_, err := compileLeaf(sp, "")
		return err
	}
	for _, f := range []struct {
		param string
		set   bool
	}{{"count", sp.Count != 0}, {"period", sp.Period != 0}, {"burst", sp.Burst != 0}, {"in", sp.In != 0}} {
		if f.set {
			return paramError("", f.param, "is not taken by "+string(sp.Algo)+", which combines its specs")
		}
	}
	for i, c := range sp.Of {
		if err := c.validate(); err != nil {
			return within(i, err)
		}
	}
	return nil
}

func paramError(path, param, problem string) error {
	return &numerus.ParamError{Param: path + param, Problem: problem}
}

func fromInvalid(path string, inv *kernel.Invalid) error {
	if inv == nil {
		return nil
	}
	return paramError(path, inv.Param, inv.Problem)
}

// Equal reports whether sp and o describe the same tree with the same parameters.
func (sp Spec) Equal(o Spec) bool {
	if sp.Algo != o.Algo || sp.Count != o.Count || sp.Period != o.Period || sp.Burst != o.Burst ||
		sp.In != o.In || len(sp.Of) != len(o.Of) {
		return false
	}
	for i := range sp.Of {
		if !sp.Of[i].Equal(o.Of[i]) {
			return false
		}
	}
	return true
}

// burst returns the capacity a bucket leaf uses: Burst, or 1 when Burst is zero.
func (sp Spec) burst() int64 {
	if sp.Burst == 0 {
		return 1
	}
	return sp.Burst
}

// explicit returns sp with the burst of every gcra, token and leaky leaf written out, as
// snapshots write it.
func (sp Spec) explicit() Spec {
	return sp.withBursts(func(l Spec) int64 { return l.burst() })
}

// legacy returns sp as a snapshot holds it: with [legacyBurst] applied to every gcra, token and
// leaky leaf.
func (sp Spec) legacy() Spec {
	return sp.withBursts(func(l Spec) int64 { return legacyBurst(l.Count, l.Burst) })
}

// legacyBurst is the burst of a gcra, token or leaky leaf whose snapshot holds burst. Snapshots
// write the burst a leaf decides by, never 0, but earlier writers wrote 0 for a burst left to its
// default, which was then the count: so a 0 read from a snapshot is the count, and a snapshot
// once written goes on deciding as it did.
func legacyBurst(count, burst int64) int64 {
	if burst == 0 {
		return count
	}
	return burst
}

// withBursts returns a copy of sp whose gcra, token and leaky leaves have the burst f gives them.
func (sp Spec) withBursts(f func(Spec) int64) Spec {
	switch k := sp.Algo.kind(); {
	case k.inner():
		of := make([]Spec, len(sp.Of))
		for i, c := range sp.Of {
			of[i] = c.withBursts(f)
		}
		sp.Of = of
	case k == kindGCRA || k == kindToken || k == kindLeaky:
		sp.Burst = f(sp)
	}
	return sp
}

// leaves calls f on each leaf of sp in pre-order.
func (sp Spec) leaves(f func(Spec)) {
	if !sp.Algo.kind().inner() {
		f(sp)
		return
	}
	for _, c := range sp.Of {
		c.leaves(f)
	}
}
