package redisstore

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/limits"
	"github.com/numerus-closus/numerus/typed"
)

const (
	maxExact   = 1 << 53 // every number the script handles stays at or below it
	maxLog     = 1 << 50 // the largest limit of a sliding log, whose running count (rebased once past 2^50) then stays below 3·2^50
	maxSpan    = 1 << 51 // µs: the longest refill or window (about 71 years)
	maxInstant = 1 << 52 // µs since the epoch: the latest time (the year 2112)
	maxCached  = 1024    // compiled policies a Store keeps
)

// program is a typed.Policy in the script's terms, for one store: its text (its tokens joined by
// spaces, in prefix order: '&' or '|' and a child count, or a kind letter and its numbers), its
// constants packed (see plain.lua: the store's least TTL, and a plain policy's kind and numbers),
// both boxed once, its capacity and its number of leaves. Equal policies (deciding alike, however
// written) have equal texts.
type program struct {
	text, consts any // strings
	limit        int64
	leaves       int
}

// CheckPolicy reports whether the script can run p exactly, in integer microseconds with every
// number at or below 2^53 (see Exact arithmetic in the package documentation). It returns an
// error matching numerus.ErrInvalidArgument if not, and calls no server: keyed.New calls it
// before it returns a Limiter on the store.
func (s *Store) CheckPolicy(p typed.Policy) error {
	_, err := s.program(p)
	return err
}

// program returns p in the script's terms, from the store's cache when it holds it.
func (s *Store) program(p typed.Policy) (*program, error) {
	if v, ok := s.programs.Load(p); ok {
		return v.(*program), nil
	}
	pr, err := compile(p, s.minTTL.(string))
	if err != nil {
		return nil, err
	}
	if s.cached.Load() < maxCached {
		if v, loaded := s.programs.LoadOrStore(p, pr); loaded {
			return v.(*program), nil
		}
		s.cached.Add(1)
	}
	return pr, nil
}

// compile returns p in the script's terms for a store whose least TTL is minTTL ms, in decimal.
func compile(p typed.Policy, minTTL string) (*program, error) {
	if p == (typed.Policy{}) {
		return nil, &numerus.ParamError{Param: "policy", Problem: "is the zero typed.Policy: compile one with typed.Compile"}
	}
	var toks []string
	leaves := 0
	if err := encode(&toks, p.Spec(), "", 0, &leaves); err != nil {
		return nil, err
	}
	ttl, err := strconv.ParseInt(minTTL, 10, 64)
	if err != nil {
		return nil, err
	}
	pr := &program{text: strings.Join(toks, " "), consts: pack(ttl, toks), limit: p.Status(p.Fresh(), time.Unix(0, 0)).Limit, leaves: leaves}
	return pr, nil
}

// pack returns the constants of the policy of tokens toks for a store whose least TTL is ttl ms,
// as the script reads them (see plain.lua): little-endian doubles, the TTL, then, for a plain
// policy (one leaf that is not a log), its kind letter and five numbers; for any other, '-' and
// zeros, then every node of the policy, in prefix order, as its kind letter and three numbers
// (zeros past those it takes), which the script reads for far less than the text.
func pack(ttl int64, toks []string) string {
	var n [5]int64
	kind := "-"
	switch toks[0] {
	case "g", "t", "l", "f", "w", "c":
		kind = toks[0]
		for i, t := range toks[1:] {
			n[i], _ = strconv.ParseInt(t, 10, 64) // written by encode: valid
		}
		if kind == "g" { // the quotient and remainder of size·P by N
			n[3], n[4] = n[2]*n[1]/n[0], n[2]*n[1]%n[0]
		}
	}
	b := binary.LittleEndian.AppendUint64(nil, math.Float64bits(float64(ttl)))
	b = append(b, kind...)
	for _, x := range n {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(x)))
	}
	for i := 0; kind == "-" && i < len(toks); { // a kind, then its numbers, up to the next kind
		b = append(b, toks[i]...)
		j := i + 1
		for ; j < len(toks) && j-i <= 3; j++ {
			x, err := strconv.ParseInt(toks[j], 10, 64)
			if err != nil { // the next node's kind
				break
			}
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(x)))
		}
		for k := j - i; k <= 3; k++ {
			b = binary.LittleEndian.AppendUint64(b, 0)
		}
		i = j
	}
	return string(b)
}

