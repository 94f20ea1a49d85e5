package redisstore

import (
	"github.com/numerus-closus/numerus/typed"
	"github.com/redis/go-redis/v9"
)

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

// MustNew is New for tests, whose clients honour deadlines: it panics on an error.
func MustNew(client redis.UniversalClient, opts ...Option) *Store {
	s, err := New(client, opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// Queued returns how many acquires wait for a round trip of s, for tests.
func Queued(s *Store) int {
	s.co.mu.Lock()
	defer s.co.mu.Unlock()
	return len(s.co.queue)
}
