package redisstore

import (
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/redis/go-redis/v9"
)

//go:embed engine.lua
var engineSource string

// ErrCorrupt is matched (with errors.Is) by the error of a check that found a subject's key in a
// state the script cannot trust: not a hash, a field missing or unreadable, tokens above the
// capacity, an impossible instant. Such a check never grants anything; Reset clears the key.
var ErrCorrupt = errors.New("redisstore: corrupt state")

const (
	opAcquire = "a"
	opPeek    = "p"
	opReset   = "r"
)

// request is one script call: its key and arguments, and the caller's instant in ns when the
// store sends its own time (zero otherwise).
type request struct {
	op, key string
	args    []any
	at      int64
}

func (r request) keys() []string { return []string{r.key} }

func (s *Store) reset(subject string) request {
	return request{op: opReset, key: s.Key(subject), args: []any{opReset}}
}

// request validates a check and builds its call, before any server call.
func (s *Store) request(op string, p Policy, subject string, cost int64) (request, error) {
	if err := valid(p); err != nil {
		return request{}, err
	}
	if cost < 1 {
		return request{}, &numerus.ParamError{Param: "cost", Problem: "must be at least 1, got " + strconv.FormatInt(cost, 10)}
	}
	r := request{op: op, key: s.Key(subject)}
	when := ""
	if s.now != nil {
		t := s.now()
		if t.Before(time.Unix(0, 0)) || t.UnixMicro() > maxInstant {
			return request{}, &numerus.ParamError{Param: "time", Problem: "must lie between 1970 and 2112"}
		}
		when, r.at = strconv.FormatInt(t.UnixMicro(), 10), t.UnixNano()
	}
	// Every capacity is below 2^53, so a larger cost is refused as Never all the same.
	r.args = append(make([]any, 0, 4+len(p.toks)), op, strconv.FormatInt(min(cost, maxExact), 10), when, s.minTTL)
	r.args = append(r.args, p.toks...)
	return r, nil
}

// decision reads the script's reply {allowed, remaining, limit, retry, full, now}.
func (r request) decision(cmd *redis.Cmd, s *Store) (Decision, error) {
	v, err := cmd.Int64Slice()
	if err != nil {
		return Decision{}, s.fail(r, err)
	}
	if len(v) != 6 {
		return Decision{}, fmt.Errorf("redisstore: %s %q: unexpected reply %v", r.name(), r.key, v)
	}
	base := r.at
	if base == 0 {
		base = v[5] * int64(time.Microsecond)
	}
	wait := func(us int64) Wait {
		if us < 0 {
			return Never()
		}
		return WaitFor(time.Duration(us*int64(time.Microsecond) - base))
	}
	return Decision{Allowed: v[0] == 1, Remaining: v[1], Limit: v[2], RetryAfter: wait(v[3]), ResetAfter: wait(v[4])}, nil
}

func (r request) name() string {
	switch r.op {
	case opAcquire:
		return "acquire"
	case opPeek:
		return "peek"
	}
	return "reset"
}

// fail wraps a call's error: ErrCorrupt for a state the script refused, the cause otherwise.
func (s *Store) fail(r request, err error) error {
	switch {
	case err == nil:
		return nil
	case redis.HasErrorPrefix(err, "NUMERUS_CORRUPT"):
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return fmt.Errorf("redisstore: %s %q: %w", r.name(), r.key, err)
}

// noScript reports whether err says the server does not hold the script (after SCRIPT FLUSH, a
// restart or a failover).
func noScript(err error) bool {
	return err != nil && (errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT"))
}
