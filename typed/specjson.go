package typed

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/numerus-closus/numerus/internal/limits"
)

// specDoc is the JSON object form of a Spec: of Spec children when it is written, of raw JSON
// children, which readSpec reads one by one, knowing their paths, when it is read.
type specDoc[S Spec | json.RawMessage] struct {
	Algo  Algo   `json:"algo,omitempty"`
	Limit string `json:"limit,omitempty"`
	Burst int64  `json:"burst,omitempty"`
	In    int64  `json:"in,omitempty"`
	And   []S    `json:"and,omitempty"`
	Or    []S    `json:"or,omitempty"`
}

// MarshalJSON writes sp as a JSON object: a leaf as {"algo":"gcra","limit":"10/s","burst":5}
// (limit in the notation: count/period, or the count alone for finite; burst and in only when
// set), an inner node as {"and":[...]} or {"or":[...]}.
func (sp Spec) MarshalJSON() ([]byte, error) {
	var d specDoc[Spec]
	switch sp.Algo.kind() {
	case kindAnd:
		d.And = sp.Of
	case kindOr:
		d.Or = sp.Of
	default:
		d.Algo, d.Burst, d.In = sp.Algo, sp.Burst, sp.In
		d.Limit = strings.TrimPrefix(Spec{Algo: sp.Algo, Count: sp.Count, Period: sp.Period}.String(), string(sp.Algo)+" ")
	}
	return json.Marshal(d)
}

// UnmarshalJSON reads sp from what MarshalJSON writes, or from a JSON string in the notation
// ("10/s burst 20 & window 1000/h"), which a configuration file may find easier to write. In the
// object form, a leaf without algo is read as the notation reads a limit without one: the sliding
// log ({"limit":"100/min"}), or a GCRA when it has a burst; unknown fields are an error. Either
// form is validated as Parse validates the notation: a spec that Validate rejects is an error
// here, naming the parameter, so that a configuration file's mistake shows when it is read.
func (sp *Spec) UnmarshalJSON(data []byte) error {
	parsed, err := readSpec(data, "")
	if err == nil {
		err = parsed.Validate() // once, at the root, so that an error names its path
	}
	if err != nil {
		return err
	}
	*sp = parsed
	return nil
}

// readSpec reads the spec at path from either JSON form, as written: not validated, but for the
// errors of its reading, which name the parameter by its path.
func readSpec(data []byte, path string) (Spec, error) {
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '"' {
		var text string
		if err := json.Unmarshal(trimmed, &text); err != nil {
			return Spec{}, err
		}
		return parse(text)
	}
	if jsonDepth(data) > 2*limits.Depth+1 { // each level of specs is an object holding an array
		return Spec{}, paramError(path, "of", tooDeep())
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d specDoc[json.RawMessage]
	if err := dec.Decode(&d); err != nil {
		return Spec{}, err
	}
	if rest(data, dec) {
		return Spec{}, errors.New("typed: data after the policy's JSON value")
	}
	return readDoc(d, path)
}

// readChildren reads the children of the inner node at path.
func readChildren(raw []json.RawMessage, path string) ([]Spec, error) {
	of := make([]Spec, len(raw))
	for i, r := range raw {
		var err error
		if of[i], err = readSpec(r, path+"of["+strconv.Itoa(i)+"]."); err != nil {
			return nil, err
		}
	}
	return of, nil
}

// jsonDepth returns how deeply the objects and arrays of the JSON text data nest, at most. It
// reads strings only to skip them, so that decoding a spec rejects a deep one before encoding/json
// reads it level by level, each level anew (a cost that grows with the square of the depth).
func jsonDepth(data []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range data {
		switch {
		case inString:
			inString, escaped = escaped || c != '"', !escaped && c == '\\'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// readDoc reads the spec at path from its object form.
func readDoc(d specDoc[json.RawMessage], path string) (Spec, error) {
	switch {
	case d.And != nil || d.Or != nil:
		if d.And != nil && d.Or != nil || d.Algo != "" || d.Limit != "" || d.Burst != 0 || d.In != 0 {
			return Spec{}, paramError(path, "and", "an inner node holds only \"and\" or only \"or\"")
		}
		if d.And != nil {
			of, err := readChildren(d.And, path)
			return Spec{Algo: AlgoAnd, Of: of}, err
		}
		of, err := readChildren(d.Or, path)
		return Spec{Algo: AlgoOr, Of: of}, err
	}
	algo := d.Algo
	if algo == "" {
		algo = bareAlgo(Spec{Burst: d.Burst, In: d.In})
	}
	if algo.kind() == kindNone || algo.kind().inner() {
		return Spec{}, paramError(path, "algo", "must be one of gcra, token, leaky, finite, window, sliding, buckets, count; got "+string(d.Algo))
	}
	count, period, err := readLimit(d.Limit, algo)
	return Spec{Algo: algo, Count: count, Period: period, Burst: d.Burst, In: d.In}, err
}
