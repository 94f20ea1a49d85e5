package kernel

import (
	"strconv"
	"time"
)

// Status is what a kernel reports at an instant: its capacity, the whole tokens it holds (rounded
// down) and the instant it is back to full (Never if it never is).
type Status struct {
	Limit, Remaining, Full int64
}

// Rate is n tokens per p nanoseconds, reduced to lowest terms, with the form it was written in kept
// for display.
type Rate struct {
	N, P   int64 // reduced: N tokens every P ns
	shownN int64
	shownP int64
}

// NewRate reduces n per p; both must be positive.
func NewRate(n, p int64) Rate {
	g := GCD(n, p)
	return Rate{N: n / g, P: p / g, shownN: n, shownP: p}
}

// String writes the rate as the notation does: "10/s", "500/7d", "3/1500ms".
func (r Rate) String() string {
	return strconv.FormatInt(r.shownN, 10) + "/" + FormatPeriod(r.shownP)
}

var units = []struct {
	name string
	ns   int64
}{
	{"d", int64(24 * time.Hour)}, {"h", int64(time.Hour)}, {"m", int64(time.Minute)},
	{"s", int64(time.Second)}, {"ms", int64(time.Millisecond)}, {"us", int64(time.Microsecond)},
	{"ns", 1},
}

// FormatPeriod writes p ns with the largest unit that divides it, dropping a multiplier of one:
// "s", "7d", "1500ms".
func FormatPeriod(p int64) string {
	for _, u := range units {
		if p%u.ns == 0 {
			if p == u.ns {
				return u.name
			}
			return strconv.FormatInt(p/u.ns, 10) + u.name
		}
	}
	return strconv.FormatInt(p, 10) + "ns"
}

// FitsBurst reports whether burst tokens at rate r can be computed exactly: burst·P plus one
// interval's remainder must fit in an int64.
func (r Rate) FitsBurst(burst int64) bool {
	return burst <= (MaxInstant-r.N)/r.P
}

// Frac is an instant with a Fractional part: Q + R/n nanoseconds, 0 ≤ R < n.
type Frac struct{ Q, R int64 }

// after reports whether f lies strictly after the whole instant at.
func (f Frac) after(at int64) bool { return f.Q > at || (f.Q == at && f.R > 0) }

// plus adds s/n nanoseconds (s ≥ 0, s + n fits in int64).
func (f Frac) plus(s, n int64) Frac {
	if n == 1 { // whole nanoseconds: R is 0, and dividing by one is not free
		return Frac{AddSat(f.Q, s), 0}
	}
	t := f.R + s%n
	q := AddSat(f.Q, s/n+t/n)
	return Frac{q, t % n}
}

// minus subtracts s/n nanoseconds (s ≥ 0).
func (f Frac) minus(s, n int64) Frac {
	if n == 1 {
		return Frac{SubSat(f.Q, s), 0}
	}
	q, r := SubSat(f.Q, s/n), f.R-s%n
	if r < 0 {
		q, r = SubSat(q, 1), r+n
	}
	return Frac{q, r}
}

// ceil rounds up to a whole nanosecond.
func (f Frac) ceil() int64 {
	if f.R > 0 {
		return AddSat(f.Q, 1)
	}
	return f.Q
}

// scaledSince returns (f − at)·n for f after at, where the difference is known to fit.
func (f Frac) scaledSince(at, n int64) int64 {
	return int64(diff(at, f.Q))*n + f.R
}
