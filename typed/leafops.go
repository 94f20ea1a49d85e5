package typed

import "github.com/numerus-closus/numerus/internal/kernel"

// debit runs the leaf's kernel on its words in src and, admitted, stores the result in dst.
func (lf *leaf) debit(src, dst *State, at, cost int64) (int64, bool) {
	switch lf.k {
	case kindGCRA:
		k, from, ok := loadGCRA(lf.gcra, src.words(lf.off, 3)).Debit(at, cost)
		if ok && dst != nil {
			putGCRA(dst.words(lf.off, 3), k)
		}
		return from, ok
	case kindToken:
		k, from, ok := loadTokens(lf.bucket, src.words(lf.off, 2)).Debit(at, cost)
		if ok && dst != nil {
			putTokens(dst.words(lf.off, 2), k)
		}
		return from, ok
	case kindLeaky:
		k, from, ok := loadLeaky(lf.bucket, src.words(lf.off, 2)).Debit(at, cost)
		if ok && dst != nil {
			putLeaky(dst.words(lf.off, 2), k)
		}
		return from, ok
	case kindFinite:
		k, from, ok := loadFinite(lf.size, src.words(lf.off, 1)).Debit(at, cost)
		if ok && dst != nil {
			putFinite(dst.words(lf.off, 1), k)
		}
		return from, ok
	}
	return lf.debitWindow(src, dst, at, cost)
}

func (lf *leaf) debitWindow(src, dst *State, at, cost int64) (int64, bool) {
	switch lf.k {
	case kindWindow:
		k, from, ok := loadWindow(lf.window, src.words(lf.off, 3)).Debit(at, cost)
		if ok && dst != nil {
			putWindow(dst.words(lf.off, 3), k)
		}
		return from, ok
	case kindCount:
		k, from, ok := loadCounter(lf.window, src.words(lf.off, 4)).Debit(at, cost)
		if ok && dst != nil {
			putCounter(dst.words(lf.off, 4), k)
		}
		return from, ok
	}
	k, from, ok := src.ext.logs[lf.off].Debit(at, cost)
	if ok && dst != nil {
		dst.ext.logs[lf.off] = k
	}
	return from, ok
}

// status reports the leaf's kernel status on its words in s.
func (lf *leaf) status(s *State, at int64) kernel.Status {
	st, _ := lf.look(s, at, false)
	return st
}

// next returns the instant from which the leaf's kernel in s holds one token more than at at.
func (lf *leaf) next(s *State, at int64) int64 {
	_, n := lf.look(s, at, true)
	return n
}

// look reports the leaf's kernel status on its words in s and, if next is set, the instant from
// which it holds one token more than at at (0 otherwise).
func (lf *leaf) look(s *State, at int64, next bool) (kernel.Status, int64) {
	switch lf.k {
	case kindGCRA:
		return look(loadGCRA(lf.gcra, s.words(lf.off, 3)), at, next)
	case kindToken:
		return look(loadTokens(lf.bucket, s.words(lf.off, 2)), at, next)
	case kindLeaky:
		return look(loadLeaky(lf.bucket, s.words(lf.off, 2)), at, next)
	case kindFinite:
		return look(loadFinite(lf.size, s.words(lf.off, 1)), at, next)
	case kindWindow:
		return look(loadWindow(lf.window, s.words(lf.off, 3)), at, next)
	case kindCount:
		return look(loadCounter(lf.window, s.words(lf.off, 4)), at, next)
	}
	return look(s.ext.logs[lf.off], at, next)
}

// look is the leaf's look on its kernel k.
func look[K interface {
	Debit(at, cost int64) (K, int64, bool)
	Status(at int64) kernel.Status
}](k K, at int64, next bool) (kernel.Status, int64) {
	st := k.Status(at)
	if !next {
		return st, 0
	}
	return st, kernel.NextOf(k, at, st)
}

// last returns the latest instant the leaf admitted at (MinInstant for a finite bucket).
func (lf *leaf) last(s *State) int64 {
	switch lf.k {
	case kindFinite:
		return kernel.MinInstant
	case kindGCRA, kindWindow:
		return s.words(lf.off, 3)[2]
	case kindToken, kindLeaky:
		return s.words(lf.off, 2)[1]
	case kindCount:
		return s.words(lf.off, 4)[3]
	}
	return s.ext.logs[lf.off].Last
}

// advance brings the leaf's kernel in s to at (see kernel's Advance), in place.
func (lf *leaf) advance(s *State, at int64) {
	switch lf.k {
	case kindGCRA:
		putGCRA(s.words(lf.off, 3), loadGCRA(lf.gcra, s.words(lf.off, 3)).Advance(at))
	case kindToken:
		putTokens(s.words(lf.off, 2), loadTokens(lf.bucket, s.words(lf.off, 2)).Advance(at))
	case kindLeaky:
		putLeaky(s.words(lf.off, 2), loadLeaky(lf.bucket, s.words(lf.off, 2)).Advance(at))
	case kindFinite: // it keeps no instant
	case kindWindow:
		putWindow(s.words(lf.off, 3), loadWindow(lf.window, s.words(lf.off, 3)).Advance(at))
	case kindCount:
		putCounter(s.words(lf.off, 4), loadCounter(lf.window, s.words(lf.off, 4)).Advance(at))
	default:
		s.ext.logs[lf.off] = s.ext.logs[lf.off].Advance(at)
	}
}

// hold stores into s the leaf's state that holds exactly r tokens at at, all use counted at at.
func (lf *leaf) hold(s *State, at, r int64) {
	var k kernels
	switch lf.k {
	case kindGCRA:
		k.gcra = lf.gcra.Holding(at, r)
	case kindToken:
		k.tokens = lf.bucket.TokensHolding(at, r)
	case kindLeaky:
		k.leaky = lf.bucket.LeakyHolding(at, r)
	case kindFinite:
		k.finite = kernel.Finite{Size: lf.size, Left: r}
	case kindWindow:
		k.window = lf.window.WindowHolding(at, r)
	case kindCount:
		k.counter = lf.window.CounterHolding(at, r)
	default:
		k.log = lf.log.LogHolding(at, r)
	}
	lf.put(s, k)
}
