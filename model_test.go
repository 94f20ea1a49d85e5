package numerus_test

import (
	"math/big"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
)

// A model is a naive reference for one algorithm: plain data and exact arithmetic, slow and
// obviously right. Instants are nanoseconds since the Unix epoch, already moved to the latest
// admitted instant by the driver, and admission is monotone in time, so that the driver finds
// the answer of a refusal by bisection instead of by formula.
type model interface {
	admits(at, cost int64) bool
	charge(at, cost int64)
	remaining(at int64) int64
	full(at int64) (int64, bool) // false: never
	// horizon returns an instant at which the debit is surely admitted, false if it never is.
	horizon(at, cost int64) (int64, bool)
}

// driver runs a model the way the limiters treat time: an instant earlier than the latest
// admitted one counts as that one.
type driver struct {
	m    model
	last int64
	used bool
}

func (d *driver) effective(at int64) int64 {
	if d.used {
		return max(at, d.last)
	}
	return at
}

// debit returns the model's answer: admitted, or the first instant it would be, or never.
func (d *driver) debit(at, cost int64) (ok bool, from int64, finite bool) {
	at = d.effective(at)
	if d.m.admits(at, cost) {
		d.m.charge(at, cost)
		d.last, d.used = at, true
		return true, at, true
	}
	hi, finite := d.m.horizon(at, cost)
	if !finite {
		return false, 0, false
	}
	lo := at // refused at lo, admitted at hi
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if d.m.admits(mid, cost) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return false, hi, true
}

func (d *driver) status(at int64) (remaining, full int64, finite bool) {
	at = d.effective(at)
	full, finite = d.m.full(at)
	return d.m.remaining(at), full, finite
}

// bucketModel is a token bucket of capacity tokens refilled at n per p ns, tokens a rational.
type bucketModel struct {
	capacity, n, p int64
	tokens         *big.Rat // at last; nil while fresh (full)
	last           int64
}

func (b *bucketModel) at(t int64) *big.Rat {
	c := big.NewRat(b.capacity, 1)
	if b.tokens == nil {
		return c
	}
	r := big.NewRat(t-b.last, 1)
	r.Mul(r, big.NewRat(b.n, b.p)).Add(r, b.tokens)
	if r.Cmp(c) > 0 {
		return c
	}
	return r
}

func (b *bucketModel) admits(t, cost int64) bool { return b.at(t).Cmp(big.NewRat(cost, 1)) >= 0 }

func (b *bucketModel) charge(t, cost int64) {
	b.tokens, b.last = new(big.Rat).Sub(b.at(t), big.NewRat(cost, 1)), t
}

func (b *bucketModel) remaining(t int64) int64 { return floor(b.at(t)) }

func (b *bucketModel) full(t int64) (int64, bool) {
	missing := new(big.Rat).Sub(big.NewRat(b.capacity, 1), b.at(t))
	return t + ceil(missing.Mul(missing, big.NewRat(b.p, b.n))), true
}

func (b *bucketModel) horizon(t, cost int64) (int64, bool) {
	if cost > b.capacity {
		return 0, false
	}
	return t + ceil(big.NewRat(cost*b.p, b.n)), true
}

func floor(r *big.Rat) int64 { return new(big.Int).Quo(r.Num(), r.Denom()).Int64() } // r ≥ 0

