package bind_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/keyed/internal/bind"
	"github.com/numerus-closus/numerus/typed"
)

// binding is a store that binds, as the memory store does.
type binding struct {
	binder
	prefixes []string
}

type binder = bind.Binder

func newBinding() *binding {
	s := &binding{}
	s.binder = bind.New(s, func(prefix string, p typed.Policy) bind.Bound {
		s.prefixes = append(s.prefixes, prefix)
		return bound{}
	})
	return s
}

type bound struct{}

func (bound) Acquire(string, int64, time.Time) (inplace.Outcome, bool, int64) {
	return inplace.Outcome{}, false, 0
}
func (bound) Peek(string, time.Time) (inplace.Outcome, bool, int64) {
	return inplace.Outcome{}, false, 0
}

// wrapper embeds a binding store, as a user's store that counts checks would.
type wrapper struct {
	*binding
	_ []int // not comparable: Of must not panic on it
}

// TestOf: a store that made its Binder is bound; a store without one, one whose Binder is the
// zero Binder, and a wrapper that embeds a binding store are not, and Of never asks them.
func TestOf(t *testing.T) {
	p := typed.MustCompile("10/s")
	s := newBinding()
	assert.NotNil(t, bind.Of(s, "1:a:", p))
	assert.Equal(t, []string{"1:a:"}, s.prefixes)
	assert.Nil(t, bind.Of(wrapper{binding: s}, "1:a:", p))
	assert.Nil(t, bind.Of(&wrapper{binding: s}, "1:a:", p))
	assert.Nil(t, bind.Of(&binding{}, "1:a:", p), "the zero Binder")
	assert.Nil(t, bind.Of(struct{}{}, "1:a:", p))
	assert.Nil(t, bind.Of(nil, "1:a:", p))
	assert.Equal(t, []string{"1:a:"}, s.prefixes, "no wrapper reached the binding")
}
