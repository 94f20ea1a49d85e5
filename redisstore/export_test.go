package redisstore

import "strings"

// Encoding returns the script's encoding of p, as stored in a key's p field, for tests.
func Encoding(p Policy) string {
	parts := make([]string, len(p.toks))
	for i, t := range p.toks {
		parts[i] = t.(string)
	}
	return strings.Join(parts, " ")
}
