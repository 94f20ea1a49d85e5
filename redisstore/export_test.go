package redisstore

import (
	"strings"

	"github.com/numerus-closus/numerus/typed"
)

// Encoding returns the script's encoding of p, as stored in a key's p field, for tests.
func Encoding(p typed.Policy) (string, error) {
	pr, err := compile(p)
	if err != nil {
		return "", err
	}
	parts := make([]string, len(pr.toks))
	for i, t := range pr.toks {
		parts[i] = t.(string)
	}
	return strings.Join(parts, " "), nil
}
