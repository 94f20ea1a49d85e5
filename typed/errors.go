package typed

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrCorrupt is matched (with errors.Is) by every error of a decoder given bytes that are not a
// snapshot or state it can read: an unknown version, truncated input, trailing bytes, or a state
// the policy could never reach (tokens above capacity, a count above the limit, an instant
// beyond what the state allows).
var ErrCorrupt = errors.New("typed: corrupt snapshot")

// ErrMismatch is matched by the error of a decoder, or of [FromSpec], given a policy whose shape is
// not the type decoded into: a token bucket's snapshot read into a GCRA, or a state saved under
// another policy.
var ErrMismatch = errors.New("typed: policy does not match")

// ErrSyntax is matched by every error of [Parse]: a text that does not follow the notation, or
// whose values cannot make a limiter.
var ErrSyntax = errors.New("typed: syntax error")

// SyntaxError says where a text in the notation went wrong: the column (in characters, from 1)
// and what was wrong there. It matches ErrSyntax. For a token out of place, Expected and Found
// say what the parser expected and found; for a bad value they are empty, and the error matches
// the *numerus.ParamError naming the parameter too. The zero SyntaxError describes no position.
type SyntaxError struct {
	Column   int    // where the problem starts, from 1
	Expected string // what the parser expected, as in "a unit such as s, min or h"
	Found    string // what it found instead, quoted, or "the end"

	problem string // what is wrong, when no token is out of place
	cause   error  // what Unwrap returns, if not ErrSyntax: ErrSyntax and a *numerus.ParamError
}

// Error returns "typed: column <n>: expected <what>, found <what>", or "typed: column <n>:
// <problem>" for a problem with a value, a parameter or a limit.
func (e *SyntaxError) Error() string {
	if e.problem != "" {
		return "typed: column " + strconv.Itoa(e.Column) + ": " + e.problem
	}
	return "typed: column " + strconv.Itoa(e.Column) + ": expected " + e.Expected + ", found " + e.Found
}

// Unwrap returns ErrSyntax, or for a problem with a value, a parameter or a limit an error that
// matches both ErrSyntax and the *numerus.ParamError that names the parameter.
func (e *SyntaxError) Unwrap() error {
	if e.cause != nil {
		return e.cause
	}
	return ErrSyntax
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// corruptWrap marks err, found while decoding, as corruption while keeping it matchable.
func corruptWrap(err error) error { return fmt.Errorf("%w: %w", ErrCorrupt, err) }

func mismatch(got, want Algo) error {
	return fmt.Errorf("%w: found %q where %q was expected", ErrMismatch, got, want)
}

func corruptMismatch(problem string) error { return fmt.Errorf("%w: %s", ErrMismatch, problem) }
