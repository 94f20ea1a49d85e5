package typed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// errZero is returned when saving a value that has no policy.
var errZero = errors.New("typed: a zero limiter has no policy to save")

// appendSnapshot writes l's snapshot: the version, its policy, then its leaves' words.
func appendSnapshot[L Limiter[L]](b []byte, l L) ([]byte, error) {
	sp := l.spec()
	if err := saveable(sp); err != nil {
		return b, err
	}
	b = append(b, Version)
	b = appendSpec(b, sp)
	ws := l.state(nil)
	i := 0
	sp.leaves(func(leaf Spec) {
		b = appendWords(b, leaf.Algo.kind(), ws[i])
		i++
	})
	return b, nil
}

// saveable reports errZero if a leaf of sp comes from a zero value: the only typed limiters
// without a valid policy, since the constructors and decoders validate theirs.
func saveable(sp Spec) error {
	var err error
	sp.leaves(func(l Spec) {
		if l.Count < 1 && err == nil {
			err = fmt.Errorf("%w (%s)", errZero, l.Algo)
		}
	})
	return err
}

// readSnapshot decodes a binary snapshot into *dst, which it leaves unchanged on error.
func readSnapshot[L Limiter[L]](dst *L, data []byte) error {
	d := decoder{b: data}
	d.version()
	sp := d.spec(0)
	ws := d.words(sp)
	d.end()
	if d.err != nil {
		return d.err
	}
	return restoreInto(dst, sp, ws) // which validates each leaf of sp
}

func restoreInto[L Limiter[L]](dst *L, sp Spec, ws [][]int64) error {
	var zero L
	st := &states{ws: ws}
	l, err := zero.restore(sp, st)
	if err != nil {
		return err
	}
	if st.i != len(ws) {
		return corruptf("state holds %d leaves, the policy %d", len(ws), st.i)
	}
	*dst = l
	return nil
}

// snapshotDoc is the JSON form of a snapshot, as it is written.
type snapshotDoc struct {
	Version int       `json:"version"`
	Policy  Spec      `json:"policy"`
	State   [][]int64 `json:"state"`
}

func snapshotJSON[L Limiter[L]](l L) ([]byte, error) {
	sp := l.spec()
	if err := saveable(sp); err != nil {
		return nil, err
	}
	return json.Marshal(snapshotDoc{Version: Version, Policy: sp, State: l.state(nil)})
}

func readSnapshotJSON[L Limiter[L]](dst *L, data []byte) error {
	sp, ws, err := decodeDoc(data)
	if err != nil {
		return err
	}
	return restoreInto(dst, sp, ws)
}

// snapshotIn is a JSON snapshot as it is read: the state is read once the policy is, and
// against it.
type snapshotIn struct {
	Version int             `json:"version"`
	Policy  Spec            `json:"policy"`
	State   json.RawMessage `json:"state"`
}

// decodeDoc reads a JSON snapshot, validates its version and policy (as Spec.UnmarshalJSON does),
// and reads its state against the policy.
func decodeDoc(data []byte) (Spec, [][]int64, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc snapshotIn
	if err := dec.Decode(&doc); err != nil {
		return Spec{}, nil, corruptWrap(err)
	}
	if rest(data, dec) {
		return Spec{}, nil, corruptf("data after the snapshot")
	}
	if doc.Version != Version {
		return Spec{}, nil, corruptf("unknown version %d", doc.Version)
	}
	sp := doc.Policy.legacy()
	ws, err := readStateJSON(doc.State, sp)
	return sp, ws, err
}

// rest reports whether data holds more than JSON white space after what dec decoded: dec.More
// would miss a stray ] or }.
func rest(data []byte, dec *json.Decoder) bool {
	for _, c := range data[dec.InputOffset():] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return true
		}
	}
	return false
}

// AppendSnapshot appends the binary snapshot of a limiter of p in state s, policy included,
// which ReadSnapshot reads back as p and s. It returns an error for the zero Policy, and one
// matching ErrCorrupt for a State p could never reach.
func (p Policy) AppendSnapshot(b []byte, s State) ([]byte, error) {
	ws, err := p.savedWords(s)
	if err != nil {
		return b, err
	}
	b = appendSpec(append(b, Version), p.c.spec)
	for i, w := range ws {
		b = appendWords(b, p.c.leaves[i].k, w)
	}
	return b, nil
}

// SnapshotJSON returns the JSON snapshot of a limiter of p in state s, which ReadSnapshotJSON
// reads back as p and s, with AppendSnapshot's errors.
func (p Policy) SnapshotJSON(s State) ([]byte, error) {
	ws, err := p.savedWords(s)
	if err != nil {
		return nil, err
	}
	return json.Marshal(snapshotDoc{Version: Version, Policy: p.c.spec.explicit(), State: ws})
}

// savedWords returns the words of s under p, validated as a reader validates them.
func (p Policy) savedWords(s State) ([][]int64, error) {
	if p.c == nil {
		return nil, errZero
	}
	ws := p.Words(s)
	if _, err := p.StateOf(ws); err != nil {
		return nil, err
	}
	return ws, nil
}

// ReadSnapshot reads the binary snapshot of any typed limiter, whatever its type, as the Policy
// of its spec and the State of its leaves: how a store or a tool reads snapshots it did not write.
// It validates like UnmarshalBinary and returns an error matching ErrCorrupt.
func ReadSnapshot(data []byte) (Policy, State, error) {
	d := decoder{b: data}
	d.version()
	sp := d.spec(0)
	ws := d.words(sp)
	d.end()
	if d.err != nil {
		return Policy{}, State{}, d.err
	}
	return policyState(sp, ws)
}

// ReadSnapshotJSON is ReadSnapshot for the JSON form of a snapshot.
func ReadSnapshotJSON(data []byte) (Policy, State, error) {
	sp, ws, err := decodeDoc(data)
	if err != nil {
		return Policy{}, State{}, err
	}
	return policyState(sp, ws)
}

func policyState(sp Spec, ws [][]int64) (Policy, State, error) {
	p, err := Compile(sp)
	if err != nil {
		return Policy{}, State{}, corruptWrap(err)
	}
	s, err := p.StateOf(ws)
	if err != nil {
		return Policy{}, State{}, err
	}
	return p, s, nil
}
