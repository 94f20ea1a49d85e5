package memory

import (
	"time"

	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/keyed/internal/bind"
	"github.com/numerus-closus/numerus/typed"
)

// bound is the store's bind.Bound of one namespace and policy.
type bound struct {
	s      *Store
	p      typed.Policy
	prefix string
	name   uint16 // prefix's number
	hash   uint64 // of prefix
}

// bind returns the bind.Bound of the keys prefix+subject under p: what a keyed.Limiter of string
// subjects checks them with, without framing their keys (see package bind). It decides as
// Acquire and Peek do on the same keys, on the same entries. It returns nil for the zero Policy,
// a prefix that is not a framed namespace, such as "9:ratelimit:", or a store capped without
// WithUntracked, whose checks of new subjects may fail with ErrFull, which a Bound cannot return.
func (s *Store) bind(prefix string, p typed.Policy) bind.Bound {
	if p == (typed.Policy{}) || prefix == "" || prefixLen(prefix) != len(prefix) || s.limit.max != 0 && !s.limit.untrack {
		return nil
	}
	return &bound{s: s, p: p, prefix: prefix, name: s.names.id([]byte(prefix)), hash: s.seed.namespace(prefix)}
}

// Acquire takes cost tokens, at least 1, for subject.
func (b *bound) Acquire(subject string, cost int64, at time.Time) (inplace.Outcome, bool, int64) {
	s := b.s
	k, h := b.key(subject)
	o, ok, ns, _ := s.shard(h).acquire(s, h, &k, b.p, s.at(at), cost) // no ErrFull: see Bind
	return o, ok, ns
}

// Peek reports whether subject could take one token.
func (b *bound) Peek(subject string, at time.Time) (inplace.Outcome, bool, int64) {
	s := b.s
	k, h := b.key(subject)
	return s.shard(h).peek(s, h, &k, b.p, s.at(at))
}

// key returns the key of subject and its hash. A subject of up to 16 bytes is read once as two
// words, which hash it and which a slot's subject is compared with (see key.matches), with no
// call to compare bytes.
func (b *bound) key(subject string) (key, uint64) {
	k := boundKey(b.prefix, subject, b.name)
	if len(subject) > 16 {
		return k, mix(b.hash, b.s.seed.subject(subject))
	}
	return k, mix(b.hash, b.s.seed.short(k.words[0], k.words[1], len(subject)))
}
