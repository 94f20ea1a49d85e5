package typed

import (
	"encoding/binary"
	"time"

	"github.com/numerus-closus/numerus/internal/limits"
)

// The binary format. A snapshot is:
//
//	version  one byte, Version (1)
//	policy   pre-order: a kind byte (1 gcra, 2 token, 3 leaky, 4 finite, 5 window, 6 count,
//	         7 sliding, 8 buckets, 9 and, 10 or), then its parameters as zig-zag varints:
//	         count, period (ns), and burst (gcra, token, leaky) or in (buckets); finite writes its
//	         count alone; and/or write their number of children (uvarint) and then the children
//	state    for each leaf in pre-order, its state words as zig-zag varints; a log writes its
//	         last instant, its number of live entries (uvarint), then (instant, tokens) pairs
//
// The state words are the kernels' own fields, instants in nanoseconds since the Unix epoch:
//
//	gcra     tat, tat fraction (in 1/N ns, where the rate is N tokens per P ns in lowest terms), last
//	token    tokens (scaled: one token is P units), last
//	leaky    level (scaled like tokens), last
//	finite   left
//	window   start, count, last
//	count    start, prev, cur, last
//	sliding  last, then (instant, tokens) for each live entry; buckets the same over sub-windows
//
// The JSON form is {"version":1,"policy":<Spec>,"state":[[words of leaf 0],[words of leaf 1],...]}.
// Both forms write the burst a gcra, token or leaky leaf decides by, the default included.
// Earlier writers wrote a burst left to its default, which was then the count, as 0 (and the
// JSON form left it out): a snapshot read with a burst of 0, or none, has the count for its
// burst, and so decides as it did when it was written. A State alone (Policy.AppendState) is
// the version, four bytes identifying its policy, and the state words of its leaves. The
// golden files under testdata pin the format.

// Version is the format version that snapshots and states are written in: their first byte.
// Readers keep every older version readable, and a new version never changes how an older one
// is read.
const Version = 1

// appendSpec writes sp in pre-order: the kind's code, then its parameters as varints; an inner
// node writes the number of its children and then each of them. A gcra, token or leaky leaf
// writes the burst it decides by, never 0: see [legacyBurst].
func appendSpec(b []byte, sp Spec) []byte {
	k := sp.Algo.kind()
	b = append(b, byte(k))
	switch {
	case k.inner():
		b = binary.AppendUvarint(b, uint64(len(sp.Of)))
		for _, c := range sp.Of {
			b = appendSpec(b, c)
		}
		return b
	case k == kindFinite:
		return binary.AppendVarint(b, sp.Count)
	}
	b = binary.AppendVarint(b, sp.Count)
	b = binary.AppendVarint(b, int64(sp.Period))
	switch {
	case k == kindGCRA || k == kindToken || k == kindLeaky:
		b = binary.AppendVarint(b, sp.burst())
	case k == kindBuckets:
		b = binary.AppendVarint(b, sp.In)
	}
	return b
}

// appendWords writes one leaf's words: each as a varint; a log's as its last instant, the number of
// entries, then the entries' pairs.
func appendWords(b []byte, k kind, w []int64) []byte {
	if k.isLog() {
		b = binary.AppendVarint(b, w[0])
		b = binary.AppendUvarint(b, uint64(len(w)/2))
		w = w[1:]
	}
	for _, x := range w {
		b = binary.AppendVarint(b, x)
	}
	return b
}

// decoder reads what appendSpec and appendWords wrote. The first problem sticks in err; reads
// after it return zeros. It checks every count it reads against the limits (see Limits in the
// package doc) and the bytes left before it allocates for what the count claims.
type decoder struct {
	b      []byte
	err    error
	leaves int // leaves read
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = corruptf(format, args...)
	}
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("truncated or overlong number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a number of items, each at least per bytes long, so no count exceeds the input.
func (d *decoder) count(per int) int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > uint64(len(d.b)-n)/uint64(per) {
		d.fail("truncated or impossible count")
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) spec(depth int) Spec {
	k := kind(d.byte())
	if d.err != nil {
		return Spec{}
	}
	if k == kindNone || k > kindOr {
		d.fail("unknown algorithm code %d", k)
		return Spec{}
	}
	sp := Spec{Algo: k.algo()}
	if k.inner() {
		sp.Of = d.children(k, depth)
		return sp
	}
	if d.leaves++; d.leaves > limits.Leaves {
		d.fail("policy %s", tooManyLeaves())
		return Spec{}
	}
	if k == kindFinite {
		sp.Count = d.varint()
		return sp
	}
	sp.Count, sp.Period = d.varint(), time.Duration(d.varint())
	switch {
	case k == kindGCRA || k == kindToken || k == kindLeaky:
		sp.Burst = legacyBurst(sp.Count, d.varint())
	case k == kindBuckets:
		sp.In = d.varint()
	}
	return sp
}

// children reads the children of an inner node of kind k at depth.
func (d *decoder) children(k kind, depth int) []Spec {
	if depth >= limits.Depth {
		d.fail("policy %s", tooDeep())
		return nil
	}
	n := d.count(2)
	switch {
	case d.err != nil:
		return nil
	case n > limits.Children:
		d.fail("%s %s", k.algo(), tooWide())
		return nil
	case n < 2:
		d.fail("%s %s", k.algo(), tooFew(n))
		return nil
	}
	// Grown as children are read: a count only bounds them by the bytes left, and nested counts
	// that each claim most of the input would otherwise allocate its size over again at every level.
	var of []Spec
	for range n {
		if of = append(of, d.spec(depth+1)); d.err != nil {
			return nil
		}
	}
	return of
}

// words reads the words of each leaf of sp, in pre-order. A log's count of entries is checked
// against what its policy can hold before any is read.
func (d *decoder) words(sp Spec) [][]int64 {
	var ws [][]int64
	sp.leaves(func(l Spec) {
		if d.err != nil {
			return
		}
		k := l.Algo.kind()
		if !k.isLog() {
			w := make([]int64, k.nwords())
			for i := range w {
				w[i] = d.varint()
			}
			ws = append(ws, w)
			return
		}
		last := d.varint()
		n := d.count(2)
		if limit := maxEntries(l); int64(n) > limit {
			d.fail("%s log holds %d entries, more than its policy's %d", l.Algo, n, limit)
		}
		if d.err != nil {
			return
		}
		w := make([]int64, 1+2*n)
		w[0] = last
		for i := range 2 * n {
			w[1+i] = d.varint()
		}
		ws = append(ws, w)
	})
	return ws
}

// readVersion reads and checks the version byte.
func (d *decoder) version() {
	if v := d.byte(); d.err == nil && v != Version {
		d.fail("unknown version %d", v)
	}
}

func (d *decoder) end() {
	if d.err == nil && len(d.b) > 0 {
		d.fail("%d bytes after the end", len(d.b))
	}
}
