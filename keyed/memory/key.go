package memory

import "strings"

// key is a store key, split after its framed namespace (see prefixLen): a bound limiter's check
// carries the namespace and the subject as they are, a Request the bytes of the whole key, split
// at n. name is the namespace's number among the store's names. A key and a slot match when the
// namespace and the subject do: the split is a function of the whole key, so that is when the
// whole keys do.
type key struct {
	bytes   []byte    // a Request's key, nil for a bound check's
	n       int       // the length of the framed namespace in bytes
	prefix  string    // a bound check's namespace, framed
	subject string    // a bound check's subject
	name    uint16    // the namespace's number, or unnamed
	words   [2]uint64 // a bound check's subject of up to 16 bytes read as words, which hold all its bytes
}

// boundKey returns the key of a bound check: subject in the framed namespace prefix, numbered
// name.
func boundKey(prefix, subject string, name uint16) key {
	k := key{prefix: prefix, subject: subject, name: name}
	if len(subject) <= 16 {
		k.words[0], k.words[1] = words(subject)
	}
	return k
}

// requestKey returns the key of a Request's bytes.
func requestKey(b []byte) key { return key{bytes: b, n: prefixLen(b)} }

// matches reports whether k is the key of the slot sl, whose hash's high half matched.
func (k *key) matches(sl *slot) bool {
	if k.bytes == nil {
		return sl.holds(k.name, k.prefix, k.subject, k.words)
	}
	if sl.name != k.name || k.name == unnamed && sl.more.prefix != k.namespace() {
		return false
	}
	sub := k.bytes[k.n:]
	if sl.n == long {
		return string(sub) == sl.more.subject
	}
	return int(sl.n) == len(sub) && string(sl.sub[:sl.n]) == string(sub)
}

// holds reports whether sl is the entry of a bound check's key: subject in the framed namespace
// prefix, numbered name, whose words are w (see boundKey).
func (sl *slot) holds(name uint16, prefix, subject string, w [2]uint64) bool {
	if sl.name != name || name == unnamed && sl.more.prefix != prefix {
		return false
	}
	switch n := len(subject); {
	case sl.n == long:
		return subject == sl.more.subject
	case int(sl.n) != n:
		return false
	case n <= 16: // the words of n bytes hold them all: equal words, equal bytes
		return sl.words() == w
	}
	return string(sl.sub[:sl.n]) == subject
}

// words returns the words of the slot's subject, which must lie in sub (see boundKey).
func (sl *slot) words() [2]uint64 {
	a, b := words(sl.sub[:sl.n])
	return [2]uint64{a, b}
}

// namespace returns the framed namespace as a string of its own.
func (k *key) namespace() string {
	if k.bytes != nil {
		return string(k.bytes[:k.n])
	}
	return k.prefix
}

func (k *key) subjectLen() int {
	if k.bytes != nil {
		return len(k.bytes) - k.n
	}
	return len(k.subject)
}

func (k *key) copySubject(dst []byte) {
	if k.bytes != nil {
		copy(dst, k.bytes[k.n:])
		return
	}
	copy(dst, k.subject)
}

// subjectString returns the subject as a string of its own: a copy, never the caller's memory,
// which may be reused or pin a larger buffer.
func (k *key) subjectString() string {
	if k.bytes != nil {
		return string(k.bytes[k.n:])
	}
	return strings.Clone(k.subject)
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
