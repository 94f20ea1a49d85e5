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

// TestLimitsOfThePolicy: CheckPolicy's encoding and the script's own readings of a policy (the
// nodes a call packs, the text a key keeps) take one at each limit that package typed holds every
// policy to and refuse one a step past it, with numerus.ErrInvalidArgument in Go, a refusal of the
// policy in the script, and a key kept under it found unreadable (corrupt).
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
		kept := "numerus-limits-kept:" + name // a key kept under the policy, checked under another
		require.NoError(t, c.HSet(ctx, kept, "p", text).Err(), name)
		other := "& 2 f 3 f 3"
		cmd = call{op: opAcquire, key: kept, pr: &program{text: other, consts: pack(1000, strings.Fields(other))}}.
			command(ctx, "eval", engineSource, "1000")
		_ = c.Process(ctx, cmd)
		require.ErrorContains(t, cmd.Err(), "NUMERUS_CORRUPT", name)
		if lc.ok { // read, and found without the states of its leaves
			require.ErrorContains(t, cmd.Err(), "state of leaf", name)
		} else {
			require.ErrorContains(t, cmd.Err(), "unreadable policy", name)
		}
	}
}
