package typed

import (
	"math"
	"strconv"
	"time"

	"github.com/numerus-closus/numerus/internal/limits"
)

// parser reads the notation: syntax and the limits on a policy's size as it goes, before it reads
// what they bound. Values the Spec cannot hold (a number beyond int64, a burst of 0) it notes, and
// reads on with the largest value in their place, so that a text's syntax errors come first,
// whatever its values; Parse checks the rest of the values once the whole text has been read.
type parser struct {
	lexer
	leaves int       // the limits read
	parens int       // the parentheses open
	note   *valueErr // the first value the Spec cannot hold, or nil
	want   int       // the limit whose marks to keep, counted from 0, or -1
	marks  leafMarks // the marks of limit want
}

// leafMarks are the columns of the tokens of one limit, from which an error about one of its
// parameters names the column of the token that set it (0: not written).
type leafMarks struct {
	named      bool // whether the limit names its algorithm
	start      int  // its first token: its algorithm, or its count
	count      int
	afterCount int // the token after its count, where a period goes
	slash      int // the '/' before its period
	period     int // the period's number, or its unit
	burst, in  int // the words "burst" and "in"
	burstN, iN int // their numbers
	end        int // the token after the limit
}

// valueErr is a value of a limit that the Spec cannot hold, at a column.
type valueErr struct {
	leaf           int // the limit, counted from 0
	col            int
	param, problem string // the parameter, and what is wrong in the notation's words
	paramProblem   string // what is wrong, as a *numerus.ParamError says it
}

func newParser(text string, want int) parser {
	return parser{lexer: newLexer(text), want: want}
}

func (p *parser) peek() token { return p.tok }

func (p *parser) next() token {
	t := p.tok
	if t.kind != tEnd {
		p.advance()
	}
	return t
}

func (p *parser) is(sym string) bool {
	return (p.tok.kind == tSym || p.tok.kind == tWord) && p.tok.text == sym
}

// expected is the error of a token out of place; a character the notation does not use is
// reported as that.
func (p *parser) expected(what string) error {
	if p.tok.kind == tBad {
		what = "a count, a word or one of / & | ; ( )"
	}
	return &SyntaxError{Column: p.tok.col, Expected: what, Found: p.tok.found()}
}

// policy := term { "|" term }, and the height of its tree (0 for a limit).
func (p *parser) policy() (Spec, int, error) {
	return p.list(AlgoOr, "|", "", p.term)
}

// term := factor { ( "&" | ";" ) factor }
func (p *parser) term() (Spec, int, error) {
	return p.list(AlgoAnd, "&", ";", p.factor)
}

// list reads items separated by sep or alt, each made by item, as one node of algo if there
// are several, within the limits on the children of a node and the depth of a tree.
func (p *parser) list(algo Algo, sep, alt string, item func() (Spec, int, error)) (Spec, int, error) {
	first, height, err := item()
	if err != nil || !p.is(sep) && !p.is(alt) {
		return first, height, err
	}
	sp, child := Spec{Algo: algo, Of: []Spec{first}}, height
	for p.is(sep) || p.is(alt) {
		at := p.next()
		if len(sp.Of) == limits.Children {
			return Spec{}, 0, paramSyntax(at.col, "'"+at.text+"' joins at most "+strconv.Itoa(limits.Children)+
				" limits or groups", "of", tooWide())
		}
		c, h, err := item()
		if err != nil {
			return Spec{}, 0, err
		}
		if sp.Of, child = append(sp.Of, c), max(child, h); child+1 > limits.Depth {
			return Spec{}, 0, paramSyntax(at.col, "'&' and '|' nest at most "+strconv.Itoa(limits.Depth)+" levels",
				"of", tooDeep())
		}
	}
	return sp, child + 1, nil
}

// factor := "(" policy ")" | limit
func (p *parser) factor() (Spec, int, error) {
	if !p.is("(") {
		sp, err := p.limit()
		return sp, 0, err
	}
	if p.parens == limits.Depth {
		return Spec{}, 0, paramSyntax(p.tok.col, "parentheses nest at most "+strconv.Itoa(limits.Depth)+" levels",
			"of", tooDeep())
	}
	p.next()
	p.parens++
	sp, h, err := p.policy()
	if err != nil {
		return Spec{}, 0, err
	}
	if !p.is(")") {
		return Spec{}, 0, p.expected("')'")
	}
	p.next()
	p.parens--
	return sp, h, nil
}

// limit := [ algo ] count [ "/" [ int ] unit ] [ "burst" int ] [ "in" int ]
func (p *parser) limit() (Spec, error) {
	var m leafMarks
	m.start = p.tok.col
	if p.leaves++; p.leaves > limits.Leaves {
		return Spec{}, paramSyntax(m.start, "a policy holds at most "+strconv.Itoa(limits.Leaves)+" limits",
			"of", tooManyLeaves())
	}
	sp, countWhat := Spec{Algo: AlgoGCRA}, "a limit such as 10/s, or '('"
	if t := p.peek(); t.kind == tWord {
		if k := Algo(t.text).kind(); k == kindNone || k.inner() {
			return Spec{}, p.expected("an algorithm (gcra, token, leaky, finite, window, sliding, buckets, count) or a count")
		}
		sp.Algo, countWhat, m.named = Algo(p.next().text), "a count", true
	}
	m.count = p.tok.col
	var err error
	if sp.Count, err = p.number(countWhat, "count", "the count"); err != nil {
		return Spec{}, err
	}
	m.afterCount = p.tok.col
	if err = p.period(&sp, &m); err != nil {
		return Spec{}, err
	}
	if err = p.options(&sp, &m); err != nil {
		return Spec{}, err
	}
	if !m.named {
		sp.Algo = bareAlgo(sp)
	}
	if m.end = p.tok.col; p.leaves-1 == p.want {
		p.marks = m
	}
	return sp, nil
}

