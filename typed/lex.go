package typed

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEnd  tokKind = iota
	tNum          // a number: its value in num, or big if it exceeds int64
	tWord         // a word, lower-cased
	tSym          // one of / & ; | ( )
	tBad          // a character the notation does not use
)

type token struct {
	kind tokKind
	text string
	num  int64
	big  bool
	col  int
}

// lexer splits a text into tokens one at a time, as the parser asks for them, so that reading a
// text allocates nothing for its tokens.
type lexer struct {
	text string
	i    int   // the byte where the next token starts, or white space before it
	col  int   // the column of i, counted in characters from 1
	tok  token // the current token
}

func newLexer(text string) lexer {
	l := lexer{text: text, col: 1}
	l.advance()
	return l
}

// advance reads the token after the current one, skipping white space.
func (l *lexer) advance() {
	for l.i < len(l.text) {
		r, size := utf8.DecodeRuneInString(l.text[l.i:])
		if !unicode.IsSpace(r) {
			break
		}
		l.i, l.col = l.i+size, l.col+1
	}
	start, col := l.i, l.col
	if l.i == len(l.text) {
		l.tok = token{kind: tEnd, col: col}
		return
	}
	r, size := utf8.DecodeRuneInString(l.text[l.i:])
	switch {
	case r >= '0' && r <= '9':
		l.tok = l.number()
	case unicode.IsLetter(r):
		for l.i < len(l.text) {
			if r, size = utf8.DecodeRuneInString(l.text[l.i:]); !unicode.IsLetter(r) {
				break
			}
			l.i, l.col = l.i+size, l.col+1
		}
		l.tok = token{kind: tWord, text: strings.ToLower(l.text[start:l.i]), col: col}
	case strings.ContainsRune("/&;|()", r):
		l.i, l.col = l.i+size, l.col+1
		l.tok = token{kind: tSym, text: l.text[start:l.i], col: col}
	default:
		l.i, l.col = l.i+size, l.col+1
		l.tok = token{kind: tBad, text: l.text[start:l.i], col: col}
	}
}

// number reads the digits at l.i.
func (l *lexer) number() token {
	t := token{kind: tNum, col: l.col}
	start := l.i
	for ; l.i < len(l.text) && l.text[l.i] >= '0' && l.text[l.i] <= '9'; l.i, l.col = l.i+1, l.col+1 {
		d := int64(l.text[l.i] - '0')
		t.big = t.big || t.num > (1<<63-1-d)/10
		t.num = 10*t.num + d
	}
	t.text = l.text[start:l.i]
	return t
}

// found names the current token as an error says what it found.
func (t token) found() string {
	switch t.kind {
	case tEnd:
		return "the end"
	case tBad:
		r, _ := utf8.DecodeRuneInString(t.text)
		return strconv.QuoteRune(r)
	}
	return strconv.Quote(t.text)
}
