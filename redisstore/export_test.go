package redisstore

// Encoding returns the script's encoding of p, for tests.
func Encoding(p Policy) string { return p.enc }
