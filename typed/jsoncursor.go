package typed

import (
	"encoding/json"
	"fmt"
)

// jsonCursor reads the few JSON values a spec or a snapshot's state is made of, in place, one at a
// time: so that a reader checks what it has read against the limits before it reads on, and
// allocates nothing for the tokens it reads (encoding/json allocates an error for each value its
// Decoder.Token reads).
type jsonCursor struct {
	b []byte
	i int
}

func (r *jsonCursor) skip() {
	for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\t' || r.b[r.i] == '\n' || r.b[r.i] == '\r') {
		r.i++
	}
}

// peek returns the byte that starts the next value or token, or 0 at the end.
func (r *jsonCursor) peek() byte {
	if r.skip(); r.i == len(r.b) {
		return 0
	}
	return r.b[r.i]
}

// errorf is the error of JSON that is not what the reader expected, at the current byte.
func (r *jsonCursor) errorf(format string, args ...any) error {
	return fmt.Errorf("typed: JSON at byte %d: "+format, append([]any{r.i}, args...)...)
}

// token reads the byte c, which must come next.
func (r *jsonCursor) token(c byte) error {
	if r.peek() != c {
		return r.errorf("expected %q", c)
	}
	r.i++
	return nil
}

// open reads the '[' (or '{') that opens an array (or object) and reports whether it holds
// anything: if not, its closing ']' (or '}') is read too.
func (r *jsonCursor) open(c byte) (bool, error) {
	if err := r.token(c); err != nil {
		return false, err
	}
	if r.peek() == closer(c) {
		r.i++
		return false, nil
	}
	return true, nil
}

// closer returns the byte that closes what c opens: ']' for '[', '}' for '{'.
func closer(c byte) byte {
	if c == '[' {
		return ']'
	}
	return '}'
}

// next reads the ',' before another element of an array (or object), reporting true, or the
// closing ']' (or '}').
func (r *jsonCursor) next(end byte) (bool, error) {
	switch r.peek() {
	case ',':
		r.i++
		return true, nil
	case end:
		r.i++
		return false, nil
	}
	return false, r.errorf("expected ',' or %q", end)
}

// null reads a null if one comes next, reporting whether it did.
func (r *jsonCursor) null() bool {
	if r.peek() == 'n' && len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "null" {
		r.i += 4
		return true
	}
	return false
}

// whole reads a whole number within int64, written as JSON writes numbers.
func (r *jsonCursor) whole() (int64, error) {
	neg := r.peek() == '-'
	if neg {
		r.i++
	}
	start, u := r.i, uint64(0)
	for ; r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9'; r.i++ {
		d := uint64(r.b[r.i] - '0')
		if u > (1<<63-d)/10 {
			return 0, r.errorf("a number beyond 64 bits")
		}
		u = 10*u + d
	}
	switch {
	case r.i == start || r.i-start > 1 && r.b[start] == '0' ||
		r.i < len(r.b) && (r.b[r.i] == '.' || r.b[r.i] == 'e' || r.b[r.i] == 'E'):
		return 0, r.errorf("expected a whole number")
	case neg:
		return -int64(u), nil // u = 2^63 gives MinInt64
	case u > 1<<63-1:
		return 0, r.errorf("a number beyond 64 bits")
	}
	return int64(u), nil
}

// str reads a string. One of plain printable ASCII it takes as it is; any other (escapes, other
// characters) it hands to encoding/json, which decodes it as it would.
func (r *jsonCursor) str() (string, error) {
	raw, plain, err := r.scanString()
	if err != nil || plain {
		return string(raw), err
	}
	return r.decode(raw)
}

// name reads a field's name, as str does, without allocating for a plain one: its bytes in the
// input.
func (r *jsonCursor) name() ([]byte, error) {
	raw, plain, err := r.scanString()
	if err != nil || plain {
		return raw, err
	}
	s, err := r.decode(raw)
	return []byte(s), err
}

// scanString reads a string: its bytes within the quotes if plain (printable ASCII without
// escapes), else with them, as JSON to decode.
func (r *jsonCursor) scanString() (raw []byte, plain bool, err error) {
	if r.peek() != '"' {
		return nil, false, r.errorf("expected a string")
	}
	start := r.i
	plain = true
	for r.i++; r.i < len(r.b) && r.b[r.i] != '"'; r.i++ {
		if c := r.b[r.i]; c == '\\' || c < 0x20 || c >= 0x80 {
			plain = false
			if c == '\\' {
				r.i++
			}
		}
	}
	if r.i >= len(r.b) {
		return nil, false, r.errorf("a string without its end")
	}
	r.i++
	if plain {
		return r.b[start+1 : r.i-1], true, nil
	}
	return r.b[start:r.i], false, nil
}

// decode decodes raw, a string as JSON writes it, as encoding/json decodes it.
func (r *jsonCursor) decode(raw []byte) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("typed: JSON at byte %d: %w", r.i-len(raw), err)
	}
	return s, nil
}
