package kernel

// Advance brings a state to an instant without debiting it: the state it returns has Last at
// least at, and decides every debit and status at at or later exactly as the receiver does. A
// composite that admits a debit at at advances the children it did not charge (those of an Or
// that refused), so that every child counts the composite's latest instant as its own: an
// earlier instant then counts as that one for the whole tree, and a child that took no part in
// an admission cannot free its capacity early (doc.go, "Time"). An instant not after Last, or a
// state with no policy, is returned as it is.

// Advance brings g to at: its TAT is an instant, so only Last moves.
func (g GCRA) Advance(at int64) GCRA {
	if g.P != nil && at > g.Last {
		g.Last = at
	}
	return g
}

// Advance brings b to at, with the tokens it holds then.
func (b TokenBucket) Advance(at int64) TokenBucket {
	if b.P != nil && at > b.Last {
		b.Tokens, b.Last = b.tokensAt(at), at
	}
	return b
}

// Advance brings b to at, with the level it holds then.
func (b LeakyBucket) Advance(at int64) LeakyBucket {
	if b.P != nil && at > b.Last {
		b.Level, b.Last = b.levelAt(at), at
	}
	return b
}

// Advance returns f: a finite bucket keeps no instant.
func (f Finite) Advance(int64) Finite { return f }

// Advance brings w to at, counting the window that holds at.
func (w FixedWindow) Advance(at int64) FixedWindow {
	if w.P != nil && at > w.Last {
		w.Start, w.Count = w.countAt(at)
		w.Last = at
	}
	return w
}

// Advance brings c to at, with the counts of the windows at and before the one that holds at.
func (c SlidingCounter) Advance(at int64) SlidingCounter {
	if c.P != nil && at > c.Last {
		c.Start, _, c.Prev, c.Cur = c.countsAt(at)
		c.Last = at
	}
	return c
}

// Advance brings l to at, without the entries that have expired by then. It writes nothing to
// the storage l shares.
func (l Log) Advance(at int64) Log {
	if l.P != nil && at > l.Last {
		expireIn(&l, at)
		l.Last = at
	}
	return l
}
