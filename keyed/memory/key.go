package memory

import (
	"hash/maphash"
	"math/bits"
)

// key is a store key: bytes, as a Request carries it, or else prefix+subject, as a bound
// limiter's check carries it without framing it.
type key struct {
	bytes   []byte
	prefix  string
	subject string
}

// matches reports whether k is the key s.
func (k *key) matches(s string) bool {
	if k.bytes != nil {
		return s == string(k.bytes)
	}
	n := len(k.prefix)
	return len(s) == n+len(k.subject) && s[:n] == k.prefix && s[n:] == k.subject
}

// String returns the key, for an entry to keep: a copy, never the caller's buffer.
func (k *key) String() string {
	if k.bytes != nil {
		return string(k.bytes)
	}
	return k.prefix + k.subject
}

// hash returns the hash of the key b: the hashes of its framed namespace and of the rest, mixed,
// so that a bound limiter hashes its namespace once (see [Store.Bind]) and the subject on each
// check. A key that is not framed hashes as an empty namespace and the whole key.
func hash(seed maphash.Seed, b []byte) uint64 {
	n := prefixLen(b)
	return mix(maphash.Bytes(seed, b[:n]), maphash.Bytes(seed, b[n:]))
}

// mix combines the hashes of a key's namespace and subject. For one namespace it is a bijection
// of the subject's hash, which it leaves as evenly spread as it was; across namespaces it is not
// symmetric, as a plain xor would be: with a xor, the namespace and subject of one key swapped
// made another key of the same hash, and a namespace followed by itself hashed to 0, for every
// seed.
func mix(prefix, subject uint64) uint64 {
	return bits.RotateLeft64(prefix*0x9e3779b97f4a7c15, 32) ^ subject
}

// prefixLen returns the length of the framed namespace that key starts with ("9:ratelimit:", as
// keyed frames it: the namespace's length in decimal, ':', the namespace, ':'), or 0 if it does
// not start with one. It reads the key's own framing only, so the key prefix+subject splits
// after prefix whatever the subject holds.
func prefixLen[K []byte | string](key K) int {
	i, n := 0, 0
	for ; i < len(key) && '0' <= key[i] && key[i] <= '9'; i++ {
		if n = n*10 + int(key[i]-'0'); n > len(key) {
			return 0
		}
	}
	if i == 0 || n > len(key)-i-2 || key[i] != ':' || key[i+1+n] != ':' {
		return 0
	}
	return i + n + 2
}
