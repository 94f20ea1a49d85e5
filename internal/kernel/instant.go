package kernel

import "time"

// FromTime converts t to nanoseconds since the Unix epoch, clamped to the range an int64 can hold
// (the years 1677 to 2262): an earlier instant counts as MinInstant, a later one as MaxInstant.
func FromTime(t time.Time) int64 {
	const maxSec = MaxInstant/1e9 - 1
	switch sec := t.Unix(); {
	case sec > maxSec:
		return MaxInstant
	case sec < -maxSec:
		return MinInstant
	}
	return t.UnixNano()
}

// ToTime converts a kernel instant back to a time in loc, and reports false for Never.
func ToTime(ns int64, loc *time.Location) (time.Time, bool) {
	if ns == Never {
		return time.Time{}, false
	}
	return time.Unix(0, ns).In(loc), true
}
