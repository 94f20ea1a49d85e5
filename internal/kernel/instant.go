package kernel

import "time"

// FromTime converts t to nanoseconds since the Unix epoch, clamped to the range an int64 can hold
// (the years 1677 to 2262): an earlier instant counts as MinInstant, a later one as MaxInstant.
// An instant so early that t.Unix() wraps to a positive number (about 292 billion years BC) is
// told by t.Before, which does not wrap, and counts as MinInstant too.
func FromTime(t time.Time) int64 {
	// MinInstant is -9223372037s + 145224192ns; MaxInstant is 9223372036s + 854775806ns.
	if ns, ok := Instant(t); ok {
		return ns
	}
	sec, nsec := t.Unix(), int64(t.Nanosecond())
	switch {
	case t.Before(time.Unix(0, MinInstant)):
		return MinInstant
	case sec > 9223372036 || sec == 9223372036 && nsec > 854775806:
		return MaxInstant
	}
	return sec*1e9 + nsec // wraps on the way, exact at the end: the result fits
}

// Instant is FromTime for the years 1678 to 2261, small enough to be inlined: it returns the
// instant of t and true there, and false elsewhere (where FromTime clamps).
func Instant(t time.Time) (int64, bool) {
	sec := t.Unix()
	return sec*1e9 + int64(t.Nanosecond()), uint64(sec+9214560000) < 18429206400
}

// FullTime converts the instant a Status taken at FromTime(at) reports its limiter full, and
// reports false for Never: at itself when the limiter is full at the instant asked, even where
// at lies outside the years 1678 to 2262 and FromTime clamped it.
func FullTime(full int64, at time.Time) (time.Time, bool) {
	if full == FromTime(at) {
		return at, true
	}
	return ToTime(full, at.Location())
}

// ToTime converts a kernel instant back to a time in loc, and reports false for Never.
func ToTime(ns int64, loc *time.Location) (time.Time, bool) {
	if ns == Never {
		return time.Time{}, false
	}
	return time.Unix(0, ns).In(loc), true
}

// After returns the answer from, of a debit at ns = FromTime(at), as a duration after at, and true,
// when it is one: when from is an instant, not before ns, and FromTime did not clamp at (the
// answer would then be relative to the clamped instant, not to at).
func After(from, ns int64) (time.Duration, bool) {
	d := from - ns
	return time.Duration(d), from != Never && ns != MinInstant && ns != MaxInstant && d >= 0
}
