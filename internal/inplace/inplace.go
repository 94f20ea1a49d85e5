// Package inplace is the API between package typed and this repository's stores: a debit on a
// State kept in place, on instants in nanoseconds since the Unix epoch (of the years 1678 to
// 2262; math.MaxInt64 is never), reporting in one call what a store's answer needs.
//
// typed.Policy.InPlace returns a policy's [Engine]; it takes a [Key], which only packages of this
// repository can name, so that these operations are no part of typed's public API.
package inplace

// Key is the argument of typed.Policy.InPlace: the type lies in an internal package, so only
// this repository's packages can name it.
type Key struct{}

// Engine is a policy's in-place operations on its States, of type S (typed.State).
type Engine[S any] interface {
	// DebitIn takes cost tokens at at (nanoseconds since the Unix epoch) from the State *s, all
	// or nothing, in place, and reports whether it admitted and the Outcome. It decides as
	// typed.Policy.DebitN does, in about half the time of DebitN and Status. Copies of *s made
	// earlier never change. A cost below 1 panics.
	DebitIn(s *S, at, cost int64) (Outcome, bool)
	// PeekIn reports what DebitIn(s, at, 1) would report, changing nothing: whether one token
	// could be taken at at, when it could be if not, and the Status of *s at at.
	PeekIn(s *S, at int64) (Outcome, bool)
	// PackedWords returns how many words the States of the policy use, and whether they all lie
	// inline, so that Pack and Unpack carry a State whole: true for every policy without a
	// sliding log whose leaves take at most 12 words (gcra 3, token and leaky 2, finite 1,
	// window 3, sliding counter 4). The zero Policy uses none.
	PackedWords() (n int, ok bool)
	// DebitPacked is DebitIn on the State whose packed words are w (see Pack), kept in w:
	// admitted, w holds the next state's words. PackedWords must be len(w) or fewer. A GCRA, the
	// commonest policy, debits the words where they lie; others unpack them, debit and pack them
	// back.
	DebitPacked(w []int64, at, cost int64) (Outcome, bool)
	// Pack copies the first len(w) inline words of *s into w (at most 12).
	Pack(s *S, w []int64)
	// Unpack makes *s the State whose first inline words are w (at most 12) and the others
	// zero, with no extra block: for a policy whose PackedWords are len(w) or fewer, the State
	// that Pack copied w from.
	Unpack(s *S, w []int64)
}

// Outcome is what [Engine.DebitIn] and [Engine.PeekIn] report beside the verdict: the subject's
// Status after the debit and when the same debit would be admitted, in nanoseconds since the
// Unix epoch, or math.MaxInt64 when that never comes.
//
// The zero Outcome holds a limit of zero, with Retry and Full at the epoch.
type Outcome struct {
	// Remaining is the whole tokens left, rounded down, as numerus.Status reports them.
	Remaining int64
	// Limit is the policy's capacity, as numerus.Status reports it.
	Limit int64
	// Retry is the instant the same debit would be admitted: the debit's own instant when it was
	// admitted, else the exact earliest one, or never.
	Retry int64
	// Full is the instant the subject is full again if it takes nothing more, or never.
	Full int64
	// Next is the instant from which the subject holds one token more than Remaining, if it
	// takes nothing more (a debit of Remaining+1 would be admitted then): the debit's own instant
	// when it is full, never when it never refills.
	Next int64
	// Binds is the index, among the policy's leaves in the order the notation writes them, of
	// the limit that binds: on a refusal the one whose wait Retry is (in an And the latest, in an
	// Or the earliest); on an admission the one whose tokens Remaining counts (in an And the one
	// with the fewest left, of those the one whose next token comes last; in an Or the one with
	// the most, of those the one whose next token comes first). It is 0 for a policy of one leaf.
	Binds int
}
