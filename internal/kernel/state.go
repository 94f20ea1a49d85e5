package kernel

// This file lets a caller save a kernel's state as plain numbers and restore it, validated against
// the policy, and start a kernel under a new policy holding a given number of tokens. The words
// saved are the kernels' own exported fields; only the log needs helpers, its storage being shared.

// Shown returns the rate as it was written: n tokens per p ns, before reduction.
func (r Rate) Shown() (n, p int64) { return r.shownN, r.shownP }

func corrupt(param, problem string) *Invalid { return &Invalid{Param: param, Problem: problem} }

func checkLast(last int64) *Invalid {
	if last == Never {
		return corrupt("last", "is the never instant")
	}
	return nil
}

func within(param string, v, hi int64) *Invalid {
	if v < 0 || v > hi {
		return corrupt(param, itoa(v)+" lies outside [0, "+itoa(hi)+"]")
	}
	return nil
}

// RestoreGCRA returns the GCRA under p whose TAT is q + r/N ns, last admitted at last. It rejects a
// TAT further after last than the burst allows: no debit could have left it there.
func (p *GCRAPolicy) RestoreGCRA(q, r, last int64) (GCRA, *Invalid) {
	if inv := checkLast(last); inv != nil {
		return GCRA{}, inv
	}
	if q == Never {
		return GCRA{}, corrupt("tat", "is the never instant")
	}
	if r < 0 || r >= p.Rate.N && q != MaxInstant {
		return GCRA{}, corrupt("tat fraction", itoa(r)+" lies outside [0, "+itoa(p.Rate.N)+")")
	}
	tat := Frac{Q: q, R: r}
	if tat.after(last) && mul(int64(diff(last, q)), p.Rate.N).add(u128{0, uint64(r)}).cmp(u128{0, uint64(p.limit)}) > 0 {
		return GCRA{}, corrupt("tat", "lies more than the burst after last")
	}
	return GCRA{P: p, TAT: tat, Last: last}, nil
}

// RestoreTokens returns the token bucket under p holding tokens scaled units at last.
func (p *BucketPolicy) RestoreTokens(tokens, last int64) (TokenBucket, *Invalid) {
	if inv := checkLast(last); inv != nil {
		return TokenBucket{}, inv
	}
	if inv := within("tokens", tokens, p.full); inv != nil {
		return TokenBucket{}, inv
	}
	return TokenBucket{P: p, Tokens: tokens, Last: last}, nil
}

// RestoreLeaky returns the leaky bucket under p holding level scaled units at last.
func (p *BucketPolicy) RestoreLeaky(level, last int64) (LeakyBucket, *Invalid) {
	if inv := checkLast(last); inv != nil {
		return LeakyBucket{}, inv
	}
	if inv := within("level", level, p.full); inv != nil {
		return LeakyBucket{}, inv
	}
	return LeakyBucket{P: p, Level: level, Last: last}, nil
}

// RestoreFinite returns the finite bucket of size tokens with left still in it.
func RestoreFinite(size, left int64) (Finite, *Invalid) {
	if _, inv := FiniteOf(size); inv != nil {
		return Finite{}, inv
	}
	if inv := within("left", left, size); inv != nil {
		return Finite{}, inv
	}
	return Finite{Size: size, Left: left}, nil
}

// RestoreWindow returns the fixed window under p counting count tokens in the window at start. A
// non-zero count must lie in the window that holds last.
func (p *WindowPolicy) RestoreWindow(start, count, last int64) (FixedWindow, *Invalid) {
	if inv := checkLast(last); inv != nil {
		return FixedWindow{}, inv
	}
	if inv := within("count", count, p.Limit); inv != nil {
		return FixedWindow{}, inv
	}
	if count > 0 && start != p.start(last) {
		return FixedWindow{}, corrupt("start", "is not the window that holds last")
	}
	return FixedWindow{P: p, Start: start, Count: count, Last: last}, nil
}

// RestoreCounter returns the sliding counter under p with prev and cur counted in the windows
// before and at start. Counts must lie in the window that holds last, and their estimate at last
// must be within the limit.
func (p *WindowPolicy) RestoreCounter(start, prev, cur, last int64) (SlidingCounter, *Invalid) {
	if inv := checkLast(last); inv != nil {
		return SlidingCounter{}, inv
	}
	if inv := within("prev", prev, p.Limit); inv != nil {
		return SlidingCounter{}, inv
	}
	if inv := within("cur", cur, p.Limit); inv != nil {
		return SlidingCounter{}, inv
	}
	if prev == 0 && cur == 0 { // any start will do: it is made the window holding last, as a
		// reader that keeps no start (a typed counter of a wide limit) makes it, so that every
		// reader of a state saves the same words
		return SlidingCounter{P: p, Start: p.start(last), Last: last}, nil
	}
	if start != p.start(last) {
		return SlidingCounter{}, corrupt("start", "is not the window that holds last")
	}
	if p.weighted(prev, cur, last-start).cmp(mul(p.Limit, p.Width)) > 0 {
		return SlidingCounter{}, corrupt("cur", "the estimate at last exceeds the limit")
	}
	return SlidingCounter{P: p, Start: start, Prev: prev, Cur: cur, Last: last}, nil
}

