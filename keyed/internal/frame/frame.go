// Package frame frames store keys: a namespace and a subject already encoded by its codec, as
// keyed.Request.Key documents them (the namespace's length in decimal, ':', the namespace, ':',
// then the subject). The length makes the framing injective: the key determines the namespace
// and the subject, whatever bytes they hold.
package frame

import "strconv"

// Append appends the key of subject in namespace to dst.
func Append(dst []byte, namespace string, subject []byte) []byte {
	return append(AppendPrefix(dst, namespace), subject...)
}

// AppendPrefix appends the framed namespace, the part of the key before the subject, to dst.
func AppendPrefix(dst []byte, namespace string) []byte {
	dst = strconv.AppendInt(dst, int64(len(namespace)), 10)
	dst = append(dst, ':')
	dst = append(dst, namespace...)
	return append(dst, ':')
}

// Split returns the namespace and the encoded subject of a key that Append made, and false if
// key is not one.
func Split(key []byte) (namespace string, subject []byte, ok bool) {
	i := 0
	for i < len(key) && key[i] >= '0' && key[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(key) || key[i] != ':' || (key[0] == '0' && i > 1) {
		return "", nil, false
	}
	n, err := strconv.Atoi(string(key[:i]))
	rest := key[i+1:]
	if err != nil || n > len(rest)-1 || rest[n] != ':' {
		return "", nil, false
	}
	return string(rest[:n]), rest[n+1:], true
}
