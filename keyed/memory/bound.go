package memory

import (
	"time"
	"unsafe"

	"github.com/numerus-closus/numerus/keyed/internal/bind"
	"github.com/numerus-closus/numerus/typed"
)

// bound is the store's bind.Bound of one namespace and policy.
type bound struct {
	s      *Store
	p      typed.Policy
	prefix string
	hash   uint64 // of prefix
}

// bind returns the bind.Bound of the keys prefix+subject under p: what a keyed.Limiter of string
// subjects checks them with, without framing their keys (see package bind). It decides as
// Acquire and Peek do on the same keys, on the same entries. It returns nil for the zero Policy
// or a prefix that is not a framed namespace, such as "9:ratelimit:".
func (s *Store) bind(prefix string, p typed.Policy) bind.Bound {
	if p == (typed.Policy{}) || prefix == "" || prefixLen(prefix) != len(prefix) {
		return nil
	}
	return &bound{s: s, p: p, prefix: prefix, hash: s.seed.namespace(prefix)}
}

// Acquire takes cost tokens, at least 1, for subject. Its common case, a subject of 8 to 16 bytes
// (most IPv4 addresses, account and user numbers), is shard.acquire's written out for a bound
// check: the subject read once as its two words (see words), which both hash it and tell it
// apart from another entry's, and the namespace compared by address, with no call to hash or to
// compare bytes (46 instructions fewer of 624 a check, callgrind; about 2 ns). Other subjects
// take acquire, which compares them as they are.
func (b *bound) Acquire(subject string, cost int64, at time.Time) (typed.Outcome, bool, int64) {
	s := b.s
	ns, own := s.at(at)
	n := len(subject)
	if n < 8 || n > 16 {
		return b.acquire(subject, cost, ns, own)
	}
	w0, w1 := le64(subject), le64(subject[n-8:]) // words(subject), inlined
	h := mix(b.hash, s.seed.short(w0, w1, n))
	sh := s.shard(h)
	// (w0, w1, n) tells subjects of 8 to 16 bytes apart: the two words hold every byte.
	if e := sh.table().candidate(h); e != nil && isShort(e, n, w0, w1) && b.inNamespace(e) {
		if cost == 1 && e.refusing.Load() {
			if o, ok := e.holds(b.p, ns); ok {
				return o, false, ns
			}
		}
		if e.dead.Load() { // dropped; also fetches the lock's line with the key's (see entry)
			return sh.acquireLocked(h, &key{prefix: b.prefix, subject: subject}, b.p, ns, cost, s.grace, own)
		}
		e.mu.Lock()
		if !e.dead.Load() && e.adopt(b.p) {
			o, ok := b.p.DebitIn(&e.state, ns, cost)
			if ok && e.refusing.Load() || !ok && cost == 1 {
				return e.settle(b.p, o, ok, ns)
			}
			e.mu.Unlock()
			return o, ok, ns
		}
		e.mu.Unlock()
	}
	return sh.acquireLocked(h, &key{prefix: b.prefix, subject: subject}, b.p, ns, cost, s.grace, own)
}

// acquire is Acquire for a subject shorter than 8 or longer than 16 bytes, at ns: shard.acquire's
// common case written out likewise, with the subject compared as it is.
func (b *bound) acquire(subject string, cost, ns int64, own bool) (typed.Outcome, bool, int64) {
	s := b.s
	h := mix(b.hash, s.seed.subject(subject))
	sh := s.shard(h)
	if e := sh.table().candidate(h); e != nil && e.subject == subject && b.inNamespace(e) {
		if cost == 1 && e.refusing.Load() {
			if o, ok := e.holds(b.p, ns); ok {
				return o, false, ns
			}
		}
		if e.dead.Load() { // dropped; also fetches the lock's line with the key's (see entry)
			return sh.acquireLocked(h, &key{prefix: b.prefix, subject: subject}, b.p, ns, cost, s.grace, own)
		}
		e.mu.Lock()
		if !e.dead.Load() && e.adopt(b.p) {
			o, ok := b.p.DebitIn(&e.state, ns, cost)
			if ok && e.refusing.Load() || !ok && cost == 1 {
				return e.settle(b.p, o, ok, ns)
			}
			e.mu.Unlock()
			return o, ok, ns
		}
		e.mu.Unlock()
	}
	return sh.acquireLocked(h, &key{prefix: b.prefix, subject: subject}, b.p, ns, cost, s.grace, own)
}

// inNamespace reports whether e's namespace is b's: by address when a bound check made e, which
// holds the bound's own string then.
func (b *bound) inNamespace(e *entry) bool {
	return unsafe.StringData(e.prefix) == unsafe.StringData(b.prefix) && len(e.prefix) == len(b.prefix) ||
		e.prefix == b.prefix
}

// Peek reports whether subject could take one token.
func (b *bound) Peek(subject string, at time.Time) (typed.Outcome, bool, int64) {
	s := b.s
	ns, own := s.at(at)
	h := mix(b.hash, s.seed.subject(subject))
	return s.shard(h).peek(h, &key{prefix: b.prefix, subject: subject}, b.p, ns, s.grace, own)
}

// isShort reports whether e's subject is the one of n bytes, 8 to 16, whose first and last 8
// bytes are w0 and w1.
func isShort(e *entry, n int, w0, w1 uint64) bool {
	return len(e.subject) == n && le64(e.subject) == w0 && le64(e.subject[n-8:]) == w1
}
