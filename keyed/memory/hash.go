package memory

import (
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
)

// seed is a store's secret for hashing keys: a maphash.Seed for namespaces and for subjects
// longer than 16 bytes, and three random words for the shorter ones, which every check hashes.
//
// A short subject is read as two words, a and b (the first and last 8 bytes, or 4, or three of its
// bytes), and hashed as fold(fold(a^k0, b^k1)^len, k2), where fold multiplies two words into 128
// bits and folds the halves together with a xor: a few cycles, where maphash takes a call chain
// that cost a check of 10,000 subjects 5 ns. Both words are masked with secret keys before they
// meet, so no subject chosen without the keys can zero a factor; clients cannot pick subjects
// that collide, as they could if the table hashed with a known function.
type seed struct {
	long maphash.Seed
	k    [3]uint64
}

func newSeed() seed {
	return seed{long: maphash.MakeSeed(), k: [3]uint64{rand.Uint64(), rand.Uint64(), rand.Uint64() | 1}}
}

// hash returns the hash of the key b, whose framed namespace is n bytes long: the hashes of the
// namespace and of the rest, mixed, so that a bound limiter hashes its namespace once (see
// Store.bind) and the subject on each check. A key that is not framed (n = 0) hashes as an
// empty namespace and the whole key.
func (sd *seed) hash(b []byte, n int) uint64 {
	return mix(maphash.Bytes(sd.long, b[:n]), sd.subjectBytes(b[n:]))
}

// namespace returns the hash of a framed namespace.
func (sd *seed) namespace(prefix string) uint64 { return maphash.String(sd.long, prefix) }

// subject returns the hash of a subject; subjectBytes returns the same for its bytes.
func (sd *seed) subject(s string) uint64 {
	if len(s) > 16 {
		return maphash.String(sd.long, s)
	}
	a, b := words(s)
	return sd.short(a, b, len(s))
}

func (sd *seed) subjectBytes(s []byte) uint64 {
	if len(s) > 16 {
		return maphash.Bytes(sd.long, s)
	}
	a, b := words(s)
	return sd.short(a, b, len(s))
}

// short hashes a subject of n ≤ 16 bytes read as the words a and b.
func (sd *seed) short(a, b uint64, n int) uint64 {
	return fold(fold(a^sd.k[0], b^sd.k[1])^uint64(n), sd.k[2])
}

func fold(x, y uint64) uint64 {
	hi, lo := bits.Mul64(x, y)
	return hi ^ lo
}

// words reads a subject of at most 16 bytes as two words that hold all its bytes: the first and
// last 8, the first and last 4, or (for 1 to 3 bytes) its first, middle and last in one word.
func words[S string | []byte](s S) (a, b uint64) {
	switch n := len(s); {
	case n >= 8:
		return le64(s), le64(s[n-8:])
	case n >= 4:
		return le32(s), le32(s[n-4:])
	case n > 0:
		return uint64(s[0])<<16 | uint64(s[n/2])<<8 | uint64(s[n-1]), 0
	}
	return 0, 0
}

// le64 and le32 read the first 8 and 4 bytes of s, little-endian, in one load each.
func le64[S string | []byte](s S) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32[S string | []byte](s S) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

// mix combines the hashes of a key's namespace and subject. For one namespace it is a bijection
// of the subject's hash, which it leaves as evenly spread as it was; across namespaces it is not
// symmetric, as a plain xor would be: with a xor, the namespace and subject of one key swapped
// made another key of the same hash, and a namespace followed by itself hashed to 0, for every
// seed.
func mix(prefix, subject uint64) uint64 {
	return bits.RotateLeft64(prefix*0x9e3779b97f4a7c15, 32) ^ subject
}
