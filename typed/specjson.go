package typed

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// specDoc is the JSON object form of a Spec: of Spec children when it is written, of rawSpec
// children, not yet validated, when readSpec reads it.
type specDoc[S Spec | rawSpec] struct {
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
// object form, algo defaults to gcra and unknown fields are an error. Either form is validated as
// Parse validates the notation: a spec that Validate rejects is an error here, naming the
// parameter, so that a configuration file's mistake shows when it is read.
func (sp *Spec) UnmarshalJSON(data []byte) error {
	parsed, err := readSpec(data)
	if err == nil {
		err = parsed.Validate() // once, at the root, so that an error names its path
	}
	if err != nil {
		return err
	}
	*sp = parsed
	return nil
}

// readSpec reads a spec from either JSON form, as written: its children are read by rawSpec,
// which does not validate them one by one.
func readSpec(data []byte) (Spec, error) {
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '"' {
		var text string
		if err := json.Unmarshal(trimmed, &text); err != nil {
			return Spec{}, err
		}
		return parse(text)
	}
	if jsonDepth(data) > 2*maxDepth+1 { // each level of specs is an object holding an array
		return Spec{}, paramError("", "of", "nests more than "+strconv.Itoa(maxDepth)+" levels")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d specDoc[rawSpec]
	if err := dec.Decode(&d); err != nil {
		return Spec{}, err
	}
	if rest(data, dec) {
		return Spec{}, errors.New("typed: data after the policy's JSON value")
	}
	return d.spec()
}

// specs converts read children.
func specs[S Spec | rawSpec](raw []S) []Spec {
	of := make([]Spec, len(raw))
	for i, r := range raw {
		of[i] = Spec(r)
	}
	return of
}

// rawSpec is a child spec as JSON holds it, read by readSpec.
type rawSpec Spec

func (r *rawSpec) UnmarshalJSON(data []byte) error {
	sp, err := readSpec(data)
	*r = rawSpec(sp)
	return err
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

func (d specDoc[S]) spec() (Spec, error) {
	switch {
	case d.And != nil || d.Or != nil:
		if d.And != nil && d.Or != nil || d.Algo != "" || d.Limit != "" || d.Burst != 0 || d.In != 0 {
			return Spec{}, paramError("", "and", "an inner node holds only \"and\" or only \"or\"")
		}
		if d.And != nil {
			return Spec{Algo: AlgoAnd, Of: specs(d.And)}, nil
		}
		return Spec{Algo: AlgoOr, Of: specs(d.Or)}, nil
	}
	algo := d.Algo
	if algo == "" {
		algo = AlgoGCRA
	}
	if algo.kind() == kindNone || algo.kind().inner() {
		return Spec{}, paramError("", "algo", "must be one of gcra, token, leaky, finite, window, sliding, buckets, count; got "+string(d.Algo))
	}
	p := parser{}
	toks, err := lex(d.Limit)
	if err != nil {
		return Spec{}, err
	}
	p.toks = toks
	sp := Spec{Algo: algo, Burst: d.Burst, In: d.In}
	if sp.Count, err = p.number("a count"); err != nil {
		return Spec{}, err
	}
	if algo != AlgoFinite {
		if sp.Period, err = p.period(); err != nil {
			return Spec{}, err
		}
	}
	if p.peek().kind != tEnd {
		return Spec{}, p.expected("the end of the limit")
	}
	return sp, nil
}
