package keyed

import "strconv"

// Codec encodes subjects of type S into the bytes of a store key. AppendKey must be injective
// (two subjects appending the same bytes share a limit), must not keep dst, and should not
// allocate when dst has room. Subjects of different codecs should not share a namespace: the
// string "5" and the integer 5 encode alike.
type Codec[S any] interface {
	AppendKey(dst []byte, subject S) []byte
}

// CodecFunc turns a function into a [Codec].
type CodecFunc[S any] func(dst []byte, subject S) []byte

// AppendKey returns f(dst, subject).
func (f CodecFunc[S]) AppendKey(dst []byte, subject S) []byte { return f(dst, subject) }

// StringKey is the [Codec] of string subjects: their bytes, as they are.
type StringKey struct{}

// AppendKey appends the subject's bytes.
func (StringKey) AppendKey(dst []byte, subject string) []byte { return append(dst, subject...) }

// BytesKey is the [Codec] of byte-slice subjects: the bytes, as they are (a nil slice and an
// empty one are the same subject).
type BytesKey struct{}

// AppendKey appends the subject.
func (BytesKey) AppendKey(dst []byte, subject []byte) []byte { return append(dst, subject...) }

// Integer is the constraint of the integer types that [IntKey] encodes.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// IntKey is the [Codec] of integer subjects: their value in decimal, as in "-42".
type IntKey[T Integer] struct{}

// AppendKey appends the subject in decimal.
func (IntKey[T]) AppendKey(dst []byte, subject T) []byte {
	if subject < 0 {
		return strconv.AppendInt(dst, int64(subject), 10)
	}
	return strconv.AppendUint(dst, uint64(subject), 10)
}
