package model

import (
	"fmt"
	"math"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/limits"
	"github.com/numerus-closus/numerus/typed"
)

// tree is a policy's leaves, each the core limiter of its spec, composed as numerus.AllOf and
// AnyOf compose them: an And charges every child or none and answers the latest of their answers,
// searched; an Or charges every child that admits and answers the earliest; either counts an
// instant before the latest it admitted at as that one. The core limiter of the whole policy
// keeps its children out of sight; the tree shows them, so that the model can say which leaf
// binds. Subjects checks at every step that the tree decides and reports as the core limiter
// does. A tree is a value: debit returns the next one and changes none.
type tree struct {
	leaf numerus.Limiter // a leaf's limiter; nil for an And or Or
	and  bool
	kids []tree
	lo   int       // the index of the first leaf below, in the order the notation writes them
	last time.Time // the latest instant an And or Or admitted at; the zero Time for none
}

// treeOf returns the tree of sp, whose first leaf is the *next-th of the policy's.
func treeOf(sp typed.Spec, next *int) (tree, error) {
	switch sp.Algo {
	case typed.AlgoAnd, typed.AlgoOr:
		switch len(sp.Of) {
		case 0:
			return tree{}, fmt.Errorf("model: %v has no children", sp)
		case 1: // AllOf(l) and AnyOf(l) are l
			return treeOf(sp.Of[0], next)
		}
		t := tree{and: sp.Algo == typed.AlgoAnd, lo: *next}
		for _, c := range sp.Of {
			k, err := treeOf(c, next)
			if err != nil {
				return tree{}, err
			}
			t.kids = append(t.kids, k)
		}
		return t, nil
	}
	l, err := leaf(sp)
	if err != nil {
		return tree{}, err
	}
	*next++
	return tree{leaf: l, lo: *next - 1}, nil
}

// effective returns at, or the latest instant t admitted at if at is earlier.
func (t tree) effective(at time.Time) time.Time {
	if at.Before(t.last) {
		return t.last
	}
	return at
}

// debit takes cost at at, all or nothing: the tree that follows, the answer, and whether it
// admitted.
func (t tree) debit(at time.Time, cost int64) (tree, numerus.NextDebitable, bool) {
	if t.leaf != nil {
		next, from, ok := t.leaf.DebitN(at, cost)
		t.leaf = next
		return t, from, ok
	}
	eff := t.effective(at)
	kids := make([]tree, len(t.kids))
	if t.and {
		if from, ok := t.checkAnd(eff, cost); !ok {
			return t, t.search(from, cost), false
		}
		for i, k := range t.kids {
			kids[i], _, _ = k.debit(eff, cost) // every child admits: checkAnd asked each
		}
	} else {
		from, any := numerus.Never(), false
		for i, k := range t.kids {
			var f numerus.NextDebitable
			var ok bool
			kids[i], f, ok = k.debit(eff, cost)
			any, from = any || ok, numerus.Earliest(from, f)
		}
		if !any {
			return t, from, false
		}
	}
	t.kids, t.last = kids, eff
	return t, numerus.DebitableFrom(at), true
}

// check answers as debit does, keeping nothing.
func (t tree) check(at time.Time, cost int64) (numerus.NextDebitable, bool) {
	_, from, ok := t.debit(at, cost)
	return from, ok
}

// checkAnd asks every child of an And whether it admits cost at at: the latest answer of those
// that refuse, or at.
func (t tree) checkAnd(at time.Time, cost int64) (numerus.NextDebitable, bool) {
	from, all := numerus.DebitableFrom(at), true
	for _, k := range t.kids {
		if f, ok := k.check(at, cost); !ok {
			from, all = numerus.Latest(from, f), false
			if from.IsNever() {
				break
			}
		}
	}
	return from, all
}

// search moves an And's answer on until every child admits there, for limits.Search rounds.
func (t tree) search(from numerus.NextDebitable, cost int64) numerus.NextDebitable {
	for range limits.Search {
		at, finite := from.Time()
		if !finite {
			return from
		}
		moved, ok := t.checkAnd(at, cost)
		if ok || !moved.After(from) {
			return from
		}
		from = moved
	}
	return numerus.Never()
}

// binding returns the tree's status at at, as the core limiter reports it, and the leaf whose
// tokens its Remaining counts: in an And the child's with the fewest left, in an Or the child's
// with the most (ties: see bind).
func (t tree) binding(at time.Time) (numerus.Status, int) {
	st, leaf, _ := t.bind(at)
	return st, leaf
}

// bind is binding, with the instant the binding leaf holds one token more: ties of tokens left go,
// in an And, to the leaf whose next token comes last, in an Or to the one whose comes first.
func (t tree) bind(at time.Time) (numerus.Status, int, numerus.NextDebitable) {
	if t.leaf != nil {
		st := t.leaf.Status(at)
		next := numerus.DebitableFrom(at)
		if st.Remaining < st.Limit {
			if _, more, ok := t.leaf.DebitN(at, max(st.Remaining, 0)+1); !ok {
				next = more
			}
		}
		return st, t.lo, next
	}
	at = t.effective(at)
	st := numerus.Status{Full: numerus.DebitableFrom(at)}
	if t.and {
		st.Limit, st.Remaining = math.MaxInt64, math.MaxInt64
	}
	leaf, next := -1, numerus.Never()
	for _, k := range t.kids {
		ks, kl, kn := k.bind(at)
		var binds bool
		if t.and {
			binds = ks.Remaining < st.Remaining || ks.Remaining == st.Remaining && kn.After(next)
			st.Limit, st.Remaining = min(st.Limit, ks.Limit), min(st.Remaining, ks.Remaining)
		} else {
			binds = ks.Remaining > st.Remaining || ks.Remaining == st.Remaining && kn.Before(next)
			st.Limit, st.Remaining = max(st.Limit, ks.Limit), max(st.Remaining, ks.Remaining)
		}
		if binds || leaf < 0 {
			leaf, next = kl, kn
		}
		st.Full = numerus.Latest(st.Full, ks.Full)
	}
	return st, leaf, next
}

// answering returns the leaf whose answer, from, the tree gave to a debit of cost it refused at
// at: in an And the first child that refuses with that answer (the latest), in an Or the first
// that gives it (the earliest), down to a leaf; the first leaf of the first child when none does
// (an And whose search moved its answer past every child's).
func (t tree) answering(at time.Time, cost int64, from numerus.NextDebitable) int {
	if t.leaf != nil {
		return t.lo
	}
	at = t.effective(at)
	for _, k := range t.kids {
		if f, ok := k.check(at, cost); !ok && f.Equal(from) {
			return k.answering(at, cost, from)
		}
	}
	return t.kids[0].lo
}
