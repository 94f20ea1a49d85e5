package typed

import (
	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// This file is the in-place debit of a policy of one leaf kept inline, the common policy of a
// store: its kernel is loaded from the State's first words once, debited, and asked its status,
// with no dispatch over the tree and no slices. It runs the same kernels as debit and status.

// debitFirst takes cost at at from the leaf's kernel on the first words of w; admitted, it
// stores the next kernel there when keep is set, but for a GCRA, which only PeekIn sends here
// (DebitIn debits one itself). It returns the Outcome, of the kernel after the debit (before it,
// when refused or not kept), and whether it admitted. The leaf is the only one of its policy,
// kept inline: its words are the first.
func (lf *leaf) debitFirst(w *[inlineWords]int64, at, cost int64, keep bool) (inplace.Outcome, bool) {
	switch lf.k {
	case kindGCRA: // only PeekIn's: DebitIn debits a GCRA itself, with DebitStatus
		k := loadGCRA(lf.gcra, w[:3])
		_, from, ok := k.Debit(at, cost)
		return outcomeOf(k.Status(at), at, from, ok, k.Next(at)), ok
	case kindToken:
		k := loadTokens(lf.bucket, w[:2])
		next, from, ok := k.Debit(at, cost)
		if ok && keep {
			k = next
			putTokens(w[:2], k)
		}
		return outcomeOf(k.Status(at), at, from, ok, k.Next(at)), ok
	case kindLeaky:
		k := loadLeaky(lf.bucket, w[:2])
		next, from, ok := k.Debit(at, cost)
		if ok && keep {
			k = next
			putLeaky(w[:2], k)
		}
		return outcomeOf(k.Status(at), at, from, ok, k.Next(at)), ok
	}
	return lf.debitFirstWindow(w, at, cost, keep)
}

func (lf *leaf) debitFirstWindow(w *[inlineWords]int64, at, cost int64, keep bool) (inplace.Outcome, bool) {
	switch lf.k {
	case kindFinite:
		k := loadFinite(lf.size, w[:1])
		next, from, ok := k.Debit(at, cost)
		if ok && keep {
			k = next
			putFinite(w[:1], k)
		}
		return outcomeOf(k.Status(at), at, from, ok, k.Next(at)), ok
	case kindWindow:
		k := loadWindow(lf.window, w[:3])
		next, from, ok := k.Debit(at, cost)
		if ok && keep {
			k = next
			putWindow(w[:3], k)
		}
		return outcomeOf(k.Status(at), at, from, ok, k.Next(at)), ok
	}
	k := loadCounter(lf.window, w[:4])
	next, from, ok := k.Debit(at, cost)
	if ok && keep {
		k = next
		putCounter(w[:4], k)
	}
	return outcomeOf(k.Status(at), at, from, ok, k.Next(at)), ok
}

// outcomeOf is the Outcome of a debit at at that answered from and ok, with the status st and
// the instant next of one more token, of the first leaf.
func outcomeOf(st kernel.Status, at, from int64, ok bool, next int64) inplace.Outcome {
	if ok {
		from = at
	}
	return inplace.Outcome{Remaining: max(st.Remaining, 0), Limit: st.Limit, Retry: from, Full: st.Full, Next: next}
}
