package memory

import (
	"sync/atomic"

	"github.com/numerus-closus/numerus/internal/inplace"
)

// refusal is a shard's record of a refusal of one token to a bound check of a subject of up to
// 16 bytes held under the bound policy, kept so that the checks of one token that follow it, of
// that subject through that bound, from the instant it was refused at until its Retry, are
// refused without the shard's lock: a subject refused to every core at once is then refused from
// cache lines that every core holds and no check writes, rather than under a lock they all take
// in turn.
//
// It answers as the subject's state would: a state that refuses one token at an instant refuses
// it at every instant up to its Retry, the earliest that admits it, and with the same Outcome,
// whose instants are absolute, its Remaining 0 throughout. So it holds only while that state
// does: every check or change of the subject through another path, and every admission or
// removal of an entry whose hash's high half is the subject's, forgets it (see forget).
// It is recorded only at a subject's second refusal in a row in its shard (see shard.refused),
// since a record costs a dozen atomic stores: a check that refuses many subjects in turn pays
// none of them.
//
// It is a sequence lock: the shard's lock holder makes seq odd, writes the fields and makes it
// even again; a reader takes the fields when seq was even and did not change around them.
type refusal struct {
	seq    atomic.Uint64
	bound  atomic.Pointer[bound] // nil when none is held
	hash   atomic.Uint64
	w0, w1 atomic.Uint64 // the subject's words (see boundKey)
	n      atomic.Int64  // the subject's length
	from   atomic.Int64  // the instant of the refusal
	remain atomic.Int64
	limit  atomic.Int64
	retry  atomic.Int64
	full   atomic.Int64
	next   atomic.Int64
	binds  atomic.Int64
}

// answer returns the Outcome of a check of one token through b, of the subject of n bytes whose
// words are w and whose key's hash is h, at at, and true, if the refusal held answers it.
func (r *refusal) answer(b *bound, h uint64, w [2]uint64, n int, at int64) (inplace.Outcome, bool) {
	seq := r.seq.Load()
	if seq&1 != 0 || r.bound.Load() != b || r.hash.Load() != h || r.w0.Load() != w[0] || r.w1.Load() != w[1] ||
		r.n.Load() != int64(n) || at < r.from.Load() {
		return inplace.Outcome{}, false
	}
	o := inplace.Outcome{Remaining: r.remain.Load(), Limit: r.limit.Load(), Retry: r.retry.Load(), Full: r.full.Load(),
		Next: r.next.Load(), Binds: int(r.binds.Load())}
	return o, at < o.Retry && r.seq.Load() == seq
}

// keep records the refusal o at at of one token through b, of the subject of n bytes whose words
// are w and whose key's hash is h. The caller holds the shard's lock.
func (r *refusal) keep(b *bound, h uint64, w [2]uint64, n int, at int64, o inplace.Outcome) {
	r.seq.Add(1)
	r.bound.Store(b)
	r.hash.Store(h)
	r.w0.Store(w[0])
	r.w1.Store(w[1])
	r.n.Store(int64(n))
	r.from.Store(at)
	r.remain.Store(o.Remaining)
	r.limit.Store(o.Limit)
	r.retry.Store(o.Retry)
	r.full.Store(o.Full)
	r.next.Store(o.Next)
	r.binds.Store(int64(o.Binds))
	r.seq.Add(1)
}

// forget drops the refusal held if its key's hash has the high half h. The caller holds the
// shard's lock.
func (r *refusal) forget(h uint32) {
	if r.bound.Load() != nil { // small enough to be inlined: most checks hold none
		r.drop(h)
	}
}

func (r *refusal) drop(h uint32) {
	if uint32(r.hash.Load()>>32) == h {
		r.seq.Add(1)
		r.bound.Store(nil)
		r.seq.Add(1)
	}
}
