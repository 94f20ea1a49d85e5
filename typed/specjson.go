package typed

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/numerus-closus/numerus"
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

// UnmarshalJSON reads sp from what MarshalJSON writes, or from a JSON string in the notation. In
// the object form a leaf without algo reads as the notation reads it, and unknown fields are an
// error. The spec is validated, and held to the package's limits (at most 128 KiB of data), as
// it is read.
func (sp *Spec) UnmarshalJSON(data []byte) error {
	if len(data) > limits.Text {
		return paramError("", "spec", "is "+strconv.Itoa(len(data))+" bytes of JSON, more than the limit of "+
			strconv.Itoa(limits.Text))
	}
	parsed, err := readSpecJSON(data)
	if err == nil {
		err = parsed.Validate() // once, at the root, so that an error names its path
	}
	if err != nil {
		return err
	}
	*sp = parsed
	return nil
}

// specReader reads a spec from either JSON form, as written: not validated, but for the errors of
// its reading, which name the parameter by its path, and for the limits on a policy's size, which
// it checks before it reads what they bound.
type specReader struct {
	jsonCursor
	leaves int // the leaves read
}

func readSpecJSON(data []byte) (Spec, error) {
	r := specReader{jsonCursor: jsonCursor{b: data}}
	sp, err := r.spec("", 0)
	if err == nil && r.peek() != 0 {
		err = r.errorf("data after the policy's JSON value")
	}
	return sp, err
}

// spec reads the spec at path, at depth in the tree: a string in the notation, or an object.
func (r *specReader) spec(path string, depth int) (Spec, error) {
	switch r.peek() {
	case '"':
		text, err := r.str()
		if err != nil {
			return Spec{}, err
		}
		sp, err := parse(text)
		r.leaves += sp.countLeaves()
		return sp, err
	case '{':
		return r.object(path, depth)
	}
	return Spec{}, r.errorf("expected a spec: an object, or a string in the notation")
}

// specFields are the fields of a spec's object form, as read.
type specFields struct {
	algo, limit string
	burst, in   int64
	and, or     []Spec // nil when absent
}

// object reads the object at path.
func (r *specReader) object(path string, depth int) (Spec, error) {
	var f specFields
	more, err := r.open('{')
	for more && err == nil {
		var key []byte
		if key, err = r.name(); err == nil {
			err = r.token(':')
		}
		if err == nil {
			err = r.field(&f, key, path, depth)
		}
		if err == nil {
			more, err = r.next('}')
		}
	}
	if err != nil {
		return Spec{}, err
	}
	return f.spec(path, &r.leaves)
}

// field reads the value of the field key, matched as encoding/json matches names; null leaves a
// field as it is.
func (r *specReader) field(f *specFields, key []byte, path string, depth int) error {
	if r.null() {
		return nil
	}
	var err error
	is := func(name string) bool { return bytes.EqualFold(key, []byte(name)) }
	switch {
	case is("algo"):
		f.algo, err = r.str()
	case is("limit"):
		f.limit, err = r.str()
	case is("burst"):
		f.burst, err = r.whole()
	case is("in"):
		f.in, err = r.whole()
	case is("and"):
		f.and, err = r.children(path, depth)
	case is("or"):
		f.or, err = r.children(path, depth)
	default:
		return errors.New("typed: unknown field " + strconv.Quote(string(key)) + " in a spec")
	}
	if err != nil && !errors.As(err, new(*numerus.ParamError)) && !errors.Is(err, ErrSyntax) {
		return paramError(path, strings.ToLower(string(key)), err.Error())
	}
	return err
}

// children reads the array of the specs of an "and" or "or" at path and depth, within the
// limits on the children of a node and the depth of a tree.
func (r *specReader) children(path string, depth int) ([]Spec, error) {
	if r.peek() == '[' && depth >= limits.Depth {
		return nil, paramError(path, "of", tooDeep())
	}
	of := []Spec{}
	more, err := r.open('[')
	for more && err == nil {
		if len(of) == limits.Children {
			return nil, paramError(path, "of", tooWide())
		}
		var c Spec
		c, err = r.spec(path+"of["+strconv.Itoa(len(of))+"].", depth+1)
		switch {
		case err != nil:
			return nil, err
		case r.leaves > limits.Leaves:
			return nil, paramError("", "of", tooManyLeaves())
		}
		of = append(of, c)
		more, err = r.next(']')
	}
	if err == nil && len(of) < 2 {
		err = paramError(path, "of", tooFew(len(of)))
	}
	return of, err
}

// spec returns the spec at path that the fields f describe, counting a leaf into *leaves.
func (f specFields) spec(path string, leaves *int) (Spec, error) {
	switch {
	case f.and != nil || f.or != nil:
		if f.and != nil && f.or != nil || f.algo != "" || f.limit != "" || f.burst != 0 || f.in != 0 {
			return Spec{}, paramError(path, "and", "an inner node holds only \"and\" or only \"or\"")
		}
		if f.and != nil {
			return Spec{Algo: AlgoAnd, Of: f.and}, nil
		}
		return Spec{Algo: AlgoOr, Of: f.or}, nil
	}
	*leaves++
	algo := Algo(f.algo)
	if algo == "" {
		algo = bareAlgo(Spec{Burst: f.burst, In: f.in})
	}
	if algo.kind() == kindNone || algo.kind().inner() {
		return Spec{}, paramError(path, "algo", "must be one of gcra, token, leaky, finite, window, sliding, buckets, count; got "+f.algo)
	}
	count, period, err := readLimit(f.limit, algo)
	return Spec{Algo: algo, Count: count, Period: period, Burst: f.burst, In: f.in}, err
}
