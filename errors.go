package numerus

import (
	"errors"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// ErrInvalidArgument is matched (with errors.Is) by every error a constructor returns for a
// parameter that cannot make a limiter.
var ErrInvalidArgument = errors.New("numerus: invalid argument")

// ParamError names the parameter that cannot make a limiter and says why. It matches
// ErrInvalidArgument.
type ParamError struct {
	Param   string // the parameter, as in "burst" or "rate period"
	Problem string // what is wrong with it
}

// Error returns "numerus: invalid <param>: <problem>".
func (e *ParamError) Error() string { return "numerus: invalid " + e.Param + ": " + e.Problem }

// Unwrap returns ErrInvalidArgument.
func (e *ParamError) Unwrap() error { return ErrInvalidArgument }

// Invalid turns a kernel's verdict into an error; nil stays nil.
func invalid(inv *kernel.Invalid) error {
	if inv == nil {
		return nil
	}
	return &ParamError{Param: inv.Param, Problem: inv.Problem}
}

// Must returns l, or panics if err is not nil. It is meant for policies written as literals:
//
//	l := numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5))
func Must[L any](l L, err error) L {
	if err != nil {
		panic(err)
	}
	return l
}
