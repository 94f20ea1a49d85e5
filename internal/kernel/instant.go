package kernel

import "time"

// FromTime converts t to nanoseconds since the Unix epoch, clamped to the range an int64 can hold
// (the years 1677 to 2262): an earlier instant counts as MinInstant, a later one as MaxInstant.
func FromTime(t time.Time) int64 {
	// MinInstant is -9223372037s + 145224192ns; MaxInstant is 9223372036s + 854775806ns.
	sec, nsec := t.Unix(), int64(t.Nanosecond())
	switch {
	case sec > 9223372036 || sec == 9223372036 && nsec > 854775806:
		return MaxInstant
	case sec < -9223372037 || sec == -9223372037 && nsec < 145224192:
		return MinInstant
	}
	return sec*1e9 + nsec // wraps on the way, exact at the end: the result fits
}

// ToTime converts a kernel instant back to a time in loc, and reports false for Never.
func ToTime(ns int64, loc *time.Location) (time.Time, bool) {
	if ns == Never {
		return time.Time{}, false
	}
	return time.Unix(0, ns).In(loc), true
}