func ceil(r *big.Rat) int64 {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

// entry is an admitted debit of a log of admissions.
type entry struct{ at, cost int64 }

// floorDiv returns ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// windowModel is the fixed window: the admissions whose window, of length w aligned on origin,
// is the window of the instant asked.
type windowModel struct {
	w, n, origin int64
	log          []entry
}

func (m *windowModel) index(t int64) int64 { return floorDiv(t-m.origin, m.w) }

// sum adds up the costs admitted in window k.
func (m *windowModel) sum(k int64) int64 {
	var c int64
	for _, e := range m.log {
		if m.index(e.at) == k {
			c += e.cost
		}
	}
	return c
}

func (m *windowModel) admits(t, cost int64) bool { return m.sum(m.index(t))+cost <= m.n }
func (m *windowModel) charge(t, cost int64)      { m.log = append(m.log, entry{t, cost}) }
func (m *windowModel) remaining(t int64) int64   { return m.n - m.sum(m.index(t)) }
func (m *windowModel) end(t int64) int64         { return m.origin + (m.index(t)+1)*m.w }
func (m *windowModel) start(t int64) int64       { return m.origin + m.index(t)*m.w }
func (m *windowModel) full(t int64) (int64, bool) {
	if m.sum(m.index(t)) > 0 {
		return m.end(t), true
	}
	return t, true
}

func (m *windowModel) horizon(t, cost int64) (int64, bool) { return m.end(t), cost <= m.n }

// counterModel is the sliding window counter over the windows of a windowModel: the previous
// window's count weighted by the part of it the sliding window still covers, plus the current.
type counterModel struct{ windowModel }

// weighted returns prev·(w−e) + (cur+extra)·w, the estimate scaled by w.
func (m *counterModel) weighted(t, extra int64) *big.Int {
	k := m.index(t)
	prev := big.NewInt(m.sum(k - 1))
	prev.Mul(prev, big.NewInt(m.w-(t-m.start(t))))
	cur := big.NewInt(m.sum(k) + extra)
	return prev.Add(prev, cur.Mul(cur, big.NewInt(m.w)))
}

func (m *counterModel) limit() *big.Int { return new(big.Int).Mul(big.NewInt(m.n), big.NewInt(m.w)) }

func (m *counterModel) admits(t, cost int64) bool { return m.weighted(t, cost).Cmp(m.limit()) <= 0 }

func (m *counterModel) remaining(t int64) int64 {
	left := new(big.Int).Sub(m.limit(), m.weighted(t, 0))
	return max(left.Div(left, big.NewInt(m.w)).Int64(), 0)
}

func (m *counterModel) full(t int64) (int64, bool) {
	k := m.index(t)
	switch {
	case m.sum(k) > 0:
		return m.end(t) + m.w, true
	case m.sum(k-1) > 0:
		return m.end(t), true
	}
	return t, true
}

func (m *counterModel) horizon(t, cost int64) (int64, bool) { return m.end(t) + m.w, cost <= m.n }

// logModel is the sliding log, bucketed when quantum > 1: at most n tokens in any windows
// consecutive sub-windows of length quantum aligned on the Unix epoch (windows·quantum = w).
// The exact log has quantum 1: its sub-windows are single nanoseconds.
type logModel struct {
	w, n, quantum int64
	log           []entry
}

func (m *logModel) count(t int64) int64 {
	k, windows := floorDiv(t, m.quantum), m.w/m.quantum
	var c int64
	for _, e := range m.log {
		if floorDiv(e.at, m.quantum) > k-windows {
			c += e.cost
		}
	}
	return c
}

func (m *logModel) admits(t, cost int64) bool { return m.count(t)+cost <= m.n }
func (m *logModel) charge(t, cost int64)      { m.log = append(m.log, entry{t, cost}) }
func (m *logModel) remaining(t int64) int64   { return m.n - m.count(t) }

// expiry returns when the newest admission leaves the window: the end of windows sub-windows
// from its own.
func (m *logModel) expiry() int64 {
	newest := m.log[len(m.log)-1] // admitted instants never go back
	return floorDiv(newest.at, m.quantum)*m.quantum + m.w
}

func (m *logModel) full(t int64) (int64, bool) {
	if m.count(t) > 0 {
		return m.expiry(), true
	}
	return t, true
}

func (m *logModel) horizon(t, cost int64) (int64, bool) {
	if len(m.log) == 0 {
		return t, cost <= m.n
	}
	return max(t, m.expiry()), cost <= m.n
}

// finiteModel is the finite bucket: what is left.
type finiteModel struct{ size, left int64 }

func (m *finiteModel) admits(_, cost int64) bool { return cost <= m.left }
func (m *finiteModel) charge(_, cost int64)      { m.left -= cost }
func (m *finiteModel) remaining(int64) int64     { return m.left }
func (m *finiteModel) full(t int64) (int64, bool) {
	return t, m.left == m.size
}
func (m *finiteModel) horizon(int64, int64) (int64, bool) { return 0, false }

// TestAgainstModel is the model-based property of every algorithm: over a random policy and a
// random timeline (steps of zero, back and forth, costs above the capacity, in several eras), the
// limiter admits
// exactly what its naive model admits, answers each refusal with the model's first admitting
// instant (found by bisection, not by formula), and reports the model's remaining and full.
func TestAgainstModel(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, rapid.MakeCheck(func(t *rapid.T) {
			p := drawPolicy(t, kind)
			d := &driver{m: p.m}
			at := drawEra(t).UnixNano() + rapid.Int64Range(0, p.span).Draw(t, "start")
			l := p.l
			for i, e := range drawTimeline(t, p.span, p.capacity+1, 40) {
				at += e.step
				l = checkStep(t, i, l, d, at, e.cost)
			}
		}))
	}
}

