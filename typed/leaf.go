package typed

import (
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// leaf is one algorithm of a spec, compiled: its kind and its validated kernel policy. In a
// Policy, text is its notation and off locates its words in a State (or its log, for the log
// kinds).
type leaf struct {
	k      kind
	text   string
	gcra   *kernel.GCRAPolicy
	bucket *kernel.BucketPolicy
	window *kernel.WindowPolicy
	log    *kernel.LogPolicy
	size   int64
	off    int
}

// kernelParams maps the kernel's parameter names to the Spec's.
var kernelParams = map[string]string{
	"rate tokens": "count", "rate period": "period", "capacity": "burst", "size": "count",
	"window": "period", "limit": "count", "windows": "in",
}

func specInvalid(path string, inv *kernel.Invalid) error {
	if inv == nil {
		return nil
	}
	if name, ok := kernelParams[inv.Param]; ok {
		inv = &kernel.Invalid{Param: name, Problem: inv.Problem}
	}
	return fromInvalid(path, inv)
}

// compileLeaf validates a leaf spec and builds its kernel policy.
func compileLeaf(sp Spec, path string) (leaf, error) {
	k := sp.Algo.kind()
	switch {
	case sp.Of != nil:
		return leaf{}, paramError(path, "of", string(sp.Algo)+" takes no children")
	case sp.Burst != 0 && !(k == kindGCRA || k == kindToken || k == kindLeaky):
		return leaf{}, paramError(path, "burst", string(sp.Algo)+" takes no burst")
	case sp.In != 0 && k != kindBuckets:
		return leaf{}, paramError(path, "in", string(sp.Algo)+" takes no sub-windows")
	case sp.Period != 0 && k == kindFinite:
		return leaf{}, paramError(path, "period", "finite takes no period")
	}
	lf := leaf{k: k}
	var inv *kernel.Invalid
	switch k {
	case kindFinite:
		var f kernel.Finite
		f, inv = kernel.FiniteOf(sp.Count)
		lf.size = f.Size
	case kindGCRA, kindToken, kindLeaky:
		inv = lf.compileRate(sp)
	case kindWindow, kindCount:
		lf.window, inv = kernel.WindowOf(int64(sp.Period), sp.Count, 0)
	case kindSliding:
		lf.log, inv = kernel.LogOf(int64(sp.Period), sp.Count, 1)
	case kindBuckets:
		lf.log, inv = kernel.BucketsOf(int64(sp.Period), sp.Count, sp.In)
	}
	return lf, specInvalid(path, inv)
}

func (lf *leaf) compileRate(sp Spec) *kernel.Invalid {
	r, inv := kernel.RateOf(sp.Count, int64(sp.Period))
	if inv != nil {
		return inv
	}
	if sp.Burst < 0 {
		return &kernel.Invalid{Param: "burst", Problem: "must be positive, got " + itoa(sp.Burst)}
	}
	if lf.k == kindGCRA {
		lf.gcra, inv = kernel.GCRAOf(r, sp.burst())
	} else {
		lf.bucket, inv = kernel.BucketOf(r, sp.burst())
	}
	if inv != nil && inv.Param == "rate" { // a spec's rate is its count over its period
		inv = &kernel.Invalid{Param: "count", Problem: inv.Problem}
	}
	return inv
}

// rateSpec returns the leaf spec of a rate-based kernel policy.
func rateSpec(a Algo, r kernel.Rate, burst int64) Spec {
	n, p := r.Shown()
	return Spec{Algo: a, Count: n, Period: time.Duration(p), Burst: burst}
}

func windowSpec(a Algo, p *kernel.WindowPolicy) Spec {
	return Spec{Algo: a, Count: p.Limit, Period: time.Duration(p.Width)}
}

func logSpec(p *kernel.LogPolicy) Spec {
	if p.Quantum > 1 {
		return Spec{Algo: AlgoBuckets, Count: p.Limit, Period: time.Duration(p.Width), In: p.Width / p.Quantum}
	}
	return Spec{Algo: AlgoSliding, Count: p.Limit, Period: time.Duration(p.Width)}
}

// nwords is how many state words the leaf keeps in a State; the log kinds keep a kernel.Log.
func (k kind) nwords() int {
	switch k {
	case kindGCRA, kindWindow:
		return 3
	case kindToken, kindLeaky:
		return 2
	case kindFinite:
		return 1
	case kindCount:
		return 4
	}
	return 0
}

func (k kind) isLog() bool { return k == kindSliding || k == kindBuckets }

// limit is the leaf's capacity: its burst, size or limit.
func (lf *leaf) limit() int64 {
	switch {
	case lf.gcra != nil:
		return lf.gcra.Burst
	case lf.bucket != nil:
		return lf.bucket.Capacity
	case lf.window != nil:
		return lf.window.Limit
	case lf.log != nil:
		return lf.log.Limit
	}
	return lf.size
}

// kernels holds a fresh kernel of the leaf's kind (the others stay zero).
type kernels struct {
	gcra    kernel.GCRA
	tokens  kernel.TokenBucket
	leaky   kernel.LeakyBucket
	finite  kernel.Finite
	window  kernel.FixedWindow
	counter kernel.SlidingCounter
	log     kernel.Log
}

func (lf leaf) fresh() kernels {
	var k kernels
	switch lf.k {
	case kindGCRA:
		k.gcra = lf.gcra.Fresh()
	case kindToken:
		k.tokens = lf.bucket.FreshTokens()
	case kindLeaky:
		k.leaky = lf.bucket.FreshLeaky()
	case kindFinite:
		k.finite = kernel.Finite{Size: lf.size, Left: lf.size}
	case kindWindow:
		k.window = lf.window.FreshWindow()
	case kindCount:
		k.counter = lf.window.FreshCounter()
	case kindSliding, kindBuckets:
		k.log = lf.log.FreshLog()
	}
	return k
}

// stateErr turns a kernel's verdict on restored state words into a corruption error.
func stateErr(inv *kernel.Invalid) error {
	if inv == nil {
		return nil
	}
	return corruptf("state %s %s", inv.Param, inv.Problem)
}
