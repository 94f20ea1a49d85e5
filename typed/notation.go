package typed

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/internal/limits"
)

// String writes sp in the notation that Parse reads back: Parse(sp.String()) equals sp for every
// valid sp. A leaf is written as its algorithm, count, period with the largest unit that divides
// it, and burst and in when set: "gcra 10/s burst 20", "window 1000/h", "buckets 100/m in 6",
// "finite 100". Children are joined with " & " or " | ", in parentheses where needed.
func (sp Spec) String() string {
	switch sp.Algo.kind() {
	case kindAnd, kindOr:
		ops := make([]kernel.Operand, len(sp.Of))
		for i, c := range sp.Of {
			ops[i] = operand(c.String(), c.Algo)
		}
		return kernel.Join(sp.Algo.kind() == kindAnd, ops...)
	}
	s := string(sp.Algo) + " " + itoa(sp.Count)
	if sp.Algo.kind() != kindFinite || sp.Period != 0 {
		s += "/" + kernel.FormatPeriod(int64(sp.Period))
	}
	if sp.Burst != 0 {
		s += " burst " + itoa(sp.Burst)
	}
	if sp.In != 0 {
		s += " in " + itoa(sp.In)
	}
	return s
}

// Parse reads a policy written in the notation (see the package doc for its grammar), as in
// "100/min", "10/s burst 20", "gcra 10/s burst 5 & window 1000/1h" or "5/s | 100/min", and
// returns its validated Spec. A bare rate, such as "100/min", is the sliding log
// ("sliding 100/m": at most 100 in any minute); one with a burst is a GCRA. Parse never panics.
//
// Every error is a *SyntaxError that names the column of the text at fault, says what was wrong
// there in the notation's words, and matches ErrSyntax. A token out of place gives "expected ...,
// found ...", as in `typed: column 4: expected a unit such as s, min or h, found "x"`. A value or
// a parameter that cannot make a limiter (a count of 0, a period of 0s, a burst given to a window,
// buckets without "in", finite with a period), or a text past a limit on a policy's size (see
// Limits in the package doc), gives what is wrong, as in "typed: column 1: the count must be at
// least 1", and matches numerus.ErrInvalidArgument too: errors.As finds in it the
// *numerus.ParamError that names the parameter by its path in the tree, as Validate names it
// ("of[1].count"; "of" or "text" for a limit). Parse reads the whole text, checking its syntax and
// its size, before it checks its values: a text with a token out of place, or past a limit,
// reports that; any other, the first of its values at fault.
func Parse(text string) (Spec, error) {
	sp, p, err := parseText(text)
	if err == nil {
		err = p.checkLeaves(text, sp)
	}
	if err != nil {
		return Spec{}, err
	}
	return sp, nil
}

// checkLeaves returns the error of the first value at fault in the limits of sp, read from text
// by p, or nil.
func (p *parser) checkLeaves(text string, sp Spec) error {
	var err error
	i := 0
	sp.leaves(func(leaf Spec) {
		if err == nil {
			err = p.leafErr(text, sp, i, leaf)
		}
		i++
	})
	return err
}

// leafErr returns the error of the first value at fault in leaf, the limit i of sp: the value p
// noted that the Spec could not hold, or one that Validate refuses, whichever comes first.
func (p *parser) leafErr(text string, sp Spec, i int, leaf Spec) error {
	var noted error
	col := math.MaxInt
	if p.note != nil && p.note.leaf == i {
		noted, col = p.note.err(sp), p.note.col
	}
	if _, err := compileLeaf(leaf, ""); err != nil {
		if se := leafError(text, sp, i, leaf, err); se.Column < col {
			return se
		}
	}
	return noted
}

// parse is Parse without checking the parameters of the limits it reads: the spec as written,
// within the limits on a policy's size, for a reader that validates it whole (Spec.UnmarshalJSON).
func parse(text string) (Spec, error) {
	sp, p, err := parseText(text)
	if err == nil && p.note != nil {
		err = p.note.err(sp)
	}
	return sp, err
}

// parseText reads text whole, syntax and limits, noting the first value the Spec cannot hold.
func parseText(text string) (Spec, *parser, error) {
	if len(text) > limits.Text {
		return Spec{}, nil, paramSyntax(utf8.RuneCountInString(text[:limits.Text])+1, "a policy's text is at most "+
			strconv.Itoa(limits.Text)+" bytes", "text", "is longer than "+strconv.Itoa(limits.Text)+" bytes, the limit")
	}
	p := newParser(text, -1)
	sp, _, err := p.policy()
	if err == nil && p.peek().kind != tEnd {
		err = p.expected("'&', '|' or the end")
	}
	return sp, &p, err
}

// bareAlgo is the algorithm of a limit written without one: a bare rate ("100/min") is the
// sliding log, at most its count in any span of its period and all of it at once, as a reader
// takes it; with a burst ("10/s burst 20") it is a GCRA.
func bareAlgo(sp Spec) Algo {
	if sp.Burst == 0 && sp.In == 0 {
		return AlgoSliding
	}
	return AlgoGCRA
}
