package memory

// key is a store key, split after its framed namespace (see prefixLen): a bound limiter's check
// carries the namespace and the subject as they are, a Request the bytes of the whole key, split
// at n. A key and an entry match when both parts do: the split is a function of the whole key,
// so that is when the whole keys do.
type key struct {
	bytes   []byte // a Request's key, nil for a bound check's
	n       int    // the length of the framed namespace in bytes
	prefix  string // a bound check's namespace, framed
	subject string // a bound check's subject
}

// requestKey returns the key of a Request's bytes.
func requestKey(b []byte) key { return key{bytes: b, n: prefixLen(b)} }

// matches reports whether k is the key of e. The namespace of an entry that a bound check made
// is the bound's own string, so for a bound check the string compare ends at the address; an
// entry a Request made holds a copy, compared byte by byte.
func (k *key) matches(e *entry) bool {
	if k.bytes != nil {
		return string(k.bytes[k.n:]) == e.subject && string(k.bytes[:k.n]) == e.prefix
	}
	return k.subject == e.subject && k.prefix == e.prefix
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
