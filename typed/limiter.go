package typed

import (
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// Limiter is the constraint every typed limiter satisfies: a value whose DebitN returns its own
// type, so that compositions of typed limiters ([And], [Or]) keep a static type and never box. It
// is sealed: only the types of this package satisfy it, which is what lets every typed limiter be
// saved and restored. Use [Dynamic] to pass one where a numerus.Limiter is wanted.
type Limiter[L any] interface {
	// DebitN takes cost tokens at the instant at, all or nothing, as numerus.Limiter.DebitN does,
	// and returns the value that follows (the receiver itself when refused).
	DebitN(at time.Time, cost int64) (L, numerus.NextDebitable, bool)
	// Status reports the limit, the tokens remaining and when the limiter is full again.
	Status(at time.Time) numerus.Status
	// String names the policy in the notation, as in "gcra 10/s burst 5".
	String() string

	// debit is DebitN on kernel instants: the next value (unspecified when refused), the answer,
	// and whether it admitted.
	debit(at, cost int64) (L, int64, bool)
	// status is Status on kernel instants.
	status(at int64) kernel.Status
	// latest is the latest instant any leaf of the tree holds (kernel.MinInstant if none): the
	// instant the tree last admitted at, since an admission brings every leaf to it.
	latest() int64
	// advance brings every leaf of the tree to at (see kernel's Advance).
	advance(at int64) L
	spec() Spec
	state(dst [][]int64) [][]int64
	restore(sp Spec, st *states) (L, error)
}

// states hands the leaves of a tree their saved words in pre-order; a nil *states means fresh.
type states struct {
	ws [][]int64
	i  int
}

// next returns the words of the next leaf, which must be n long (n < 0: a log's, odd and not empty).
func (s *states) next(n int) ([]int64, error) {
	if s.i >= len(s.ws) {
		return nil, corruptf("state holds fewer leaves than the policy")
	}
	w := s.ws[s.i]
	s.i++
	if (n >= 0 && len(w) != n) || (n < 0 && len(w)%2 != 1) {
		return nil, corruptf("state of leaf %d holds %d words", s.i-1, len(w))
	}
	return w, nil
}

// lastOf is a leaf's latest instant: last, or kernel.MinInstant for a leaf with no policy.
func lastOf(policy bool, last int64) int64 {
	if !policy {
		return kernel.MinInstant
	}
	return last
}

// refusal converts a kernel's answer from, for a refused debit at ns = kernel.FromTime(at).
func refusal(from, ns int64, at time.Time) numerus.NextDebitable {
	switch d, after, t, finite := kernel.Answer(from, ns, at); {
	case after:
		return numerus.DebitableAfter(at, d)
	case finite:
		return numerus.DebitableFrom(t)
	}
	return numerus.Never()
}

// toStatus converts a kernel's status at at, as numerus does (see kernel.Status.Report).
func toStatus(s kernel.Status, at time.Time) numerus.Status {
	limit, remaining, t, finite := s.Report(at)
	full := numerus.Never()
	if finite {
		full = numerus.DebitableFrom(t)
	}
	return numerus.Status{Limit: limit, Remaining: remaining, Full: full}
}

// Dynamic returns l as a numerus.Limiter, so that typed and dynamic limiters mix in numerus.And,
// numerus.Or and everything else that takes one.
//
// It and the limiters its debits return implement encoding.BinaryAppender,
// encoding.BinaryMarshaler and json.Marshaler with l's snapshots, to be read back into an L with
// its UnmarshalBinary or UnmarshalJSON.
func Dynamic[L Limiter[L]](l L) numerus.Limiter { return &dynamic[L]{l} }

// dynamic is held by pointer, never modified after construction, like the root's own adapter. A
// debit through it allocates only to box the value it returns; a refusal returns the receiver and
// allocates nothing.
type dynamic[L Limiter[L]] struct{ l L }

func (d *dynamic[L]) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return d.DebitN(at, 1)
}

func (d *dynamic[L]) DebitN(at time.Time, cost int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	next, from, ok := d.l.DebitN(at, cost)
	if !ok {
		return d, from, false
	}
	return &dynamic[L]{next}, from, true
}

func (d *dynamic[L]) Status(at time.Time) numerus.Status { return d.l.Status(at) }

func (d *dynamic[L]) String() string { return d.l.String() }

func (d *dynamic[L]) AppendBinary(b []byte) ([]byte, error) { return appendSnapshot(b, d.l) }

func (d *dynamic[L]) MarshalBinary() ([]byte, error) { return appendSnapshot(nil, d.l) }

func (d *dynamic[L]) MarshalJSON() ([]byte, error) { return snapshotJSON(d.l) }

// FromSpec returns the typed limiter of type L that sp describes, fresh: sp must have L's shape
// (the same algorithms, and the same And and Or nesting, as L). It returns an error matching
// numerus.ErrInvalidArgument when sp is invalid, and [ErrMismatch] when its shape is not L's.
//
//	l, err := typed.FromSpec[typed.And[typed.GCRA, typed.FixedWindow]](spec)
func FromSpec[L Limiter[L]](sp Spec) (L, error) {
	var zero L
	if err := sp.Validate(); err != nil {
		return zero, err
	}
	return zero.restore(sp, nil)
}

// leafFor compiles a leaf spec for a typed leaf of kind want.
func leafFor(sp Spec, want kind) (leaf, error) {
	if got := sp.Algo.kind(); got != want {
		return leaf{}, mismatch(sp.Algo, want.algo())
	}
	lf, err := compileLeaf(sp, "")
	if err != nil {
		return leaf{}, corruptWrap(err)
	}
	return lf, nil
}

// paramErr turns a kernel verdict on a constructor's arguments into the root's error.
func paramErr(inv *kernel.Invalid) error {
	if inv == nil {
		return nil
	}
	return &numerus.ParamError{Param: inv.Param, Problem: inv.Problem}
}

func rateOf(r numerus.Rate) (kernel.Rate, *kernel.Invalid) {
	return kernel.RateOf(r.Tokens(), int64(r.Period()))
}
