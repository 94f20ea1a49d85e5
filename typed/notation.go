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

// Parse reads a policy written in the notation of the package doc, as in "100/min" or
// "gcra 10/s burst 5 & window 1000/1h", and returns its validated Spec. It never panics.
//
// Every error is a *SyntaxError that names the column at fault and matches ErrSyntax. An error in
// a value or a parameter, or a text past the package's limits, also matches the
// *numerus.ParamError naming the parameter, and numerus.ErrInvalidArgument.
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
