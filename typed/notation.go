package typed

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
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
	case kindAnd:
		return sp.join(" & ")
	case kindOr:
		return sp.join(" | ")
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

func (sp Spec) join(sep string) string {
	parts := make([]string, len(sp.Of))
	for i, c := range sp.Of {
		parts[i] = paren(sep, c.String(), c.Algo)
	}
	return strings.Join(parts, sep)
}

// Parse reads a policy written in the notation (see the package doc for its grammar), as in
// "100/min", "10/s burst 20", "gcra 10/s burst 5 & window 1000/1h" or "5/s | 100/min", and
// returns its validated Spec. A bare rate, such as "100/min", is the sliding log
// ("sliding 100/m": at most 100 in any minute); one with a burst is a GCRA. A text that does not
// follow the grammar gives a *SyntaxError (matching ErrSyntax) that names the column and what was
// expected; a parameter that cannot make a limiter gives a *numerus.ParamError. Parse never
// panics.
func Parse(text string) (Spec, error) {
	sp, err := parse(text)
	if err == nil {
		err = sp.Validate()
	}
	if err != nil {
		return Spec{}, err
	}
	return sp, nil
}

// parse is Parse without Validate: the spec as written.
func parse(text string) (Spec, error) {
	toks, err := lex(text)
	if err != nil {
		return Spec{}, err
	}
	p := parser{toks: toks}
	sp, err := p.policy(0)
	if err == nil && p.peek().kind != tEnd {
		err = p.expected("'&', '|' or the end")
	}
	return sp, err
}

type tokKind uint8

const (
	tEnd tokKind = iota
	tNum
	tWord
	tSym
)

type token struct {
	kind tokKind
	text string
	num  int64
	col  int
}

// lex splits text into numbers, words and the symbols / & ; | ( ), skipping white space.
func lex(text string) ([]token, error) {
	var toks []token
	col := 1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		start, startCol := i, col
		switch {
		case unicode.IsSpace(r):
			i, col = i+size, col+1
			continue
		case r >= '0' && r <= '9':
			for i < len(text) && text[i] >= '0' && text[i] <= '9' {
				i, col = i+1, col+1
			}
			n, err := strconv.ParseInt(text[start:i], 10, 64)
			if err != nil {
				return nil, &SyntaxError{Column: startCol, Expected: "a number below 2^63", Found: strconv.Quote(text[start:i])}
			}
			toks = append(toks, token{kind: tNum, text: text[start:i], num: n, col: startCol})
		case unicode.IsLetter(r):
			for i < len(text) {
				r, size = utf8.DecodeRuneInString(text[i:])
				if !unicode.IsLetter(r) {
					break
				}
				i, col = i+size, col+1
			}
			toks = append(toks, token{kind: tWord, text: strings.ToLower(text[start:i]), col: startCol})
		case strings.ContainsRune("/&;|()", r):
			i, col = i+size, col+1
			toks = append(toks, token{kind: tSym, text: text[start:i], col: startCol})
		default:
			return nil, &SyntaxError{Column: startCol, Expected: "a count, a word or one of / & | ; ( )", Found: strconv.QuoteRune(r)}
		}
	}
	return append(toks, token{kind: tEnd, col: col}), nil
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEnd {
		p.i++
	}
	return t
}

func (p *parser) is(sym ...string) bool {
	t := p.peek()
	for _, s := range sym {
		if (t.kind == tSym || t.kind == tWord) && t.text == s {
			return true
		}
	}
	return false
}

func (p *parser) expected(what string) error {
	t := p.peek()
	found := "the end"
	if t.kind != tEnd {
		found = strconv.Quote(t.text)
	}
	return &SyntaxError{Column: t.col, Expected: what, Found: found}
}

// policy := term {"|" term}
func (p *parser) policy(depth int) (Spec, error) {
	return p.list(depth, AlgoOr, []string{"|"}, p.term)
}

