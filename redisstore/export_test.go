package redisstore

import "github.com/numerus-closus/numerus/typed"

// Encoding returns the script's encoding of p, as stored in a key's p field, for tests.
func Encoding(p typed.Policy) (string, error) {
	pr, err := compile(p)
	if err != nil {
		return "", err
	}
	return pr.toks[0].(string), nil
}
