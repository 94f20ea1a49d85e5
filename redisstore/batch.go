package redisstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/redis/go-redis/v9"
)

// maxBatch bounds the subjects one batch script checks, so that it holds the server for a few
// milliseconds at most.
const maxBatch = 500

// AcquireBatch runs Acquire for every request in one round trip and returns the decisions in
// order. Each check is atomic; the checks of one key run in the order of reqs, unless the server
// lost the script and another client reloads it meanwhile. A failed check's decision is the zero
// Decision, a refusal; the error counts the failures and wraps the first. keyed.Limiter.Request
// builds the request of a subject.
func (s *Store) AcquireBatch(ctx context.Context, reqs []keyed.Request) ([]keyed.Decision, error) {
	b := newBatch(s, len(reqs))
	for i, r := range reqs {
		b.calls[i], b.errs[i] = s.call(opAcquire, r)
	}
	b.send(ctx)
	return b.out, withCause(ctx, b.err())
}

func newBatch(s *Store, n int) *batch {
	return &batch{s: s, calls: make([]call, n), out: make([]keyed.Decision, n), errs: make([]error, n)}
}

// send runs the batch's valid calls in one round trip: grouped by policy on a single server,
// each its own script call elsewhere.
func (b *batch) send(ctx context.Context) {
	if b.s.single {
		b.grouped(ctx)
	} else {
		b.pipelined(ctx)
	}
}

// batch is the state of one AcquireBatch: each request's call, decision and error.
type batch struct {
	s     *Store
	calls []call
	out   []keyed.Decision
	errs  []error
}

// pipelined sends each valid request as its own script call, in one pipeline.
func (b *batch) pipelined(ctx context.Context) {
	pending := make([]Pending, len(b.calls))
	pipe := b.s.client.Pipeline()
	for i, c := range b.calls {
		if b.errs[i] == nil {
			pending[i] = Pending{s: b.s, c: c, cmd: b.s.script.EvalSha(ctx, pipe, c.keys(), c.argv(b.s.minTTL)...)}
		}
	}
	_, _ = pipe.Exec(ctx) // each command's own error is read below
	var again redis.Pipeliner
	for i := range pending {
		if pd := &pending[i]; b.errs[i] == nil && noScript(pd.cmd.Err()) {
			if again == nil {
				again = b.s.client.Pipeline()
			}
			pd.cmd = b.s.script.Eval(ctx, again, pd.c.keys(), pd.c.argv(b.s.minTTL)...)
		}
	}
	if again != nil {
		_, _ = again.Exec(ctx)
	}
	for i := range pending {
		if b.errs[i] == nil {
			b.out[i], b.errs[i] = pending[i].c.decision(pending[i].cmd)
		}
	}
}

// grouped sends the valid calls in one pipeline: those of a policy with other calls as batch
// script calls of up to maxBatch subjects each, a call alone under its policy as its own script
// call.
func (b *batch) grouped(ctx context.Context) {
	groups := b.groups()
	if len(groups) == 0 {
		return
	}
	keys, args := make([][]string, len(groups)), make([][]any, len(groups))
	cmds := make([]*redis.Cmd, len(groups))
	pipe := b.s.client.Pipeline()
	for g, idx := range groups {
		keys[g], args[g] = b.scriptCall(idx)
		cmds[g] = b.s.script.EvalSha(ctx, pipe, keys[g], args[g]...)
	}
	_, _ = pipe.Exec(ctx)
	var again redis.Pipeliner
	for g := range groups {
		if noScript(cmds[g].Err()) {
			if again == nil {
				again = b.s.client.Pipeline()
			}
			cmds[g] = b.s.script.Eval(ctx, again, keys[g], args[g]...)
		}
	}
	if again != nil {
		_, _ = again.Exec(ctx)
	}
	for g, idx := range groups {
		if len(idx) == 1 {
			i := idx[0]
			b.out[i], b.errs[i] = b.calls[i].decision(cmds[g])
		} else {
			b.read(cmds[g], idx)
		}
	}
}

