package typed

import "errors"

// readStateJSON reads data, the "state" of a JSON snapshot of a limiter of spec sp: an array
// holding, for each leaf of sp in pre-order, the array of its words. It checks what the state
// claims against the policy before it allocates for it: no more leaves than the policy's, and no
// more words than each leaf keeps (for a log, its last instant and a pair for each entry its
// policy can hold).
func readStateJSON(data []byte, sp Spec) ([][]int64, error) {
	most := make([]int64, 0, sp.countLeaves()) // the words each leaf may hold
	sp.leaves(func(l Spec) { most = append(most, mostWords(l)) })
	r := jsonCursor{b: data}
	var ws [][]int64
	more, err := r.open('[')
	for more && err == nil {
		if len(ws) == len(most) {
			return nil, corruptf("state holds more leaves than the policy's %d", len(most))
		}
		var w []int64
		if w, err = stateWords(&r, most[len(ws)]); err == nil {
			ws = append(ws, w)
			more, err = r.next(']')
		}
	}
	if err == nil && r.peek() != 0 {
		err = r.errorf("data after the state")
	}
	if err != nil && !errors.Is(err, ErrCorrupt) {
		err = corruptWrap(err)
	}
	if err != nil {
		return nil, err
	}
	return ws, nil
}

// mostWords is the most words the state of leaf holds: its algorithm's, or for a log its last
// instant and a pair for each entry its policy can hold.
func mostWords(leaf Spec) int64 {
	if k := leaf.Algo.kind(); !k.isLog() {
		return int64(k.nwords())
	}
	return 1 + 2*maxEntries(leaf)
}

// stateWords reads the array of a leaf's words, which holds at most most.
func stateWords(r *jsonCursor, most int64) ([]int64, error) {
	more, err := r.open('[')
	if err != nil || !more {
		return nil, err
	}
	n := values(r.b[r.i:])
	if n > most {
		return nil, corruptf("a leaf's state holds %d words, more than its policy's %d", n, most)
	}
	w := make([]int64, 0, n)
	for more && err == nil {
		var x int64
		if x, err = r.whole(); err == nil {
			w = append(w, x)
			more, err = r.next(']')
		}
	}
	return w, err
}

// values counts the values of an array of numbers whose '[' comes before b and holds something,
// looking ahead to its end: one more than its commas.
func values(b []byte) int64 {
	n := int64(1)
	for _, c := range b {
		switch c {
		case ']':
			return n
		case ',':
			n++
		}
	}
	return n
}
