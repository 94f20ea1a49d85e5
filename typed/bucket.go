package typed

import (
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// TokenBucket is a bucket of capacity tokens that starts full and refills smoothly (never beyond
// capacity), as a typed value. It decides exactly like numerus.TokenBucket.
//
// The zero TokenBucket has no policy: it refuses every debit with Never and cannot be saved.
type TokenBucket struct{ k kernel.TokenBucket }

// NewTokenBucket returns a full token bucket: capacity tokens at its first instant, and at most
// capacity + N - 1 in any span of the refill's period, for a refill of N per period. It returns
// an error matching numerus.ErrInvalidArgument as numerus.TokenBucket does.
func NewTokenBucket(capacity int64, refill numerus.Rate) (TokenBucket, error) {
	p, inv := bucketPolicy(refill, capacity)
	if inv != nil {
		return TokenBucket{}, paramErr(inv)
	}
	return TokenBucket{p.FreshTokens()}, nil
}

func bucketPolicy(rate numerus.Rate, capacity int64) (*kernel.BucketPolicy, *kernel.Invalid) {
	r, inv := rateOf(rate)
	if inv != nil {
		return nil, inv
	}
	return kernel.BucketOf(r, capacity)
}

func (b TokenBucket) debit(at, cost int64) (TokenBucket, int64, bool) {
	if b.k.P != nil && b.k.FastCase(at, cost) {
		word, over := b.k.FastTake(at, cost)
		if over > 0 {
			return b, at + over, false
		}
		return TokenBucket{b.k.FastAdmit(at, word)}, at, true
	}
	k, from, ok := b.k.Debit(at, cost)
	return TokenBucket{k}, from, ok
}

func (b TokenBucket) status(at int64) kernel.Status { return b.k.Status(at) }

func (b TokenBucket) latest() int64 { return lastOf(b.k.P != nil, b.k.Last) }

func (b TokenBucket) advance(at int64) TokenBucket { return TokenBucket{b.k.Advance(at)} }

func (b TokenBucket) spec() Spec {
	if b.k.P == nil {
		return Spec{Algo: AlgoToken}
	}
	return rateSpec(AlgoToken, b.k.P.Rate, b.k.P.Capacity)
}

func (b TokenBucket) state(dst [][]int64) [][]int64 {
	w := make([]int64, 2)
	putTokens(w, b.k)
	return append(dst, w)
}

func (TokenBucket) restore(sp Spec, st *states) (TokenBucket, error) {
	lf, err := leafFor(sp, kindToken)
	if err != nil || st == nil {
		return TokenBucket{lf.fresh().tokens}, err
	}
	w, err := st.next(2)
	if err != nil {
		return TokenBucket{}, err
	}
	k, inv := lf.bucket.RestoreTokens(w[0], w[1])
	return TokenBucket{k}, stateErr(inv)
}

// LeakyBucket is the leaky bucket as a meter, as a typed value: it holds capacity tokens of water,
// starts empty and drains at the leak rate; a debit pours tokens in and is refused if the bucket
// would overflow. It decides exactly like numerus.LeakyBucket and TokenBucket.
//
// The zero LeakyBucket has no policy: it refuses every debit with Never and cannot be saved.
type LeakyBucket struct{ k kernel.LeakyBucket }

// NewLeakyBucket returns an empty leaky bucket: capacity tokens at its first instant, and at
// most capacity + N - 1 in any span of the leak's period, for a leak of N per period. It returns
// an error matching numerus.ErrInvalidArgument as numerus.LeakyBucket does.
func NewLeakyBucket(capacity int64, leak numerus.Rate) (LeakyBucket, error) {
	p, inv := bucketPolicy(leak, capacity)
	if inv != nil {
		return LeakyBucket{}, paramErr(inv)
	}
	return LeakyBucket{p.FreshLeaky()}, nil
}

func (b LeakyBucket) debit(at, cost int64) (LeakyBucket, int64, bool) {
	if b.k.P != nil && b.k.FastCase(at, cost) {
		word, over := b.k.FastTake(at, cost)
		if over > 0 {
			return b, at + over, false
		}
		return LeakyBucket{b.k.FastAdmit(at, word)}, at, true
	}
	k, from, ok := b.k.Debit(at, cost)
	return LeakyBucket{k}, from, ok
}

func (b LeakyBucket) status(at int64) kernel.Status { return b.k.Status(at) }

func (b LeakyBucket) latest() int64 { return lastOf(b.k.P != nil, b.k.Last) }

func (b LeakyBucket) advance(at int64) LeakyBucket { return LeakyBucket{b.k.Advance(at)} }

func (b LeakyBucket) spec() Spec {
	if b.k.P == nil {
		return Spec{Algo: AlgoLeaky}
	}
	return rateSpec(AlgoLeaky, b.k.P.Rate, b.k.P.Capacity)
}

func (b LeakyBucket) state(dst [][]int64) [][]int64 {
	w := make([]int64, 2)
	putLeaky(w, b.k)
	return append(dst, w)
}

func (LeakyBucket) restore(sp Spec, st *states) (LeakyBucket, error) {
	lf, err := leafFor(sp, kindLeaky)
	if err != nil || st == nil {
		return LeakyBucket{lf.fresh().leaky}, err
	}
	w, err := st.next(2)
	if err != nil {
		return LeakyBucket{}, err
	}
	k, inv := lf.bucket.RestoreLeaky(w[0], w[1])
	return LeakyBucket{k}, stateErr(inv)
}

// FiniteBucket is a bucket of n tokens that never refills, as a typed value: once it has given n
// tokens it answers Never. It decides exactly like numerus.FiniteBucket.
//
// The zero FiniteBucket holds nothing: it denies every debit with Never, reports a zero Status
// that is full (of nothing), names itself "finite 0" and cannot be saved.
type FiniteBucket struct{ k kernel.Finite }

// NewFiniteBucket returns a full finite bucket of n tokens. It returns an error matching
// numerus.ErrInvalidArgument when n is not positive.
func NewFiniteBucket(n int64) (FiniteBucket, error) {
	f, inv := kernel.FiniteOf(n)
	return FiniteBucket{f}, paramErr(inv)
}

func (f FiniteBucket) debit(at, cost int64) (FiniteBucket, int64, bool) {
	k, from, ok := f.k.Debit(at, cost)
	return FiniteBucket{k}, from, ok
}

func (f FiniteBucket) status(at int64) kernel.Status { return f.k.Status(at) }

func (FiniteBucket) latest() int64 { return kernel.MinInstant } // it keeps no instant

func (f FiniteBucket) advance(int64) FiniteBucket { return f }

func (f FiniteBucket) spec() Spec { return Spec{Algo: AlgoFinite, Count: f.k.Size} }

func (f FiniteBucket) state(dst [][]int64) [][]int64 { return append(dst, []int64{f.k.Left}) }

func (FiniteBucket) restore(sp Spec, st *states) (FiniteBucket, error) {
	lf, err := leafFor(sp, kindFinite)
	if err != nil || st == nil {
		return FiniteBucket{lf.fresh().finite}, err
	}
	w, err := st.next(1)
	if err != nil {
		return FiniteBucket{}, err
	}
	k, inv := kernel.RestoreFinite(lf.size, w[0])
	return FiniteBucket{k}, stateErr(inv)
}

// Debit takes one token at at. It is DebitN(at, 1).
func (b TokenBucket) Debit(at time.Time) (TokenBucket, numerus.NextDebitable, bool) {
	return b.DebitN(at, 1)
}

// DebitN takes cost tokens at at, all or nothing. Admitted, it returns the TokenBucket that follows and
// DebitableFrom(at); refused, the receiver and when the same debit would be admitted, or Never. A
// cost below 1 panics.
func (b TokenBucket) DebitN(at time.Time, cost int64) (TokenBucket, numerus.NextDebitable, bool) {
	if ns, ok := kernel.Instant(at); ok && b.k.P != nil && b.k.FastCase(ns, cost) { // inlined: no call
		word, over := b.k.FastTake(ns, cost)
		if over > 0 {
			return b, numerus.DebitableAfter(at, time.Duration(over)), false
		}
		return TokenBucket{b.k.FastAdmit(ns, word)}, numerus.DebitableFrom(at), true
	}
	return b.debitN(at, cost)
}

func (b TokenBucket) debitN(at time.Time, cost int64) (TokenBucket, numerus.NextDebitable, bool) {
	ns := kernel.FromTime(at)
	k, from, ok := b.k.Debit(ns, cost)
	if ok {
		return TokenBucket{k}, numerus.DebitableFrom(at), true
	}
	return b, refusal(from, ns, at), false
}

// Status reports the limit, the tokens remaining at at and when it is full again. It is pure.
func (b TokenBucket) Status(at time.Time) numerus.Status {
	return toStatus(b.k.Status(kernel.FromTime(at)), at)
}

// String names the policy in the notation, as in "token 10/s burst 20".
func (b TokenBucket) String() string { return b.k.String() }

// AppendBinary appends the snapshot of b (policy and state) to dst, which UnmarshalBinary and
// ReadSnapshot read. The zero TokenBucket has no policy and cannot be saved.
func (b TokenBucket) AppendBinary(dst []byte) ([]byte, error) { return appendSnapshot(dst, b) }

// MarshalBinary returns the snapshot of b.
func (b TokenBucket) MarshalBinary() ([]byte, error) { return appendSnapshot(nil, b) }

// UnmarshalBinary sets *b to the TokenBucket a snapshot saved, validated: it returns an error matching
// ErrCorrupt or ErrMismatch, and leaves *b unchanged, when data is not the snapshot of a TokenBucket.
func (b *TokenBucket) UnmarshalBinary(data []byte) error { return readSnapshot(b, data) }

// MarshalJSON returns the snapshot of b as JSON: {"version":1,"policy":...,"state":[[...]]}.
func (b TokenBucket) MarshalJSON() ([]byte, error) { return snapshotJSON(b) }

// UnmarshalJSON sets *b to the TokenBucket a JSON snapshot saved, validated like UnmarshalBinary.
func (b *TokenBucket) UnmarshalJSON(data []byte) error { return readSnapshotJSON(b, data) }

// Debit takes one token at at. It is DebitN(at, 1).
func (b LeakyBucket) Debit(at time.Time) (LeakyBucket, numerus.NextDebitable, bool) {
	return b.DebitN(at, 1)
}

// DebitN takes cost tokens at at, all or nothing. Admitted, it returns the LeakyBucket that follows and
// DebitableFrom(at); refused, the receiver and when the same debit would be admitted, or Never. A
// cost below 1 panics.
func (b LeakyBucket) DebitN(at time.Time, cost int64) (LeakyBucket, numerus.NextDebitable, bool) {
	if ns, ok := kernel.Instant(at); ok && b.k.P != nil && b.k.FastCase(ns, cost) { // inlined: no call
		word, over := b.k.FastTake(ns, cost)
		if over > 0 {
			return b, numerus.DebitableAfter(at, time.Duration(over)), false
		}
		return LeakyBucket{b.k.FastAdmit(ns, word)}, numerus.DebitableFrom(at), true
	}
	return b.debitN(at, cost)
}

func (b LeakyBucket) debitN(at time.Time, cost int64) (LeakyBucket, numerus.NextDebitable, bool) {
	ns := kernel.FromTime(at)
	k, from, ok := b.k.Debit(ns, cost)
	if ok {
		return LeakyBucket{k}, numerus.DebitableFrom(at), true
	}
	return b, refusal(from, ns, at), false
}

// Status reports the limit, the tokens remaining at at and when it is full again. It is pure.
func (b LeakyBucket) Status(at time.Time) numerus.Status {
	return toStatus(b.k.Status(kernel.FromTime(at)), at)
}

// String names the policy in the notation, as in "leaky 10/s burst 20".
func (b LeakyBucket) String() string { return b.k.String() }

// AppendBinary appends the snapshot of b (policy and state) to dst, which UnmarshalBinary and
// ReadSnapshot read. The zero LeakyBucket has no policy and cannot be saved.
func (b LeakyBucket) AppendBinary(dst []byte) ([]byte, error) { return appendSnapshot(dst, b) }

// MarshalBinary returns the snapshot of b.
func (b LeakyBucket) MarshalBinary() ([]byte, error) { return appendSnapshot(nil, b) }

// UnmarshalBinary sets *b to the LeakyBucket a snapshot saved, validated: it returns an error matching
// ErrCorrupt or ErrMismatch, and leaves *b unchanged, when data is not the snapshot of a LeakyBucket.
func (b *LeakyBucket) UnmarshalBinary(data []byte) error { return readSnapshot(b, data) }

// MarshalJSON returns the snapshot of b as JSON: {"version":1,"policy":...,"state":[[...]]}.
func (b LeakyBucket) MarshalJSON() ([]byte, error) { return snapshotJSON(b) }

// UnmarshalJSON sets *b to the LeakyBucket a JSON snapshot saved, validated like UnmarshalBinary.
func (b *LeakyBucket) UnmarshalJSON(data []byte) error { return readSnapshotJSON(b, data) }

// Debit takes one token at at. It is DebitN(at, 1).
func (f FiniteBucket) Debit(at time.Time) (FiniteBucket, numerus.NextDebitable, bool) {
	return f.DebitN(at, 1)
}

// DebitN takes cost tokens at at, all or nothing. Admitted, it returns the FiniteBucket that follows and
// DebitableFrom(at); refused, the receiver and when the same debit would be admitted, or Never. A
// cost below 1 panics.
func (f FiniteBucket) DebitN(at time.Time, cost int64) (FiniteBucket, numerus.NextDebitable, bool) {
	ns := kernel.FromTime(at)
	k, from, ok := f.k.Debit(ns, cost)
	if ok {
		return FiniteBucket{k}, numerus.DebitableFrom(at), true
	}
	return f, refusal(from, ns, at), false
}

// Status reports the limit, the tokens remaining at at and when it is full again. It is pure.
func (f FiniteBucket) Status(at time.Time) numerus.Status {
	return toStatus(f.k.Status(kernel.FromTime(at)), at)
}

// String names the policy in the notation, as in "finite 100".
func (f FiniteBucket) String() string { return f.k.String() }

// AppendBinary appends the snapshot of f (policy and state) to dst, which UnmarshalBinary and
// ReadSnapshot read. The zero FiniteBucket has no policy and cannot be saved.
func (f FiniteBucket) AppendBinary(dst []byte) ([]byte, error) { return appendSnapshot(dst, f) }

// MarshalBinary returns the snapshot of f.
func (f FiniteBucket) MarshalBinary() ([]byte, error) { return appendSnapshot(nil, f) }

// UnmarshalBinary sets *f to the FiniteBucket a snapshot saved, validated: it returns an error matching
// ErrCorrupt or ErrMismatch, and leaves *f unchanged, when data is not the snapshot of a FiniteBucket.
func (f *FiniteBucket) UnmarshalBinary(data []byte) error { return readSnapshot(f, data) }

// MarshalJSON returns the snapshot of f as JSON: {"version":1,"policy":...,"state":[[...]]}.
func (f FiniteBucket) MarshalJSON() ([]byte, error) { return snapshotJSON(f) }

// UnmarshalJSON sets *f to the FiniteBucket a JSON snapshot saved, validated like UnmarshalBinary.
func (f *FiniteBucket) UnmarshalJSON(data []byte) error { return readSnapshotJSON(f, data) }
