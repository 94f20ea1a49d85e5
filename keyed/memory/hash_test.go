package memory

import (
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// TestSubjectForms: a subject hashes alike as a string (a bound check's) and as bytes (a
// Request's), at every length, short and long.
func TestSubjectForms(t *testing.T) {
	sd := newSeed()
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "subject")
		if sd.subject(string(b)) != sd.subjectBytes(b) {
			t.Fatalf("%q hashes apart as a string and as bytes", b)
		}
	})
}

// TestSubjectEveryBit: flipping any one bit of a short subject changes its hash, so the words it
// is read as hold every byte of it; and subjects that differ only in length (a byte and the same
// byte three times) hash apart.
func TestSubjectEveryBit(t *testing.T) {
	sd := newSeed()
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(rapid.Byte(), 1, 16).Draw(t, "subject")
		h := sd.subjectBytes(b)
		for i := range len(b) * 8 {
			c := append([]byte(nil), b...)
			c[i/8] ^= 1 << (i % 8)
			if sd.subjectBytes(c) == h {
				t.Fatalf("%q and %q hash alike", b, c)
			}
		}
	})
	for _, pair := range [][2]string{{"a", "aaa"}, {"", "\x00"}, {"ab", "abb"}, {"abcd", "abcdabcd"}} {
		if sd.subject(pair[0]) == sd.subject(pair[1]) {
			t.Errorf("%q and %q hash alike", pair[0], pair[1])
		}
	}
}

// TestSubjectSpread: the bits that pick a shard (the lowest) and a slot (from bit 32 on) spread
// sequential subjects and short ones evenly: a chi-squared statistic over 64 buckets stays far
// below what a skewed hash gives (its mean is 63 for an even one; 150 has odds of about 10^-8).
func TestSubjectSpread(t *testing.T) {
	sd := newSeed()
	sets := map[string]func(i int) string{
		"sequential": func(i int) string { return "subject:" + strconv.Itoa(i) },
		"short":      func(i int) string { return strconv.Itoa(i) },
		"ipv4":       func(i int) string { return "10.0." + strconv.Itoa(i>>8) + "." + strconv.Itoa(i&255) },
	}
	const n, buckets = 1 << 16, 64
	for name, subject := range sets {
		var low, high [buckets]float64
		for i := range n {
			h := mix(sd.namespace("9:ratelimit:"), sd.subject(subject(i)))
			low[h%buckets]++
			high[(h>>32)%buckets]++
		}
		for part, counts := range map[string][buckets]float64{"shard": low, "slot": high} {
			chi := 0.0
			for _, c := range counts {
				d := c - n/buckets
				chi += d * d / (n / buckets)
			}
			if chi > 150 {
				t.Errorf("%s subjects, %s bits: chi-squared %.0f over %d buckets", name, part, chi, buckets)
			}
		}
	}
}

// TestSubjectFormsEveryLength: TestSubjectForms at each length from 0 to 40 in turn, so that the
// lengths where the short hash gives way to maphash (16 and 17) are always checked.
func TestSubjectFormsEveryLength(t *testing.T) {
	sd := newSeed()
	for n := range 41 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + (i*7+n)%26)
		}
		if sd.subject(string(b)) != sd.subjectBytes(b) {
			t.Errorf("%q (%d bytes) hashes apart as a string and as bytes", b, n)
		}
	}
}

// TestSubjectHalvesApart: a 16-byte subject and the same with its halves swapped hash apart, as
// they would for every seed if both words were masked with the same key.
func TestSubjectHalvesApart(t *testing.T) {
	sd := newSeed()
	rapid.Check(t, func(t *rapid.T) {
		a := string(rapid.SliceOfN(rapid.Byte(), 8, 8).Draw(t, "first"))
		last := rapid.SliceOfN(rapid.Byte(), 8, 8).Draw(t, "last")
		if string(last) == a { // make the halves differ, so that swapping them changes the subject
			last[7] ^= 1
		}
		b := string(last)
		if sd.subject(a+b) == sd.subject(b+a) {
			t.Fatalf("%q and %q hash alike", a+b, b+a)
		}
	})
}

// TestSeedLastKeyOdd: every seed's last key is odd, not only most (TestSubjectSpread checks one).
func TestSeedLastKeyOdd(t *testing.T) {
	for range 64 {
		if k := newSeed().k[2]; k&1 == 0 {
			t.Fatalf("the last key %#x is even", k)
		}
	}
}
