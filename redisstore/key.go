package redisstore

import "strings"

// redisKey returns the Redis key of a subject's framed key: the framed key behind a hash tag of
// the store's own, four hex digits of a hash of the whole framed key. A cluster reads a key's slot
// from its first "{…}", so the slot is the store's choice, spread over the slots by the hash,
// and a subject that holds "{tag}" of its own cannot pile its keys, or anyone else's, onto one
// node. (A client that tries subjects until their hashes meet still can, as with any hash of a
// key: about one try in 16,384 a slot.)
func redisKey(framed []byte) string {
	h := uint32(2166136261) // 32-bit FNV-1a
	for _, c := range framed {
		h = (h ^ uint32(c)) * 16777619
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(6 + len(framed))
	b.WriteByte('{')
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hex[(h^h>>16)>>shift&0xf])
	}
	b.WriteByte('}')
	b.Write(framed)
	return b.String()
}

// What a key holds. A plain policy (one leaf that is not a log) keeps a string: the policy, a
// zero byte, and the leaf's state as little-endian doubles; a check is one GET and one PSETEX.
// Every other policy keeps a hash: field p holds the policy, field i the state of leaf i, and
// field i.n entry n of log leaf i (a log keeps at most its limit of entries and drops expired
// ones as it goes, reading O(log k) fields for k expired ones). A key of another type, one that
// lacks a field, or a number out of its range (tokens above the capacity, a latest instant
// before 1970 or past 2^52 µs, a TAT beyond its burst) is corrupt. The TTL is the time until
// full rounded up to the millisecond, plus one: Redis 7.2 and later count a TTL set in a script
// from the script's start, a little before the TIME the script reads. A spent finite bucket
// never refills, so its key is kept until 2255.
