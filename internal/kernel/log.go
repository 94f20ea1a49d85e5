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
	entries []entry
	claimed atomic.Int64
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

// expire drops the entries that lie a whole Width or more before at.
func (l Log) expire(at int64) Log {
	if at < MinInstant+l.P.Width {
		return l // nothing can be a whole window old yet
	}
	cut := at - l.P.Width
	if l.newest.at <= cut {
		l.head, l.base = l.tail, l.newest.cum
		return l
	}
	for l.head < l.tail && l.buf.entries[l.head].at <= cut {
		l.base = l.buf.entries[l.head].cum
		l.head++
	}
	return l
}

func (l Log) count() int64 { return l.newest.cum - l.base }

// Debit records cost tokens at at.
func (l Log) Debit(at, cost int64) (Log, int64, bool) {
	CheckCost(cost)
	p := l.P
	if p == nil || cost > p.Limit {
		return l, Never, false
	}
	at = max(at, l.Last)
	live := l.expire(at)
	if over := live.count() + cost - p.Limit; over > 0 {
		return l, AddSat(live.expiry(over), p.Width), false
	}
	q := at - floorMod(at, 0, p.Quantum)
	switch {
	case live.count() == 0:
		live.head = live.tail
	case q != live.newest.at:
		live = live.push(live.newest)
	}
	if q == live.newest.at && live.count() > 0 {
		live.newest.cum += cost
	} else {
		live.newest = entry{at: q, cum: live.newest.cum + cost}
	}
	live.Last = at
	return live, at, true
}

// expiry returns the instant of the live entry whose expiry frees at least need tokens.
func (l Log) expiry(need int64) int64 {
	live := l.buf.entriesOf(l.head, l.tail)
	i := sort.Search(len(live), func(i int) bool { return live[i].cum-l.base >= need })
	if i < len(live) {
		return live[i].at
	}
	return l.newest.at
}

func (b *logBuf) entriesOf(head, tail int) []entry {
	if b == nil {
		return nil
	}
	return b.entries[head:tail]
}

// push appends e after the live entries: in place when this value owns the end of the storage,
// otherwise into new storage twice the live size, so time per debit is O(1) amortized and memory
// stays O(Limit).
func (l Log) push(e entry) Log {
	b := l.buf
	if b != nil && l.tail < len(b.entries) && b.claimed.CompareAndSwap(int64(l.tail), int64(l.tail)+1) {
		b.entries[l.tail] = e
		l.tail++
		return l
	}
	live := b.entriesOf(l.head, l.tail)
	nb := &logBuf{entries: make([]entry, max(2*(len(live)+1), 8))}
	copy(nb.entries, live)
	nb.entries[len(live)] = e
	nb.claimed.Store(int64(len(live) + 1))
	l.buf, l.head, l.tail = nb, 0, len(live)+1
	return l
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
		full = AddSat(live.newest.at, p.Width)
	}
	return Status{Limit: p.Limit, Remaining: p.Limit - live.count(), Full: full}
}

// Entries calls yield with each live entry's instant and tokens, oldest first.
func (l Log) Entries(yield func(at, tokens int64) bool) {
	prev := l.base
	for _, e := range l.buf.entriesOf(l.head, l.tail) {
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
