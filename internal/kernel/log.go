package kernel

import (
	"sort"
	"sync/atomic"
)

// LogPolicy is a validated sliding-log policy: at most Limit tokens in any Width ns. Instants are
// rounded down to a multiple of Quantum (1 for the exact log; Width/k for the bucketed window, whose
// sub-windows are then the log's entries).
type LogPolicy struct {
	Width, Limit, Quantum int64
}

// entry is a point of the log: the instant and the tokens admitted up to and including it.
type entry struct{ at, cum int64 }

// logBuf is the storage that successive log values share. A value owns the slots below its tail; it
// may append in place only while nobody has appended past its tail, which claimed records with a
// compare-and-swap. Slots, once written, never change, so old values stay valid.
type logBuf struct {
	entries []slot
	claimed atomic.Int64
}

// slot holds one entry. Its words are atomic because two values branched from the same one may
// push the same entry into the same slot at once: one writes, the other reads to compare. The
// writer stores at, then cum; a reader comparing loads cum, then at (see published).
type slot struct{ at, cum atomic.Int64 }

func (s *slot) load() entry   { return entry{s.at.Load(), s.cum.Load()} }
func (s *slot) store(e entry) { s.at.Store(e.at); s.cum.Store(e.cum) }

// published returns the entry of a slot that another value may be writing, and false while the
// slot is not yet written: a cum of zero, which the writer stores last (or a total of tokens that
// wrapped to zero, which costs a copy, never a wrong match). Loading cum first, a reader that sees
// the writer's cum sees its at too (atomics are sequentially consistent); loading at first, it
// could see the slot's zero at beside the writer's cum, and take a slot that holds another
// instant for the entry it meant to push.
func (s *slot) published() (entry, bool) {
	cum := s.cum.Load()
	if cum == 0 {
		return entry{}, false
	}
	return entry{s.at.Load(), cum}, true
}

// Log is an immutable sliding log. Its live entries are buf[head:tail] followed by newest, which is
// kept inline so that debits at the same (rounded) instant merge without touching shared storage.
// Tokens admitted before the live entries add up to base.
type Log struct {
	P          *LogPolicy
	buf        *logBuf
	head, tail int
	base       int64
	newest     entry
	Last       int64
}

// FreshLog returns an empty log under p.
func (p *LogPolicy) FreshLog() Log { return Log{P: p, newest: entry{at: MinInstant}, Last: MinInstant} }

// expire returns l without the entries that lie a whole Width or more before at; none does while
// at is less than Width after MinInstant.
func (l Log) expire(at int64) Log {
	expireIn(&l, at)
	return l
}

// expireIn is expire on a copy the caller owns, so that Debit does not copy the log twice.
func expireIn(l *Log, at int64) {
	if diff(MinInstant, at) < uint64(l.P.Width) {
		return
	}
	cut := at - l.P.Width
	if l.newest.at <= cut {
		l.head, l.base = l.tail, l.newest.cum
		return
	}
	for range scanFirst { // the common case: a debit expires few entries, the oldest first
		if l.head == l.tail {
			return
		}
		e := l.buf.entries[l.head].load()
		if e.at > cut {
			return
		}
		l.base = e.cum
		l.head++
	}
	// Many expired: find the first live entry by bisection, so that a refusal, a peek or a
	// status, whose result is not kept, costs O(log n) however many entries it drops.
	live := l.buf.entriesOf(l.head, l.tail)
	if i := sort.Search(len(live), func(i int) bool { return live[i].at.Load() > cut }); i > 0 {
		l.base = live[i-1].cum.Load()
		l.head += i
	}
}

// scanFirst is how many expired entries expireIn drops one by one before it bisects the rest.
const scanFirst = 8

func (l Log) count() int64 { return l.newest.cum - l.base }

// subWindow returns the start of the sub-window holding at, where the log records a debit at at:
// at itself when the quantum is a nanosecond. The first sub-window starts at MinInstant.
func (p *LogPolicy) subWindow(at int64) int64 {
	if p.Quantum > 1 {
		return SubSat(at, floorMod(at, 0, p.Quantum))
	}
	return at
}

