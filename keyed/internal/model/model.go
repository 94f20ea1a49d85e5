// Package model builds the reference that keyed stores are checked against: for each subject,
// the numerus limiter of the same policy, built with the root package's constructors (not with
// package typed, which the stores run), and beside it a tree of its leaves, which names the
// limit that binds (see [Decision]).
package model

import (
	"fmt"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/typed"
)

var epoch = time.Unix(0, 0)

// Core returns the numerus limiter that sp describes. Windows align on the Unix epoch, as in
// package typed.
func Core(sp typed.Spec) (numerus.Limiter, error) {
	switch sp.Algo {
	case typed.AlgoAnd, typed.AlgoOr:
		kids := make([]numerus.Limiter, len(sp.Of))
		for i, c := range sp.Of {
			k, err := Core(c)
			if err != nil {
				return nil, err
			}
			kids[i] = k
		}
		if sp.Algo == typed.AlgoAnd {
			return numerus.AllOf(kids...), nil
		}
		return numerus.AnyOf(kids...), nil
	}
	return leaf(sp)
}

func leaf(sp typed.Spec) (numerus.Limiter, error) {
	rate, burst := numerus.Per(sp.Count, sp.Period), sp.Burst
	if burst == 0 {
		burst = 1 // typed.Spec's default
	}
	switch sp.Algo {
	case typed.AlgoGCRA:
		return numerus.GCRA(rate, burst)
	case typed.AlgoToken:
		return numerus.TokenBucket(burst, rate)
	case typed.AlgoLeaky:
		return numerus.LeakyBucket(burst, rate)
	case typed.AlgoFinite:
		return numerus.FiniteBucket(sp.Count)
	case typed.AlgoWindow:
		return numerus.FixedWindow(sp.Period, sp.Count, epoch)
	case typed.AlgoCount:
		return numerus.SlidingWindowCount(sp.Period, sp.Count, epoch)
	case typed.AlgoSliding:
		return numerus.SlidingWindow(sp.Period, sp.Count)
	case typed.AlgoBuckets:
		return numerus.SlidingWindowBucketed(sp.Period, int(sp.In), sp.Count)
	}
	return nil, fmt.Errorf("model: unknown algorithm %q", sp.Algo)
}

// Decision is what a keyed store should answer, from the core limiter's own words.
type Decision struct {
	Allowed    bool
	Remaining  int64
	Limit      int64
	RetryAfter numerus.NextDebitable // when the check would be admitted (at itself if it was)
	Full       numerus.NextDebitable // when the subject is full again
	// Refill is when the subject holds one token more than Remaining: the core limiter's answer
	// to a debit of Remaining+1 (at itself when it is full, Remaining ≥ Limit).
	Refill numerus.NextDebitable
	// Binding is the index of the leaf that binds, among the policy's leaves in the order the
	// notation writes them: on an admission (and a Peek that admits), in an And the child with
	// the fewest tokens left (ties: the one whose next token comes last, then the first), in an
	// Or the one with the most (ties: the next token first, then the first); on a refusal, the
	// leaf whose answer
	// RetryAfter is (in an And the first child refusing with the latest answer, in an Or the
	// first with the earliest), down the tree. The tree of leaves that finds it (see tree) is
	// checked against the core limiter at every step.
	Binding int
}

// Subjects is the reference of a keyed limiter: a core limiter per subject, fresh until first
// admitted, and the tree of its leaves. The zero Subjects is not usable: use New.
type Subjects struct {
	fresh subject
	m     map[string]subject
}

// subject is one subject's core limiter and the tree of the same leaves, debited alike.
type subject struct {
	core numerus.Limiter
	tree tree
}

// New returns the reference of a limiter of sp with no subject seen.
func New(sp typed.Spec) (*Subjects, error) {
	l, err := Core(sp)
	if err != nil {
		return nil, err
	}
	t, err := treeOf(sp, new(int))
	if err != nil {
		return nil, err
	}
	return &Subjects{fresh: subject{l, t}, m: map[string]subject{}}, nil
}

func (s *Subjects) get(name string) subject {
	if l, ok := s.m[name]; ok {
		return l
	}
	return s.fresh
}

// Acquire debits cost from subject at at and returns what the store should answer.
func (s *Subjects) Acquire(name string, at time.Time, cost int64) Decision {
	sub := s.get(name)
	next, from, ok := sub.core.DebitN(at, cost)
	tnext, tfrom, tok := sub.tree.debit(at, cost)
	agree(sub.tree, at, cost, ok, tok, from, tfrom)
	if ok {
		sub = subject{next, tnext}
		s.m[name] = sub
	}
	return decide(sub, at, cost, ok, from)
}

// Peek returns what the store should answer to a Peek of subject at at.
func (s *Subjects) Peek(name string, at time.Time) Decision {
	sub := s.get(name)
	_, from, ok := sub.core.DebitN(at, 1)
	_, tfrom, tok := sub.tree.debit(at, 1)
	agree(sub.tree, at, 1, ok, tok, from, tfrom)
	return decide(sub, at, 1, ok, from)
}

// Reset forgets subject.
func (s *Subjects) Reset(name string) { delete(s.m, name) }

// decide is the Decision of a debit of cost at at that the core answered (ok, from), where sub is
// the subject after it.
func decide(sub subject, at time.Time, cost int64, ok bool, from numerus.NextDebitable) Decision {
	st := sub.core.Status(at)
	ts, binds := sub.tree.binding(at)
	if ts.Remaining != st.Remaining || ts.Limit != st.Limit || !ts.Full.Equal(st.Full) {
		panic(fmt.Sprintf("model: at %v the tree of leaves has status %+v, the core limiter %v %+v", at, ts, sub.core, st))
	}
	d := Decision{Allowed: ok, Remaining: st.Remaining, Limit: st.Limit, RetryAfter: from, Full: st.Full,
		Refill: numerus.DebitableFrom(at), Binding: binds}
	if st.Remaining < st.Limit {
		if _, more, admitted := sub.core.DebitN(at, max(st.Remaining, 0)+1); !admitted {
			d.Refill = more
		}
	}
	if !ok {
		d.Binding = sub.tree.answering(at, cost, from)
	}
	return d
}

// agree panics unless the tree answered a debit of cost at at as the core limiter did.
func agree(t tree, at time.Time, cost int64, ok, tok bool, from, tfrom numerus.NextDebitable) {
	if ok != tok || !from.Equal(tfrom) {
		panic(fmt.Sprintf("model: a debit of %d at %v: the tree of leaves answers %v %v, the core limiter %v %v",
			cost, at, tok, tfrom, ok, from))
	}
}