// term := factor {("&" | ";") factor}
func (p *parser) term(depth int) (Spec, error) {
	return p.list(depth, AlgoAnd, []string{"&", ";"}, p.factor)
}

func (p *parser) list(depth int, algo Algo, seps []string, item func(int) (Spec, error)) (Spec, error) {
	first, err := item(depth)
	if err != nil || !p.is(seps...) {
		return first, err
	}
	sp := Spec{Algo: algo, Of: []Spec{first}}
	for p.is(seps...) {
		p.next()
		c, err := item(depth)
		if err != nil {
			return Spec{}, err
		}
		sp.Of = append(sp.Of, c)
	}
	return sp, nil
}

// factor := "(" policy ")" | limit
func (p *parser) factor(depth int) (Spec, error) {
	if !p.is("(") {
		return p.limit()
	}
	if depth >= limits.Depth {
		return Spec{}, p.expected("at most " + strconv.Itoa(limits.Depth) + " nested parentheses")
	}
	p.next()
	sp, err := p.policy(depth + 1)
	if err != nil {
		return Spec{}, err
	}
	if !p.is(")") {
		return Spec{}, p.expected("')'")
	}
	p.next()
	return sp, nil
}

// limit := [algo] count ["/" [int] unit] ["burst" int] ["in" int]
func (p *parser) limit() (Spec, error) {
	sp := Spec{Algo: AlgoGCRA}
	countWhat := "a limit such as 10/s, or '('"
	named := false
	if t := p.peek(); t.kind == tWord {
		if Algo(t.text).kind() == kindNone || Algo(t.text).kind().inner() {
			return Spec{}, p.expected("an algorithm (gcra, token, leaky, finite, window, sliding, buckets, count) or a count")
		}
		sp.Algo, countWhat, named = Algo(p.next().text), "a count", true
	}
	var err error
	if sp.Count, err = p.number(countWhat); err != nil {
		return Spec{}, err
	}
	if sp.Algo != AlgoFinite {
		if sp.Period, err = p.period(); err != nil {
			return Spec{}, err
		}
	}
	if p.is("burst") {
		p.next()
		if sp.Burst, err = p.positive("a burst size of at least 1"); err != nil {
			return Spec{}, err
		}
	}
	if p.is("in") {
		p.next()
		if sp.In, err = p.positive("a number of sub-windows of at least 1"); err != nil {
			return Spec{}, err
		}
	}
	if !named {
		sp.Algo = bareAlgo(sp)
	}
	return sp, nil
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

func (p *parser) number(what string) (int64, error) {
	if p.peek().kind != tNum {
		return 0, p.expected(what)
	}
	return p.next().num, nil
}

// positive reads a number written only when it matters: zero would read back as absent.
func (p *parser) positive(what string) (int64, error) {
	if t := p.peek(); t.kind == tNum && t.num == 0 {
		return 0, p.expected(what)
	}
	return p.number(what)
}

// period := "/" [int] unit
func (p *parser) period() (time.Duration, error) {
	if !p.is("/") {
		return 0, p.expected("'/' and a period, as in 10/s")
	}
	p.next()
	mult, col := int64(1), p.peek().col
	if p.peek().kind == tNum {
		mult = p.next().num
	}
	t := p.peek()
	unit, ok := units[t.text]
	if t.kind != tWord || !ok {
		return 0, p.expected("a unit such as s, min or h")
	}
	p.next()
	if mult > math.MaxInt64/unit {
		return 0, &SyntaxError{Column: col, Expected: "a period below 292 years", Found: strconv.Quote(itoa(mult) + t.text)}
	}
	return time.Duration(mult * unit), nil
}

// units are the words a period may be written in, lower case.
var units = map[string]int64{
	"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6,
	"s": 1e9, "sec": 1e9, "second": 1e9, "seconds": 1e9,
	"m": 60e9, "min": 60e9, "minute": 60e9, "minutes": 60e9,
	"h": 3600e9, "hour": 3600e9, "hours": 3600e9,
	"d": 86400e9, "day": 86400e9, "days": 86400e9,
}
