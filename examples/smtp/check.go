package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/numerus-closus/numerus/typed"
)

// errExceeded matches the errors of verify: the traffic exceeded a limit of the policy.
var errExceeded = errors.New("limit exceeded")

// witness says whose instants verify checks, in the words it prints.
type witness struct {
	note string // a line printed first, if set
	saw  string // the subject and verb of the figures: "server saw"
	one  string // an instant: "arrival"
	many string // the instants: "arrivals at the server"
}

var (
	// atServer is the in-process server's record: the instant each message it accepted arrived.
	atServer = witness{saw: "server saw", one: "arrival", many: "arrivals at the server"}
	// atClient is the gate's: the instant each try was charged at, as Take returned it.
	atClient = witness{
		note: "the demo cannot see the arrivals at another server: these are the client's instants, at which the gate charged each try",
		saw:  "client was charged", one: "instant", many: "instants the client was charged at",
	}
)

// verify checks the instants at, which w saw, against the policy sp. On one line it prints, for
// each limit of sp that a count decides (see limitOf), the most instants in any window of that
// limit next to the limit; then whether sp, fresh, admits every instant replayed in order, the
// exact check. It returns an error matching errExceeded for each limit exceeded, naming it.
func verify(out io.Writer, sp typed.Spec, at []time.Time, w witness) error {
	at = inOrder(at)
	if w.note != "" {
		fmt.Fprintln(out, w.note)
	}
	figures, errs := countWindows(sp, at, w)
	if len(figures) > 0 {
		fmt.Fprintf(out, "%s at most %s\n", w.saw, strings.Join(figures, ", "))
	}
	return errors.Join(append(errs, replay(out, sp, at, w))...)
}

// countWindows returns the figures of verify's first line, and an error for each limit exceeded.
func countWindows(sp typed.Spec, at []time.Time, w witness) ([]string, []error) {
	var figures []string
	var errs []error
	for _, c := range conjuncts(sp) {
		l, ok := limitOf(c)
		if !ok {
			continue
		}
		n, from := mostInWindow(at, l.window)
		figures = append(figures, fmt.Sprintf("%d in any %s (limit %d)", n, span(l.window), l.most))
		if int64(n) > l.most {
			errs = append(errs, fmt.Errorf("%w: %d %s in the %s from %s, where %v allows %d",
				errExceeded, n, w.many, span(l.window), since(at, from), c, l.most))
		}
	}
	return figures, errs
}

// replay prints whether sp, fresh, admits every instant of at in order, and returns an error
// naming the limits that refuse the first it refuses.
func replay(out io.Writer, sp typed.Spec, at []time.Time, w witness) error {
	k := firstRefused(sp, at)
	if k < 0 {
		fmt.Fprintf(out, "replayed in order through %v (fresh): it admits all %d %s\n", sp, len(at), w.many)
		return nil
	}
	var by []string
	for _, c := range conjuncts(sp) { // until the first refusal, each conjunct saw what sp did
		if firstRefused(c, at[:k+1]) == k {
			by = append(by, c.String())
		}
	}
	fmt.Fprintf(out, "replayed in order through %v (fresh): it refuses %s %d of %d, %s, by %s\n",
		sp, w.one, k+1, len(at), since(at, at[k]), strings.Join(by, " and "))
	return fmt.Errorf("%w: %s refuses %s %d of the %d %s, %s, replayed in order",
		errExceeded, strings.Join(by, " and "), w.one, k+1, len(at), w.many, since(at, at[k]))
}

// firstRefused returns the index of the first instant of at that sp, fresh and deciding them one
// after another, refuses, or -1 if it admits every one.
func firstRefused(sp typed.Spec, at []time.Time) int {
	p := compile(sp)
	s := p.Fresh()
	for i, t := range at {
		next, _, ok := p.Debit(s, t)
		if !ok {
			return i
		}
		s = next
	}
	return -1
}

// conjuncts returns the parts of sp that must each admit for sp to admit: sp itself, or the
// conjuncts of each child of an And.
func conjuncts(sp typed.Spec) []typed.Spec {
	if sp.Algo != typed.AlgoAnd {
		return []typed.Spec{sp}
	}
	var out []typed.Spec
	for _, c := range sp.Of {
		out = append(out, conjuncts(c)...)
	}
	return out
}

// windowLimit is a limit that a count decides: at most most instants in any half-open span
// [t, t+window).
type windowLimit struct {
	window time.Duration
	most   int64
}

// limitOf returns the window limit of a leaf, if it has one: a sliding log n/w admits at most n in
// any span w; a rate N/P of burst b (gcra, token, leaky) at most b + N − 1 in any span P, which
// the rate's spacing bounds further (the replay decides that exactly). The other leaves (windows
// aligned on the epoch, the counter's estimate, a finite bucket) and an Or only the replay checks.
func limitOf(sp typed.Spec) (windowLimit, bool) {
	switch sp.Algo {
	case typed.AlgoSliding:
		return windowLimit{sp.Period, sp.Count}, true
	case typed.AlgoGCRA, typed.AlgoToken, typed.AlgoLeaky:
		b := max(sp.Burst, 1) // a burst of 0 is 1
		if sp.Count-1 > math.MaxInt64-b {
			return windowLimit{sp.Period, math.MaxInt64}, true
		}
		return windowLimit{sp.Period, b + sp.Count - 1}, true
	}
	return windowLimit{}, false
}

// mostInWindow returns the most instants of at in any half-open span [t, t+w), and the first
// instant of the first span that holds them (the zero time if none does: at is empty or w is not
// positive). It counts on its own, without numerus: it sorts a copy of at and walks it with two
// indexes, the first instant of a span and the first past it.
func mostInWindow(at []time.Time, w time.Duration) (int, time.Time) {
	s := slices.SortedFunc(slices.Values(at), time.Time.Compare)
	most, from := 0, time.Time{}
	for i, j := 0, 0; i < len(s); i++ {
		for j < len(s) && s[j].Sub(s[i]) < w {
			j++
		}
		if j-i > most {
			most, from = j-i, s[i]
		}
	}
	return most, from
}

// inOrder returns a sorted copy of at, each instant t written as t₀ + (t − t₀) from the first t₀:
// the wall readings that the policy decides by then agree with the monotonic ones that the
// instants were sorted and counted by, should the wall clock have been set in between.
func inOrder(at []time.Time) []time.Time {
	s := slices.SortedFunc(slices.Values(at), time.Time.Compare)
	for i := range s {
		s[i] = s[0].Add(s[i].Sub(s[0]))
	}
	return s
}

// since says when t came, after the first of at.
func since(at []time.Time, t time.Time) string {
	return t.Sub(at[0]).Round(time.Millisecond).String() + " after the first"
}

// span writes a window in the largest unit that divides it: 1s, 1m, 24h, 1050ms.
func span(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}, {time.Microsecond, "µs"}} {
		if d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + u.name
		}
	}
	return d.String()
}
