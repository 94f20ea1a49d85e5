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
