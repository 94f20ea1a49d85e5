package upstream

import (
	"github.com/dunglas/httpsfv"
)

// policy is what a RateLimit-Policy item says of a quota: q in each window of w (0 if unsaid).
type policy struct {
	limit  int64
	window int64 // seconds
}

// readIETF reads the fields of draft-ietf-httpapi-ratelimit-headers (-10, -11), Structured Field
// Lists (RFC 9651) of which each item is a quota policy named by a String (or a Token, as earlier
// drafts wrote it):
//
//	RateLimit-Policy: "burst";q=100;w=60, "daily";q=1000;w=86400
//	RateLimit: "burst";r=50;t=30, "daily";r=900;t=7200
//
// Each RateLimit item with a remaining count r ≥ 0 is a quota: r may go in the next t seconds,
// and then q in each window of w, as the RateLimit-Policy item of the same name and partition key
// (pk) says. Without t, the quota resets within w; an item with neither says nothing. A policy of
// another quota unit (qu) than "requests", such as "content-bytes", counts what a request count
// cannot pace, and says nothing either. A field that does not parse says nothing; an item whose
// parameters are not non-negative Integers where the draft wants them says nothing, and the
// other items stand.
func readIETF(policies, limits []string) []quota {
	if len(limits) == 0 {
		return nil
	}
	items, err := httpsfv.UnmarshalList(limits)
	if err != nil {
		return nil
	}
	known := readPolicies(policies)
	var qs []quota
	for _, m := range items {
		if q, ok := quotaOf(m, known); ok {
			qs = append(qs, q)
		}
	}
	return qs
}

// readPolicies reads RateLimit-Policy into the policies of each name and partition key; a field
// that does not parse has none.
func readPolicies(fields []string) map[string]policy {
	known := map[string]policy{}
	if len(fields) == 0 {
		return known
	}
	items, err := httpsfv.UnmarshalList(fields)
	if err != nil {
		return known
	}
	for _, m := range items {
		name, p, ok := policyOf(m)
		if _, seen := known[name]; ok && !seen { // the first of a name stands
			known[name] = p
		}
	}
	return known
}

func policyOf(m httpsfv.Member) (string, policy, bool) {
	it, name, ok := named(m)
	if !ok {
		return "", policy{}, false
	}
	if u, has := it.Params.Get("qu"); has && u != "requests" {
		return "", policy{}, false
	}
	q, okQ := count(it.Params, "q")
	w, okW := optional(it.Params, "w")
	return name, policy{limit: q, window: w}, okQ && okW && q > 0
}

// quotaOf reads one RateLimit item, with the policy of its name if known.
func quotaOf(m httpsfv.Member, known map[string]policy) (quota, bool) {
	it, name, ok := named(m)
	if !ok {
		return quota{}, false
	}
	r, okR := count(it.Params, "r")
	t, okT := optional(it.Params, "t")
	p := known[name]
	if !okR || !okT {
		return quota{}, false
	}
	if _, has := it.Params.Get("t"); !has {
		if t = p.window; t == 0 {
			return quota{}, false
		}
	}
	return quota{name: name, left: r, reset: seconds(t), limit: p.limit, window: seconds(p.window)}, true
}

// named returns an item and its name: its String or Token, with its partition key (pk, a Byte
// Sequence) if it has one.
func named(m httpsfv.Member) (httpsfv.Item, string, bool) {
	it, ok := m.(httpsfv.Item)
	if !ok {
		return it, "", false
	}
	var name string
	switch v := it.Value.(type) {
	case string:
		name = v
	case httpsfv.Token:
		name = string(v)
	default:
		return it, "", false
	}
	if pk, has := it.Params.Get("pk"); has {
		b, isBytes := pk.([]byte)
		if !isBytes {
			return it, "", false
		}
		name += "\x00" + string(b) // a String or a Token holds printable ASCII only: no NUL
	}
	return it, name, true
}

// count returns the parameter k, which must be a non-negative Integer.
func count(p *httpsfv.Params, k string) (int64, bool) {
	v, has := p.Get(k)
	n, isInt := v.(int64)
	return n, has && isInt && n >= 0
}

// optional returns the parameter k if it is there, a non-negative Integer; 0 and true if absent.
func optional(p *httpsfv.Params, k string) (int64, bool) {
	if _, has := p.Get(k); !has {
		return 0, true
	}
	return count(p, k)
}