// encode appends the tokens of sp, whose path in the tree is path, at depth depth, counting its
// leaves into *leaves. It holds the policy to the limits that package typed holds every policy to
// (see its doc), which bound the script's work and its text.
func encode(toks *[]string, sp typed.Spec, path string, depth int, leaves *int) error {
	switch sp.Algo {
	case typed.AlgoAnd, typed.AlgoOr:
		switch {
		case depth >= limits.Depth:
			return &numerus.ParamError{Param: path + "of", Problem: "nests more than " + strconv.Itoa(limits.Depth) + " levels, the limit"}
		case len(sp.Of) > limits.Children:
			return &numerus.ParamError{Param: path + "of", Problem: "holds " + strconv.Itoa(len(sp.Of)) +
				" specs, more than the limit of " + strconv.Itoa(limits.Children)}
		}
		op := "&"
		if sp.Algo == typed.AlgoOr {
			op = "|"
		}
		*toks = append(*toks, op, strconv.Itoa(len(sp.Of)))
		for i, c := range sp.Of {
			if err := encode(toks, c, path+"of["+strconv.Itoa(i)+"].", depth+1, leaves); err != nil {
				return err
			}
		}
		return nil
	}
	if *leaves++; *leaves > limits.Leaves {
		return &numerus.ParamError{Param: "of", Problem: "holds more than " + strconv.Itoa(limits.Leaves) + " leaves in all, the limit"}
	}
	switch sp.Algo {
	case typed.AlgoGCRA, typed.AlgoToken, typed.AlgoLeaky:
		return encodeBucket(toks, sp, path)
	case typed.AlgoFinite:
		if sp.Count >= maxExact {
			return tooLarge(path + "count")
		}
		*toks = append(*toks, "f", itoa(sp.Count))
		return nil
	}
	return encodeWindow(toks, sp, path)
}

// encodeBucket appends a gcra, token or leaky bucket: the rate reduced to N tokens per P µs, and
// the capacity.
func encodeBucket(toks *[]string, sp typed.Spec, path string) error {
	if sp.Count < 1 || sp.Period < 1 {
		return &numerus.ParamError{Param: path + "count", Problem: "and period must be positive"}
	}
	g := gcd(sp.Count, int64(sp.Period))
	n, p := sp.Count/g, int64(sp.Period)/g // n per p ns, that is n·1000 per p µs
	g = gcd(1000, p)
	if n > maxExact/(1000/g) {
		return tooLarge(path + "count")
	}
	n, p = n*(1000/g), p/g
	size := sp.Burst
	if size == 0 {
		size = 1 // typed.Spec's default
	}
	if size > (maxExact-n)/p || (size*p+n-1)/n > maxSpan {
		return tooLarge(path + "burst")
	}
	kind := "g"
	switch sp.Algo {
	case typed.AlgoToken:
		kind = "t"
	case typed.AlgoLeaky:
		kind = "l"
	}
	*toks = append(*toks, kind, itoa(n), itoa(p), itoa(size))
	return nil
}

// encodeWindow appends a fixed window or sliding counter (width in µs, limit, origin 0: package
// typed aligns windows on the epoch), a sliding log (width, limit) or a bucketed one (width,
// limit, sub-window).
func encodeWindow(toks *[]string, sp typed.Spec, path string) error {
	if sp.Period < 1 || sp.Period%time.Microsecond != 0 {
		return &numerus.ParamError{Param: path + "period", Problem: "must be a whole number of microseconds for the Redis store, got " + sp.Period.String()}
	}
	w := int64(sp.Period / time.Microsecond)
	switch {
	case w > maxSpan:
		return tooLarge(path + "period")
	case sp.Count < 1 || sp.Count >= maxExact,
		(sp.Algo == typed.AlgoSliding || sp.Algo == typed.AlgoBuckets) && sp.Count > maxLog:
		return tooLarge(path + "count")
	}
	switch sp.Algo {
	case typed.AlgoWindow:
		*toks = append(*toks, "w", itoa(w), itoa(sp.Count), "0")
	case typed.AlgoCount:
		if hi, lo := bits.Mul64(uint64(sp.Count), uint64(w)); hi != 0 || lo > maxExact {
			return tooLarge(path + "count")
		}
		*toks = append(*toks, "c", itoa(w), itoa(sp.Count), "0")
	case typed.AlgoSliding:
		*toks = append(*toks, "s", itoa(w), itoa(sp.Count))
	case typed.AlgoBuckets:
		if sp.In < 1 || w%sp.In != 0 {
			return &numerus.ParamError{Param: path + "in", Problem: "must split the period into whole microseconds for the Redis store"}
		}
		*toks = append(*toks, "b", itoa(w), itoa(sp.Count), itoa(w/sp.In))
	default:
		return &numerus.ParamError{Param: path + "algo", Problem: "is unknown: " + strconv.Quote(string(sp.Algo))}
	}
	return nil
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func tooLarge(param string) error {
	return &numerus.ParamError{Param: param, Problem: "is too large for exact arithmetic in microseconds (2^53) in the Redis store"}
}
