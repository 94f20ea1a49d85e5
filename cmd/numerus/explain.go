package main

import (
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/typed"
)

// standardSpans are the spans explain reports for every policy.
var standardSpans = []int64{int64(time.Second), int64(time.Minute), int64(time.Hour), int64(24 * time.Hour)}

// explainBudget bounds the debits explain makes for one policy or child (see budget).
const explainBudget = 200_000_000

// figures are what explain says of one policy: each a count of a greedy sender's admissions
// through the core (see greedy.go).
type figures struct {
	text      string
	burst     int64 // admitted at once, fresh
	sustained rate  // admitted over a common period of every limit, once past the first
	steady    bool  // whether each such period took the same (else sustained is their mean)
	steadyCut bool  // whether the budget cut those periods short, or they are not common to all
	refill    int64 // the longest wait until full, after an admission (kernel.Never: never)
	most      []int64
	lower     []bool // for each span, whether its count is a lower bound (see most)
}

// rate is n per period (ns); a period of 0 means none was measured (a finite bucket).
type rate struct{ n, per int64 }

// report is explain's answer: the policy's figures, each child's, the spans they are counted
// over (the standard ones, then each limit's own window), and the limits with a window.
type report struct {
	written  string // the policy as the user wrote it, when it differs from its text
	spans    []int64
	policy   figures
	op       typed.Algo // typed.AlgoAnd or typed.AlgoOr when children are reported
	children []figures
	windows  []window
}

// window is a limit with a period: its count per period, and where its span lies in spans.
type window struct {
	text    string
	count   int64
	period  int64
	span    int
	alone   int64 // the most the limit admits alone in a span of its period
	lower   bool
	aligned bool // whether its windows align on the clock
}

// explain computes the report of sp.
func explain(sp typed.Spec) (report, error) {
	if err := sp.Validate(); err != nil {
		return report{}, err
	}
	r := report{spans: append([]int64(nil), standardSpans...)}
	leaves(sp, func(leaf typed.Spec) {
		if leaf.Period > 0 {
			r.windows = append(r.windows, window{text: leaf.String(), count: leaf.Count,
				period: int64(leaf.Period), span: spanIndex(&r.spans, int64(leaf.Period)),
				aligned: alignedPeriod(leaf) > 0})
		}
	})
	r.policy = measure(sp, r.spans)
	if sp.Algo == typed.AlgoAnd || sp.Algo == typed.AlgoOr {
		r.op = sp.Algo
		for _, c := range sp.Of {
			r.children = append(r.children, measure(c, r.spans))
		}
	}
	for i := range r.windows {
		r.windows[i].measureAlone()
	}
	return r, nil
}

// spanIndex returns where span lies in *spans, appending it if it is not there.
func spanIndex(spans *[]int64, span int64) int {
	for i, s := range *spans {
		if s == span {
			return i
		}
	}
	*spans = append(*spans, span)
	return len(*spans) - 1
}

func (w *window) measureAlone() {
	sp, _ := typed.Parse(w.text)
	f := measure(sp, []int64{w.period})
	w.alone, w.lower = f.most[0], f.lower[0]
}

// measure computes the figures of sp, which is valid, over spans.
func measure(sp typed.Spec, spans []int64) figures {
	p := policy(newLimiter(sp))
	b := &budget{left: explainBudget}
	al := alignmentOf(sp)
	f := figures{text: sp.String(), refill: 0}
	common, rough := commonPeriod(sp)
	f.burst, f.sustained, f.steady, f.refill = steady(p, al.start(), common, b)
	f.steadyCut = b.over || rough
	slide := int64(0)
	if hasOr(sp) {
		slide = 2 * max(common, al.period)
	}
	f.most, f.lower = most(p, al, spans, slide, b)
	for i := range f.lower {
		f.lower[i] = f.lower[i] || al.rough || roughOr(sp)
	}
	return f
}

// steadyPeriods is how many common periods steady measures after the first.
const steadyPeriods = 4

// steady runs a greedy sender from start: what it takes at its first instant (the burst), what
// it takes in each common period after the first (every limit is then past its first period, and
// each repeats over a multiple of its own), and the longest time until full after any of its
// admissions (from the emptiest state it reaches). The rate is the mean over those periods; it
// is steady when every one of them took the same.
func steady(p policy, start, common int64, b *budget) (burst int64, r rate, steady bool, refill int64) {
	periods := make([]int64, steadyPeriods+1)
	horizon := max((steadyPeriods+1)*common, 1)
	replay(p, start, start+horizon, b, func(at int64, l limiter) {
		_, full := l.status(at)
		if at == start {
			burst++
		}
		if common > 0 {
			periods[(at-start)/common]++
		}
		if full == kernel.Never || refill == kernel.Never {
			refill = kernel.Never
		} else {
			refill = max(refill, full-at)
		}
	})
	r = rate{per: steadyPeriods * common}
	steady = true
	for _, n := range periods[1:] {
		r.n += n
		steady = steady && n == periods[1]
	}
	if steady {
		r = rate{n: periods[1], per: common}
	}
	return burst, r, steady, refill
}

// commonPeriod is the least common multiple of the periods of sp's leaves (0 for finite buckets
// alone), or the longest of them, rough, when that multiple exceeds maxLCM.
func commonPeriod(sp typed.Spec) (period int64, rough bool) {
	l, longest := int64(0), int64(0)
	leaves(sp, func(leaf typed.Spec) {
		if leaf.Period > 0 {
			l, longest = lcm(l, int64(leaf.Period)), max(longest, int64(leaf.Period))
		}
	})
	if l < 0 {
		return longest, true
	}
	return l, false
}

// binds reports whether child i binds the policy at span j: for an And, its count is the least
// of the children's; for an Or, the greatest.
func (r report) binds(i, j int) bool {
	c := r.children[i].most[j]
	for _, o := range r.children {
		if r.op == typed.AlgoAnd && o.most[j] < c || r.op == typed.AlgoOr && o.most[j] > c {
			return false
		}
	}
	return true
}
