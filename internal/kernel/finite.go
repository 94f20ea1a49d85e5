package kernel

import "strconv"

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Finite is a bucket of Size tokens that never refills; Left are still in it.
type Finite struct {
	Size, Left int64
}

// Debit takes cost tokens; what the bucket cannot hold now it never will.
func (f Finite) Debit(at, cost int64) (Finite, int64, bool) {
	CheckCost(cost)
	if cost > f.Left {
		return f, Never, false
	}
	return Finite{Size: f.Size, Left: f.Left - cost}, at, true
}

// Status reports the tokens left; the bucket is full again only if it was never debited.
func (f Finite) Status(at int64) Status {
	full := Never
	if f.Left == f.Size {
		full = at
	}
	return Status{Limit: f.Size, Remaining: f.Left, Full: full}
}

// String names the policy.
func (f Finite) String() string { return "finite " + itoa(f.Size) }