// checkStep debits l and the model alike at at and fails t where they differ.
func checkStep(t *rapid.T, i int, l numerus.Limiter, d *driver, at, cost int64) numerus.Limiter {
	t.Helper()
	when := time.Unix(0, at)
	next, from, ok := l.DebitN(when, cost)
	wantOK, wantFrom, finite := d.debit(at, cost)
	if ok != wantOK {
		t.Fatalf("debit %d: %s: DebitN(%v, %d) admitted %v, model %v", i, l, when, cost, ok, wantOK)
	}
	if !ok {
		if got, gotFinite := from.Time(); gotFinite != finite || (finite && got.UnixNano() != wantFrom) {
			t.Fatalf("debit %d: %s: DebitN(%v, %d) answered %v, model %v (finite %v)", i, l, when, cost,
				from, time.Unix(0, wantFrom), finite)
		}
		return l
	}
	s := next.Status(when)
	left, full, fullFinite := d.status(at)
	if s.Remaining != left {
		t.Fatalf("debit %d: %s: remaining %d, model %d", i, next, s.Remaining, left)
	}
	if got, gotFinite := s.Full.Time(); gotFinite != fullFinite || (fullFinite && got.UnixNano() != full) {
		t.Fatalf("debit %d: %s: full %v, model %v (finite %v)", i, next, s.Full, time.Unix(0, full), fullFinite)
	}
	return next
}

// TestBucketsEquivalent is the property that GCRA(rate, b), TokenBucket(b, rate) and
// LeakyBucket(b, rate) decide identically, answers and status included, on every timeline.
func TestBucketsEquivalent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(1, 8).Draw(t, "burst")
		tokens, per := rapid.Int64Range(1, 9).Draw(t, "rate tokens"), periods().Draw(t, "rate period")
		ls := []numerus.Limiter{bucket("gcra", n, tokens, per).l, bucket("token", n, tokens, per).l,
			bucket("leaky", n, tokens, per).l}
		at := drawEra(t)
		for i, e := range drawTimeline(t, max(n*per/tokens, 1), n+1, 60) {
			at = at.Add(time.Duration(e.step))
			n0, f0, ok0 := ls[0].DebitN(at, e.cost)
			s0 := ls[0].Status(at)
			for j, l := range ls[1:] {
				next, f, ok := l.DebitN(at, e.cost)
				if s := l.Status(at); ok != ok0 || !f.Equal(f0) || !sameStatus(s, s0) {
					t.Fatalf("debit %d: %s: %v %v %+v; %s: %v %v %+v", i, ls[0], ok0, f0, s0, l, ok, f, s)
				}
				if ok {
					ls[j+1] = next
				}
			}
			if ok0 {
				ls[0] = n0
			}
		}
	})
}
