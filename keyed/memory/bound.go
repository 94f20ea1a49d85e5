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
	packs  bool   // p's states fit a slot's words
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
	return &bound{s: s, p: p, prefix: prefix, name: s.names.id([]byte(prefix)), packs: packs(in(p)), hash: s.seed.namespace(prefix)}
}

// Acquire takes cost tokens, at least 1, for subject. Its common case, a subject held under the
// bound policy, whose state packs, runs here: the subject matched as it is, with no key built,
// and its slot debited where it lies, with no call between the lock and the policy's. A subject
// refused one token again and again is refused from the shard's refusal, without the lock.
func (b *bound) Acquire(subject string, cost int64, at time.Time) (o inplace.Outcome, ok bool, ns int64) {
	s := b.s
	ns = s.at(at)
	w, h := b.hashOf(subject)
	sh := s.shard(h)
	if cost == 1 && sh.refusal.bound.Load() == b { // a refusal through b is kept: of subject?
		if o, ok := sh.refusal.answer(b, h, w, len(subject), ns); ok {
			return o, false, ns
		}
	}
	sh.mu.Lock()
	i := sh.t.findSubject(uint32(h>>32), b.name, b.prefix, subject, w)
	if i < 0 {
		k := key{prefix: b.prefix, subject: subject, name: b.name, words: w}
		o, ok, ns, _ = sh.admit(s, h, &k, b.p, ns, cost) // no ErrFull: see bind
		return o, ok, ns
	}
	sl := &sh.t.slots[i]
	if !b.packs || sl.policy != b.p {
		o, ok = sl.debit(b.p, ns, cost)
		sh.refusal.forget(uint32(h >> 32))
	} else if o, ok = in(b.p).DebitPacked(sl.w[:], ns, cost); ok {
		sh.refusal.forget(uint32(h >> 32))
	} else if cost == 1 && len(subject) <= 16 { // kept at the second refusal in a row (see refusal)
		if sh.refused == h {
			sh.refusal.keep(b, h, w, len(subject), ns, o)
		}
		sh.refused = h
	}
	sh.mu.Unlock()
	return o, ok, ns
}

// Peek reports whether subject could take one token.
func (b *bound) Peek(subject string, at time.Time) (inplace.Outcome, bool, int64) {
	s := b.s
	w, h := b.hashOf(subject)
	k := key{prefix: b.prefix, subject: subject, name: b.name, words: w}
	return s.shard(h).peek(s, h, &k, b.p, s.at(at))
}

// hashOf returns the words of subject (see boundKey) and the hash of its key. A subject of up to
// 16 bytes is read once as two words, which hash it and which a slot's subject is compared with
// (see slot.holds), with no call to compare bytes.
func (b *bound) hashOf(subject string) (w [2]uint64, h uint64) {
	if len(subject) > 16 {
		return w, mix(b.hash, b.s.seed.subject(subject))
	}
	w[0], w[1] = words(subject)
	return w, mix(b.hash, b.s.seed.short(w[0], w[1], len(subject)))
}