// Debit records cost tokens at at.
func (l Log) Debit(at, cost int64) (Log, int64, bool) {
	CheckCost(cost)
	p := l.P
	if p == nil || cost > p.Limit {
		return l, Never, false
	}
	at = max(at, l.Last)
	live := l
	expireIn(&live, at)
	count := live.count()
	if over := count + cost - p.Limit; over > 0 {
		return l, Until(live.expiry(over), p.Width), false
	}
	q := p.subWindow(at)
	switch {
	case count == 0:
		live.head = live.tail
		live.newest = entry{at: q, cum: live.newest.cum + cost}
	case q == live.newest.at:
		live.newest.cum += cost
	default:
		pushIn(&live, live.newest)
		live.newest = entry{at: q, cum: live.newest.cum + cost}
	}
	live.Last = at
	return live, at, true
}

// expiry returns the instant of the live entry whose expiry frees at least need tokens.
func (l Log) expiry(need int64) int64 {
	live := l.buf.entriesOf(l.head, l.tail)
	i := sort.Search(len(live), func(i int) bool { return live[i].cum.Load()-l.base >= need })
	if i < len(live) {
		return live[i].at.Load()
	}
	return l.newest.at
}

func (b *logBuf) entriesOf(head, tail int) []slot {
	if b == nil {
		return nil
	}
	return b.entries[head:tail]
}

// pushIn appends e after the live entries: in place when this value owns the end of the storage,
// or when the slot there already holds e (another value branched from this one pushed the same
// entry: what a value pushes depends only on that value); otherwise into new storage twice the
// live size. So time per debit is O(1) amortized, memory stays O(Limit), and a combinator that asks
// a log before it charges does not make the log copy itself.
func pushIn(l *Log, e entry) {
	if b := l.buf; b != nil && l.tail < len(b.entries) && b.claim(l.tail, e) {
		l.tail++
		return
	}
	live := l.buf.entriesOf(l.head, l.tail)
	nb := &logBuf{entries: make([]slot, max(2*(len(live)+1), 8))}
	for i := range live {
		nb.entries[i].store(live[i].load())
	}
	nb.entries[len(live)].store(e)
	nb.claimed.Store(int64(len(live) + 1))
	l.buf, l.head, l.tail = nb, 0, len(live)+1
}

// claim writes e into slot i if nobody has claimed it yet, or reports whether it already holds
// e, written whole.
func (b *logBuf) claim(i int, e entry) bool {
	if b.claimed.CompareAndSwap(int64(i), int64(i)+1) {
		b.entries[i].store(e)
		return true
	}
	got, ok := b.entries[i].published()
	return ok && got == e
}

// Status reports the tokens left in the window and when every entry has expired.
func (l Log) Status(at int64) Status {
	p := l.P
	if p == nil {
		return Status{Full: Never}
	}
	at = max(at, l.Last)
	live := l.expire(at)
	full := at
	if live.count() > 0 {
		full = Until(live.newest.at, p.Width)
	}
	return Status{Limit: p.Limit, Remaining: p.Limit - live.count(), Full: full}
}

// Entries calls yield with each live entry's instant and tokens, oldest first.
func (l Log) Entries(yield func(at, tokens int64) bool) {
	prev := l.base
	live := l.buf.entriesOf(l.head, l.tail)
	for i := range live {
		e := live[i].load()
		if !yield(e.at, e.cum-prev) {
			return
		}
		prev = e.cum
	}
	if l.count() > 0 {
		yield(l.newest.at, l.newest.cum-prev)
	}
}

// String names the policy.
func (l Log) String() string {
	switch {
	case l.P == nil:
		return "sliding (zero)"
	case l.P.Quantum > 1:
		return "buckets " + itoa(l.P.Limit) + "/" + FormatPeriod(l.P.Width) + " in " + itoa(l.P.Width/l.P.Quantum)
	}
	return "sliding " + itoa(l.P.Limit) + "/" + FormatPeriod(l.P.Width)
}