// groups returns the indexes of the valid calls, grouped by policy in groups of up to maxBatch,
// which run in order: a call whose key a later group holds already (a call of another policy on
// the same subject, in a policy change) starts a new group of its policy, so that the calls on
// each key run in the batch's order, as Acquire one by one would run them.
func (b *batch) groups() [][]int {
	var groups [][]int
	var open []int           // the group each policy fills now
	last := map[string]int{} // the group of each key's latest call
	for i, c := range b.calls {
		if b.errs[i] != nil {
			continue
		}
		o := slices.IndexFunc(open, func(g int) bool { return b.calls[groups[g][0]].pr == c.pr })
		switch {
		case o < 0:
			o, open = len(open), append(open, len(groups))
			groups = append(groups, nil)
		case len(groups[open[o]]) == maxBatch || last[c.key] > open[o]:
			open[o] = len(groups)
			groups = append(groups, nil)
		}
		groups[open[o]] = append(groups[open[o]], i)
		last[c.key] = open[o]
	}
	return groups
}

// scriptCall returns the keys and arguments of the script call of the calls idx, all of one policy:
// a batch call for several, the call's own for one.
func (b *batch) scriptCall(idx []int) ([]string, []any) {
	first := b.calls[idx[0]]
	if len(idx) == 1 {
		return first.keys(), first.argv(b.s.minTTL)
	}
	pr := first.pr
	keys := make([]string, len(idx))
	args := append(make([]any, 0, 4+len(idx)), "B", b.s.minTTL, pr.text, pr.consts)
	uniform := true
	for n, i := range idx {
		c := b.calls[i]
		keys[n] = c.key
		uniform = uniform && c.nums == first.nums
	}
	switch {
	case !uniform: // each check's numbers
		for _, i := range idx {
			nums := b.calls[i].nums
			if nums == nil {
				nums = packCall(1, -1)
			}
			args = append(args, nums)
		}
	case first.nums != nil: // every check's
		args = append(args, first.nums)
	}
	return keys, args
}

// read spreads a batch script's reply over the requests idx: the index (from 1) and the error of
// each check that failed, then the decisions of all, one after the other, replySize bytes each.
func (b *batch) read(cmd *redis.Cmd, idx []int) {
	reply, err := cmd.Slice()
	var all string
	if err == nil {
		var ok bool
		if len(reply) > 0 {
			all, ok = reply[len(reply)-1].(string)
		}
		if !ok || len(all) != replySize*len(idx) || len(reply)%2 != 1 {
			err = fmt.Errorf("redisstore: batch: unexpected reply for %d checks", len(idx))
		}
	}
	for f := 0; f+1 < len(reply); f += 2 {
		if n, ok := reply[f].(int64); !ok || n < 1 || int(n) > len(idx) {
			err = fmt.Errorf("redisstore: batch: unexpected failure %v of check %v", reply[f+1], reply[f])
		} else if _, ok := reply[f+1].(error); !ok {
			err = fmt.Errorf("redisstore: batch: unexpected failure %v of check %v", reply[f+1], reply[f])
		}
	}
	for n, i := range idx {
		if err != nil {
			b.errs[i] = b.calls[i].fail(err)
		} else {
			b.out[i], b.errs[i] = b.calls[i].read(all[replySize*n : replySize*(n+1)])
		}
	}
	for f := 0; err == nil && f+1 < len(reply); f += 2 {
		i := idx[reply[f].(int64)-1]
		b.out[i], b.errs[i] = keyed.Decision{}, b.calls[i].fail(reply[f+1].(error))
	}
}

// err reports the batch's failures: how many, and the first.
func (b *batch) err() error {
	failed, at := 0, 0
	for i, err := range b.errs {
		if err != nil {
			if failed == 0 {
				at = i
			}
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	return fmt.Errorf("redisstore: %d of %d checks failed, first check %d: %w", failed, len(b.errs), at, b.errs[at])
}
