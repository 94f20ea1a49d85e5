package typed

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/numerus-closus/numerus"
)

// This file turns what is wrong with a text's values into errors that name the column of the
// token that set them, in the notation's words.

// paramSyntax is the error of a text at col whose value or limit is wrong, as problem says in the
// notation's words; it matches ErrSyntax and the *numerus.ParamError of param and paramProblem.
func paramSyntax(col int, problem, param, paramProblem string) *SyntaxError {
	pe := &numerus.ParamError{Param: param, Problem: paramProblem}
	return &SyntaxError{Column: col, problem: problem, cause: fmt.Errorf("%w: %w", ErrSyntax, pe)}
}

// err is the error of the value v notes, in the spec sp read from the text.
func (v *valueErr) err(sp Spec) error {
	return paramSyntax(v.col, v.problem, leafPath(sp, v.leaf)+v.param, v.paramProblem)
}

// leafError is the error of leaf, the limit i of sp read from text, which Validate refuses with
// err, a *numerus.ParamError: the text is read again to find the columns of the limit's tokens.
func leafError(text string, sp Spec, i int, leaf Spec, err error) *SyntaxError {
	var pe *numerus.ParamError
	if !errors.As(err, &pe) { // compileLeaf's errors are all *numerus.ParamError
		return &SyntaxError{Column: 1, problem: err.Error(), cause: fmt.Errorf("%w: %w", ErrSyntax, err)}
	}
	p := newParser(text, i)
	_, _, _ = p.policy() // which read text whole before
	col, problem := explain(leaf, p.marks, pe)
	return paramSyntax(col, problem, leafPath(sp, i)+pe.Param, pe.Problem)
}

// explain returns the column and the words of the problem pe, which Validate found with the
// limit leaf whose tokens lie at m.
func explain(leaf Spec, m leafMarks, pe *numerus.ParamError) (int, string) {
	algo := string(leaf.Algo)
	switch pe.Param {
	case "count":
		if leaf.Count < 1 {
			return m.count, "the count must be at least 1"
		}
		return m.count, "the rate is too fine for exact arithmetic: in lowest terms, its count over its period leaves no room for one token"
	case "period":
		return explainPeriod(leaf, m)
	case "burst":
		if k := leaf.Algo.kind(); k != kindGCRA && k != kindToken && k != kindLeaky {
			return m.burst, algo + " takes no burst: only gcra, token and leaky have one"
		}
		return written(m.burstN, m.start), "the burst, times the interval between tokens (the period over the count), must stay below about 292 years"
	case "in":
		switch {
		case leaf.Algo != AlgoBuckets:
			return m.in, algo + " takes no \"in\": only buckets has sub-windows"
		case leaf.In == 0:
			return m.end, "buckets needs \"in\" and a number of sub-windows, as in buckets 100/m in 6"
		}
		return m.iN, "the period " + leaf.Period.String() + " does not split into " +
			strconv.FormatInt(leaf.In, 10) + " sub-windows of whole nanoseconds"
	}
	return m.start, pe.Param + " " + pe.Problem
}

func explainPeriod(leaf Spec, m leafMarks) (int, string) {
	switch {
	case leaf.Algo == AlgoFinite:
		return m.slash, "finite takes no period"
	case m.slash == 0 && m.named:
		return m.afterCount, string(leaf.Algo) + " needs a period, as in " + string(leaf.Algo) + " 10/s"
	case m.slash == 0:
		return m.afterCount, "a limit needs a period, as in 10/s"
	case leaf.Period < time.Nanosecond:
		return m.period, "a period must be at least 1ns"
	}
	return m.period, "the period is too long for exact arithmetic: in lowest terms with the count, it fills the range of instants"
}

// written returns col, or otherwise if col is 0 (not written).
func written(col, otherwise int) int {
	if col == 0 {
		return otherwise
	}
	return col
}

// leafPath returns the path in sp of its leaf i, counted from 0 in pre-order, as Validate names
// it: "of[1].of[0].", or "" for a leaf alone.
func leafPath(sp Spec, i int) string {
	path := ""
	for sp.Algo.kind().inner() {
		for j, c := range sp.Of {
			if n := c.countLeaves(); i >= n {
				i -= n
				continue
			}
			path, sp = path+"of["+strconv.Itoa(j)+"].", c
			break
		}
	}
	return path
}

func (sp Spec) countLeaves() int {
	n := 0
	sp.leaves(func(Spec) { n++ })
	return n
}
