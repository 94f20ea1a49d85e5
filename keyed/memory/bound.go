package memory

import (
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/typed"
)

// bound is the store's keyed.Bound of one namespace and policy.
type bound struct {
	s      *Store
	p      typed.Policy
	prefix string
	name   uint16 // prefix's number
	hash   uint64 // of prefix
}

// Bind returns the keyed.Bound of the keys prefix+subject under p: what a keyed.Limiter of
// string subjects checks them with, without framing their keys (see keyed.Binder). It decides as
// Acquire and Peek do on the same keys, on the same entries. It returns nil for the zero Policy,
// a prefix that is not a framed namespace, such as "9:ratelimit:", or a store capped without
// WithUntracked, whose checks of new subjects may fail with ErrFull, which a Bound cannot return.
func (s *Store) Bind(prefix string, p typed.Policy) keyed.Bound {
	if p == (typed.Policy{}) || prefix == "" || prefixLen(prefix) != len(prefix) || s.limit.max != 0 && !s.limit.untrack {
		return nil
	}
	return &bound{s: s, p: p, prefix: prefix, name: s.names.id([]byte(prefix)), hash: s.seed.namespace(prefix)}
}

// Acquire takes cost tokens, at least 1, for subject.
func (b *bound) Acquire(subject string, cost int64, at time.Time) (typed.Outcome, bool, int64) {
	s := b.s
	h := mix(b.hash, s.seed.subject(subject))
	k := key{prefix: b.prefix, subject: subject, name: b.name}
	o, ok, ns, _ := s.shard(h).acquire(s, h, &k, b.p, s.at(at), cost) // no ErrFull: see Bind
	return o, ok, ns
}

// Peek reports whether subject could take one token.
func (b *bound) Peek(subject string, at time.Time) (typed.Outcome, bool, int64) {
	s := b.s
	h := mix(b.hash, s.seed.subject(subject))
	k := key{prefix: b.prefix, subject: subject, name: b.name}
	return s.shard(h).peek(s, h, &k, b.p, s.at(at))
}