// options := [ "burst" int ] [ "in" int ]
func (p *parser) options(sp *Spec, m *leafMarks) error {
	var err error
	if p.is("burst") {
		m.burst, m.burstN = p.next().col, p.tok.col
		if sp.Burst, err = p.number("a burst size", "burst", "the burst"); err != nil {
			return err
		}
		if sp.Burst == 0 { // which the Spec would read as no burst: it holds one too large instead
			p.noteValue(m.burstN, "burst", "a burst must be at least 1", "must be positive, got 0")
			sp.Burst = math.MaxInt64
		}
	}
	if p.is("in") {
		m.in, m.iN = p.next().col, p.tok.col
		if sp.In, err = p.number("a number of sub-windows", "in", "the number of sub-windows"); err != nil {
			return err
		}
		if sp.In == 0 {
			p.noteValue(m.iN, "in", "the number of sub-windows must be at least 1", "must be positive, got 0")
			sp.In = math.MaxInt64
		}
	}
	return nil
}

// number reads a count, burst or number of sub-windows: what names it for a syntax error, param
// and name for one beyond int64.
func (p *parser) number(what, param, name string) (int64, error) {
	t := p.peek()
	if t.kind != tNum {
		return 0, p.expected(what)
	}
	p.next()
	if t.big {
		p.noteValue(t.col, param, name+" must be below 2^63", "must be below 2^63, got "+t.text)
		return math.MaxInt64, nil
	}
	return t.num, nil
}

// period := "/" [ int ] unit. A limit may go without one where the text goes on as after a
// limit: Parse then says that its algorithm needs one.
func (p *parser) period(sp *Spec, m *leafMarks) error {
	if !p.is("/") {
		if sp.Algo == AlgoFinite || p.endsLimit() {
			return nil
		}
		return p.expected("'/' and a period, as in 10/s")
	}
	m.slash = p.next().col
	m.period = p.tok.col
	mult, big := int64(1), false
	if t := p.peek(); t.kind == tNum {
		mult, big = t.num, t.big
		p.next()
	}
	t := p.peek()
	unit, ok := units[t.text]
	if t.kind != tWord || !ok {
		return p.expected("a unit such as s, min or h")
	}
	p.next()
	if big || mult > math.MaxInt64/unit {
		p.noteValue(m.period, "period", "a period must be below 292 years", "must be below 292 years")
		mult = math.MaxInt64 / unit
	}
	sp.Period = time.Duration(mult * unit)
	return nil
}

// endsLimit reports whether the current token may follow a limit: the end, "burst", "in", or
// one of & ; | ).
func (p *parser) endsLimit() bool {
	return p.tok.kind == tEnd || p.is("burst") || p.is("in") || p.is("&") || p.is(";") || p.is("|") || p.is(")")
}

// noteValue notes a value of the current limit that the Spec cannot hold, unless one is noted.
func (p *parser) noteValue(col int, param, problem, paramProblem string) {
	if p.note == nil {
		p.note = &valueErr{leaf: p.leaves - 1, col: col, param: param, problem: problem, paramProblem: paramProblem}
	}
}

// units are the words a period may be written in, lower case.
var units = map[string]int64{
	"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6,
	"s": 1e9, "sec": 1e9, "second": 1e9, "seconds": 1e9,
	"m": 60e9, "min": 60e9, "minute": 60e9, "minutes": 60e9,
	"h": 3600e9, "hour": 3600e9, "hours": 3600e9,
	"d": 86400e9, "day": 86400e9, "days": 86400e9,
}

// readLimit reads the limit of a spec's JSON object form, for algo: a count, and a period but
// for finite, as in "10/s" or "100".
func readLimit(text string, algo Algo) (int64, time.Duration, error) {
	p := newParser(text, -1)
	p.leaves = 1 // the limit's own
	sp, m := Spec{Algo: algo}, leafMarks{named: true}
	var err error
	if sp.Count, err = p.number("a count", "count", "the count"); err != nil {
		return 0, 0, err
	}
	switch {
	case algo != AlgoFinite && !p.is("/"):
		return 0, 0, p.expected("'/' and a period, as in 10/s")
	case p.is("/"):
		if err = p.period(&sp, &m); err != nil {
			return 0, 0, err
		}
	}
	if p.peek().kind != tEnd {
		return 0, 0, p.expected("the end of the limit")
	}
	if p.note != nil {
		return 0, 0, paramSyntax(p.note.col, p.note.problem, p.note.param, p.note.paramProblem)
	}
	return sp.Count, sp.Period, nil
}
