package redisstore

import (
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
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

// call is one script call: its key and arguments, and the caller's instant in ns (base) when the
// request carries one (caller true), from which the waits are measured.
type call struct {
	op, key string
	args    []any
	base    int64
	caller  bool
}

func (c call) keys() []string { return []string{c.key} }

func reset(r keyed.Request) call {
	return call{op: opReset, key: string(r.Key), args: []any{opReset}}
}

// call validates a check and builds its script call, before any server call.
func (s *Store) call(op string, r keyed.Request) (call, error) {
	pr, err := s.program(r.Policy)
	if err != nil {
		return call{}, err
	}
	cost := r.Cost
	if op == opPeek {
		cost = 1
	}
	if cost < 1 || cost > pr.limit {
		return call{}, &numerus.ParamError{Param: "cost", Problem: "must be from 1 to the capacity " +
			strconv.FormatInt(pr.limit, 10) + " of " + r.Policy.String() + ", got " + strconv.FormatInt(cost, 10)}
	}
	c := call{op: op, key: string(r.Key)}
	when := ""
	if !r.At.IsZero() {
		if r.At.Before(time.Unix(0, 0)) || r.At.UnixMicro() > maxInstant {
			return call{}, &numerus.ParamError{Param: "time", Problem: "must lie between 1970 and 2112 for the Redis store, got " + r.At.String()}
		}
		when, c.base, c.caller = strconv.FormatInt(r.At.UnixMicro(), 10), r.At.UnixNano(), true
	}
	c.args = append(make([]any, 0, 4+len(pr.toks)), op, strconv.FormatInt(cost, 10), when, s.minTTL)
	c.args = append(c.args, pr.toks...)
	return c, nil
}

// decision reads the script's reply {allowed, remaining, limit, retry, full, now}: instants in µs,
// -1 for never.
func (c call) decision(cmd *redis.Cmd) (keyed.Decision, error) {
	v, err := cmd.Int64Slice()
	if err != nil {
		return keyed.Decision{}, c.fail(err)
	}
	if len(v) != 6 {
		return keyed.Decision{}, fmt.Errorf("redisstore: %s %q: unexpected reply %v", c.name(), c.key, v)
	}
	base := c.base
	if !c.caller {
		base = v[5] * int64(time.Microsecond)
	}
	wait := func(us int64) keyed.Wait {
		if us < 0 {
			return keyed.Never()
		}
		return keyed.WaitFor(time.Duration(us*int64(time.Microsecond) - base))
	}
	d := keyed.Decision{Allowed: v[0] == 1, Remaining: max(v[1], 0), Limit: v[2], RetryAfter: wait(v[3]), ResetAfter: wait(v[4])}
	if d.Allowed {
		d.RetryAfter = keyed.WaitFor(0)
	}
	return d, nil
}

func (c call) name() string {
	switch c.op {
	case opAcquire:
		return "acquire"
	case opPeek:
		return "peek"
	}
	return "reset"
}

// fail wraps a call's error: ErrCorrupt for a state the script refused, the cause otherwise.
func (c call) fail(err error) error {
	switch {
	case err == nil:
		return nil
	case redis.HasErrorPrefix(err, "NUMERUS_CORRUPT"):
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return fmt.Errorf("redisstore: %s %q: %w", c.name(), c.key, err)
}

// noScript reports whether err says the server does not hold the script (after SCRIPT FLUSH, a
// restart or a failover).
func noScript(err error) bool {
	return err != nil && (errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT"))
}
