package redisstore

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/limits"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/numerus-closus/numerus/typed"
)

// limitSpecs are policies at each limit of package internal/limits (true) and one step past it
// (false): children of one node, levels of nesting, leaves in all.
func limitSpecs() map[string]struct {
	sp typed.Spec
	ok bool
} {
	finite := typed.Spec{Algo: typed.AlgoFinite, Count: 3}
	and := func(of ...typed.Spec) typed.Spec { return typed.Spec{Algo: typed.AlgoAnd, Of: of} }
	wide := func(n int) typed.Spec {
		of := make([]typed.Spec, n)
		for i := range of {
			of[i] = finite
		}
		return and(of...)
	}
	deep := func(levels int) typed.Spec {
		sp := finite
		for range levels {
			sp = and(sp, finite)
		}
		return sp
	}
	return map[string]struct {
		sp typed.Spec
		ok bool
	}{
		"children at the limit": {wide(limits.Children), true}, "children past it": {wide(limits.Children + 1), false},
		"levels at the limit": {deep(limits.Depth), true}, "levels past it": {deep(limits.Depth + 1), false},
		"leaves at the limit": {and(wide(limits.Leaves/2), wide(limits.Leaves/2)), true},
		"leaves past it":      {and(wide(limits.Leaves/2), wide(limits.Leaves/2+1)), false},
	}
}

// scriptText writes a policy of finite buckets, And and Or in the script's tokens, as encode
// would, past the limits too.
func scriptText(sp typed.Spec) string {
	if sp.Algo == typed.AlgoFinite {
		return "f " + itoa(sp.Count)
	}
	parts := []string{"&", strconv.Itoa(len(sp.Of))}
	for _, c := range sp.Of {
		parts = append(parts, scriptText(c))
	}
	return strings.Join(parts, " ")
}

// TestLimitsOfThePolicy: CheckPolicy's encoding and the script's own reading of a policy take one
// at each limit that package typed holds every policy to and refuse one a step past it, with
// numerus.ErrInvalidArgument in Go and a refusal of the policy in the script.
func TestLimitsOfThePolicy(t *testing.T) {
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	for name, lc := range limitSpecs() {
		var toks []string
		leaves := 0
		err := encode(&toks, lc.sp, "", 0, &leaves)
		text := scriptText(lc.sp)
		if lc.ok {
			require.NoError(t, err, name)
			require.Equal(t, text, strings.Join(toks, " "), name)
		} else {
			require.ErrorIs(t, err, numerus.ErrInvalidArgument, name)
			require.ErrorContains(t, err, "limit", name)
		}
		pr := &program{text: text, consts: pack(1000, strings.Fields(text))}
		cmd := call{op: opAcquire, key: "numerus-limits:" + name, pr: pr}.command(ctx, "eval", engineSource, "1000")
		_ = c.Process(ctx, cmd) // its error is cmd.Err()
		if lc.ok {
			require.NoError(t, cmd.Err(), name)
		} else {
			require.ErrorContains(t, cmd.Err(), "bad policy", name)
		}
	}
}