// Live calls yield with each entry still live at the log's last instant, oldest first.
func (l Log) Live(yield func(at, tokens int64) bool) {
	if l.P == nil {
		return
	}
	l.expire(l.Last).Entries(yield)
}

// RestoreLog returns the log under p, last admitted at last, whose live entries are the pairs
// (instant, tokens) of entries. Instants must be rounded to the policy's quantum, increase strictly,
// lie in (last − window, last], hold at least one token each and at most the limit in all.
func (p *LogPolicy) RestoreLog(last int64, entries []int64) (Log, *Invalid) {
	if inv := checkLast(last); inv != nil {
		return Log{}, inv
	}
	if len(entries)%2 != 0 {
		return Log{}, corrupt("entries", "are not (instant, tokens) pairs")
	}
	l := p.FreshLog()
	l.Last = last
	n := len(entries) / 2
	if n == 0 {
		return l, nil
	}
	if inv := p.checkEntries(last, entries); inv != nil {
		return Log{}, inv
	}
	// Written once checked, so that a log's state costs its own storage and no more.
	cum := int64(0)
	if n > 1 {
		l.buf = &logBuf{entries: make([]slot, n-1)}
		for i := range n - 1 {
			cum += entries[2*i+1]
			l.buf.entries[i].store(entry{at: entries[2*i], cum: cum})
		}
		l.buf.claimed.Store(int64(n - 1))
		l.tail = n - 1
	}
	l.newest = entry{at: entries[2*n-2], cum: cum + entries[2*n-1]}
	return l, nil
}

// checkEntries validates the pairs.
func (p *LogPolicy) checkEntries(last int64, pairs []int64) *Invalid {
	prev, cum := int64(0), int64(0)
	for i := range len(pairs) / 2 {
		at, tokens := pairs[2*i], pairs[2*i+1]
		switch {
		case at > last:
			return corrupt("entries", "hold an instant after last")
		case last >= MinInstant+p.Width && at <= last-p.Width:
			return corrupt("entries", "hold an instant no longer live at last")
		case i > 0 && at <= prev:
			return corrupt("entries", "are not in increasing order")
		case at != p.subWindow(at):
			return corrupt("entries", "hold an instant not rounded to the quantum")
		case tokens < 1 || tokens > p.Limit-cum:
			return corrupt("entries", "hold an empty entry or more than the limit in all")
		}
		cum += tokens
		prev = at
	}
	return nil
}

// Holding returns the GCRA under p that holds exactly r whole tokens at at, with no part of a token
// on its way: the state a change of policy continues from. r lies in [0, Burst].
func (p *GCRAPolicy) Holding(at, r int64) GCRA {
	return GCRA{P: p, TAT: arrival(at, (p.Burst-r)*p.Rate.P, p.Rate.N), Last: at}
}

// TokensHolding returns the token bucket under p that holds exactly r tokens at at.
func (p *BucketPolicy) TokensHolding(at, r int64) TokenBucket {
	return TokenBucket{P: p, Tokens: r * p.Rate.P, Last: at}
}

// LeakyHolding returns the leaky bucket under p with room for exactly r tokens at at.
func (p *BucketPolicy) LeakyHolding(at, r int64) LeakyBucket {
	return LeakyBucket{P: p, Level: (p.Capacity - r) * p.Rate.P, Last: at}
}

// WindowHolding returns the fixed window under p with r tokens left in the window holding at.
func (p *WindowPolicy) WindowHolding(at, r int64) FixedWindow {
	return FixedWindow{P: p, Start: p.start(at), Count: p.Limit - r, Last: at}
}

// CounterHolding returns the sliding counter under p whose estimate leaves r tokens at at, all of
// the use counted in the current window.
func (p *WindowPolicy) CounterHolding(at, r int64) SlidingCounter {
	return SlidingCounter{P: p, Start: p.start(at), Cur: p.Limit - r, Last: at}
}

// LogHolding returns the log under p with r tokens left at at, all of the use recorded at at.
func (p *LogPolicy) LogHolding(at, r int64) Log {
	l := p.FreshLog()
	l.Last = at
	if used := p.Limit - r; used > 0 {
		l.newest = entry{at: p.subWindow(at), cum: used}
	}
	return l
}
