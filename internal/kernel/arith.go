// Package kernel holds the arithmetic of every numerus algorithm: one kernel per algorithm, shared
// by the dynamic limiters of the root package and the concrete values of package typed.
//
// Instants are int64 nanoseconds since the Unix epoch. [Never] (math.MaxInt64) is reserved: a
// finite instant is at most [MaxInstant]. Kernels are small values with value receivers; a debit
// returns the next value and never changes the receiver. Every kernel treats an instant earlier than
// the latest admitted one as that latest one, and a refused debit returns the receiver unchanged.
package kernel

import (
	"math"
	"math/bits"
)

// Never is the instant that never comes.
const Never int64 = math.MaxInt64

// MaxInstant is the latest finite instant; finite results saturate to it.
const MaxInstant int64 = math.MaxInt64 - 1

// MinInstant is the earliest instant.
const MinInstant int64 = math.MinInt64

// AddSat returns a+d for d ≥ 0, saturated to MaxInstant (MaxInstant-d cannot overflow).
func AddSat(a, d int64) int64 {
	if a > MaxInstant-d {
		return MaxInstant
	}
	return a + d
}

// Until returns the instant d ≥ 0 after a as an answer: Never when it lies past MaxInstant, the
// latest instant anything can happen at (a later one counts as MaxInstant), so that it never comes.
// An answer that saturated to MaxInstant would be refused there again.
func Until(a, d int64) int64 {
	if a > MaxInstant-d {
		return Never
	}
	return a + d
}

// SubSat returns a-d for d ≥ 0, saturated to MinInstant.
func SubSat(a, d int64) int64 {
	if a < MinInstant+d {
		return MinInstant
	}
	return a - d
}

// diff returns b-a for a ≤ b as an unsigned number, exact over the whole int64 range.
func diff(a, b int64) uint64 { return uint64(b) - uint64(a) }

// floorMod returns the offset of at within its period of length w aligned on origin: a number in
// [0, w). It is exact for any two int64 instants.
func floorMod(at, origin, w int64) int64 {
	if at >= origin {
		return int64(diff(origin, at) % uint64(w))
	}
	m := int64(diff(at, origin) % uint64(w))
	if m == 0 {
		return 0
	}
	return w - m
}

// ceilDiv returns ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int64) int64 {
	if b == 1 { // N = 1, the common rate: spare the division
		return a
	}
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// u128 is an unsigned 128-bit integer.
type u128 struct{ hi, lo uint64 }

func mul(a, b int64) u128 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return u128{hi, lo}
}

func (x u128) add(y u128) u128 {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	hi, _ := bits.Add64(x.hi, y.hi, c)
	return u128{hi, lo}
}

// sub returns x-y for y ≤ x.
func (x u128) sub(y u128) u128 {
	lo, b := bits.Sub64(x.lo, y.lo, 0)
	hi, _ := bits.Sub64(x.hi, y.hi, b)
	return u128{hi, lo}
}

func (x u128) cmp(y u128) int {
	switch {
	case x.hi < y.hi:
		return -1
	case x.hi > y.hi:
		return 1
	case x.lo < y.lo:
		return -1
	case x.lo > y.lo:
		return 1
	}
	return 0
}

// div returns ⌊x/d⌋ for a quotient known to fit in 63 bits (x < d·2^63).
func (x u128) div(d int64) int64 {
	q, _ := bits.Div64(x.hi, x.lo, uint64(d))
	return int64(q)
}

// GCD returns the greatest common divisor of two positive numbers.
func GCD(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Verdict is the answer of a kernel's inlinable fast path.
type Verdict uint8

// The verdicts of a fast path: it could not decide (the full Debit must), or it decided.
const (
	Undecided Verdict = iota
	Admitted
	Refused
)
