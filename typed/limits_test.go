package typed

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/limits"
)

// limitCase is a policy at one of the limits on a policy's size, or one step past it (past), and
// the words an error about it must hold.
type limitCase struct {
	name string
	sp   Spec
	past bool
	says string
}

func finiteLeaf() Spec { return Spec{Algo: AlgoFinite, Count: 3} }

// andOf returns an And of n finite buckets.
func andOf(n int) Spec {
	sp := Spec{Algo: AlgoAnd, Of: make([]Spec, n)}
	for i := range sp.Of {
		sp.Of[i] = finiteLeaf()
	}
	return sp
}

// deep returns levels of And, each of the one below and a finite bucket.
func deep(levels int) Spec {
	sp := finiteLeaf()
	for range levels {
		sp = Spec{Algo: AlgoAnd, Of: []Spec{sp, finiteLeaf()}}
	}
	return sp
}

// manyLeaves returns an Or of two Ands that hold n finite buckets between them.
func manyLeaves(n int) Spec {
	return Spec{Algo: AlgoOr, Of: []Spec{andOf(n / 2), andOf(n - n/2)}}
}

// limitCases holds a policy at each limit on the size of a spec and one a step past it.
func limitCases() []limitCase {
	return []limitCase{
		{"children", andOf(limits.Children), false, ""},
		{"children", andOf(limits.Children + 1), true, "holds more than 1000 specs, the limit"},
		{"depth", deep(limits.Depth), false, ""},
		{"depth", deep(limits.Depth + 1), true, "nests more than 32 levels, the limit"},
		{"leaves", manyLeaves(limits.Leaves), false, ""},
		{"leaves", manyLeaves(limits.Leaves + 1), true, "holds more than 1000 leaves in all, the limit"},
	}
}

func requireLimit(t *testing.T, err error, c limitCase, want error, reader string) {
	t.Helper()
	if !c.past {
		require.NoError(t, err, "%s: %s at the limit", reader, c.name)
		return
	}
	require.ErrorIs(t, err, want, "%s: %s past the limit", reader, c.name)
	require.ErrorContains(t, err, c.says, "%s: %s past the limit", reader, c.name)
}

// TestValidateLimits: Validate, and so Compile, take a spec at each limit and refuse one a step
// past it, naming the limit.
func TestValidateLimits(t *testing.T) {
	for _, c := range limitCases() {
		requireLimit(t, c.sp.Validate(), c, numerus.ErrInvalidArgument, "Validate")
		_, err := Compile(c.sp)
		requireLimit(t, err, c, numerus.ErrInvalidArgument, "Compile")
	}
	err := Spec{Algo: AlgoAnd, Of: []Spec{finiteLeaf(), andOf(limits.Children + 1)}}.Validate()
	require.ErrorContains(t, err, "invalid of[1].of: holds more than 1000 specs", "the path of the node past the limit")
}
