package redisstore

import "github.com/numerus-closus/numerus/typed"

// Encoding returns the script's encoding of p, as stored in a key's p field, for tests.
func Encoding(p typed.Policy) (string, error) {
	pr, err := compile(p, "1")
	if err != nil {
		return "", err
	}
	return pr.text.(string), nil
}

// RedisKey returns the Redis key of a keyed Limiter's key, for tests.
func RedisKey(framed string) string { return redisKey([]byte(framed)) }

// Queued returns how many acquires wait for a round trip of s, for tests.
func Queued(s *Store) int {
	s.co.mu.Lock()
	defer s.co.mu.Unlock()
	return len(s.co.queue)
}
