package memory

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/numerus-closus/numerus/typed"
)

// entry is one subject below full, or full for less than the grace. Its key and hash never
// change, so a check matches its key without a lock; its lock guards the rest but pos, which the
// shard's lock guards, the refusal kept, which the lock holder writes and checks read without the
// lock (see refusal), and dead, which the lock holder sets and checks may read without the lock.
//
// Entries take 256 bytes, a size class whose objects start on a cache line. A check that debits
// touches two lines of its entry: it reads the first (the key, whose subject lies in it when it
// is no longer than inlineSubject bytes, and the refusing flag) and writes the second (the lock,
// the policy the state was written under, dead, and the first five words of the state, all that
// every algorithm but the sliding log and the bucketed window uses). Before it takes the lock, it
// (and a Peek likewise) loads dead, which sends a check of a dropped entry to the shard at once
// and fetches the second line while the first is still on its way: the lock, an atomic
// read-modify-write, waits for every load before it, so taking it first would fetch the two
// lines one after the other.
//
// A check answered by the refusal kept reads the first line and the fourth (the refusal) and
// writes nothing. Checks that take the lock write those lines only to keep or forget a refusal,
// so a subject refused by every core at once stays refused from lines in every core's cache
// while other checks take its lock. The hash and pos, which only the shard's lock holder reads,
// lie in the fourth line too. A key held in the entry costs no further line, as a key of its own
// would.
type entry struct {
	subject  string // in inline when it fits
	prefix   string // the framed namespace: a bound's own string, when a bound check made the entry
	inline   [inlineSubject]byte
	refusing atomic.Bool  // refusal holds one: read without the lock, written under it
	policy   typed.Policy // the policy the state was written under
	mu       sync.Mutex
	dead     atomic.Bool // dropped: a check that finds it asks the shard again
	state    typed.State
	refusal  refusal
	hash     uint64
	pos      int32        // index in the shard's entries
	binds    atomic.Int32 // the Binds of the refusal kept, written and read as the refusal is
}

// inlineSubject is the longest subject an entry holds in its own bytes: IPv4 addresses, most
// account and user numbers. Longer ones take an allocation of their own.
const inlineSubject = 24

// newEntry returns the entry of key k, whose hash is h, holding state under p.
func newEntry(h uint64, k *key, p typed.Policy, state typed.State) *entry {
	e := &entry{hash: h, policy: p, state: state}
	switch {
	case k.bytes == nil:
		e.prefix = k.prefix // the bound's: matched by address from then on
		e.subject = hold(e, k.subject)
	case len(k.bytes)-k.n <= inlineSubject:
		e.prefix = string(k.bytes[:k.n])
		e.subject = hold(e, k.bytes[k.n:])
	default: // one allocation for the whole key
		whole := string(k.bytes)
		e.prefix, e.subject = whole[:k.n], whole[k.n:]
	}
	return e
}

// hold returns a copy of s, in e's own bytes if it fits them: never the caller's memory, which
// might be reused, or pin a larger buffer that s is a part of. The bytes are written once, before
// the entry is shared, and never again.
func hold[S string | []byte](e *entry, s S) string {
	b := e.inline[:]
	switch {
	case len(s) == 0:
		return ""
	case len(s) > len(b):
		b = make([]byte, len(s))
	}
	n := copy(b, s)
	return unsafe.String(&b[0], n)
}

// debit takes cost tokens under p at at, all or nothing, from the entry's state carried over to p
// if it was written under another policy. The caller holds e.mu.
func (e *entry) debit(p typed.Policy, at, cost int64) (typed.Outcome, bool) {
	e.adopt(p)
	if e.policy == p {
		o, ok := p.DebitIn(&e.state, at, cost)
		switch {
		case ok:
			e.unrefuse()
		case cost == 1:
			e.refuse(p, o)
		}
		return o, ok
	}
	state := e.continued(p, at)
	o, ok := p.DebitIn(&state, at, cost)
	if ok || cost <= o.Limit { // a cost above the capacity is an invalid request: it carries nothing
		e.keep(p, state, o, ok, at)
	}
	return o, ok
}

// peek is PeekIn under p on the entry's state, carried over to p if it was written under another
// policy. The caller holds e.mu.
func (e *entry) peek(p typed.Policy, at int64) (typed.Outcome, bool) {
	e.adopt(p)
	if e.policy == p {
		return p.PeekIn(&e.state, at)
	}
	state := e.continued(p, at)
	o, ok := p.PeekIn(&state, at)
	e.keep(p, state, o, false, at)
	return o, ok
}

// adopt makes p the entry's policy if the state's decides like it: the same policy compiled apart
// (two limiters of one text), which is no change at all, so the state stands as it is rather
// than being carried over (which starts a full subject afresh, unlike the grace). It reports
// whether p is the entry's policy now. The caller holds e.mu.
func (e *entry) adopt(p typed.Policy) bool {
	if e.policy != p && e.policy.DecidesLike(p) {
		e.policy = p // the refusal kept, if any, holds: the state decides as it did
	}
	return e.policy == p
}

// keep makes state, carried over to p and then debited (admitted) or not, the entry's. A
// refusal or a Peek takes no token, but the carried state is kept all the same: the old policy
// must not go on refilling a subject seen under the new one (drained under 20/min and refused
// under 1/h, it would be full again under the old one a minute later, and start afresh under the
// new). Unless the carried state is full: kept, it could be dropped, or carried back to the old
// policy as full, and start afresh there, where it was not full; the old state, left as it is,
// carries over to p as full again at any later check. The caller holds e.mu.
func (e *entry) keep(p typed.Policy, state typed.State, o typed.Outcome, admitted bool, at int64) {
	if admitted || o.Full > at {
		e.unrefuse()
		e.policy, e.state = p, state
	}
}

// continued returns the entry's state under p: itself if it was written under p; fresh if it is
// full (as if it had been dropped, which it may have been); else as typed.Policy.Continue says.
func (e *entry) continued(p typed.Policy, at int64) typed.State {
	switch {
	case e.policy == p:
		return e.state
	case e.full(at):
		return p.Fresh()
	}
	return p.Continue(e.policy, e.state, time.Unix(0, at))
}

// full reports whether the entry's subject is back to full at at, so that dropping it changes no
// decision at at or later.
func (e *entry) full(at int64) bool {
	o, _ := e.policy.PeekIn(&e.state, at)
	return o.Full <= at
}

// idle reports whether the entry's subject has been full for grace or more at at: whether it
// was full already at at − grace (an instant before its latest check counts as that check's,
// when the subject was not full).
func (e *entry) idle(at, grace int64) bool {
	if at < math.MinInt64+grace {
		return e.full(math.MinInt64)
	}
	return e.full(at - grace)
}
