package redisstore

import (
	"context"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/limits"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/redis/go-redis/v9"
)

// The script, in three files: the plain path with the leaves' algorithms, the engine of trees,
// logs and policy changes, and the main part (see plain.lua), after the limits on a policy's size
// that every layer of numerus shares (see internal/limits), which the engine checks a policy's
// text against.
var (
	//go:embed plain.lua
	plainLua string
	//go:embed engine.lua
	engineLua string
	//go:embed main.lua
	mainLua string

	limitsLua = "local MAXDEPTH, MAXKIDS, MAXLEAVES = " + strconv.Itoa(limits.Depth) + ", " +
		strconv.Itoa(limits.Children) + ", " + strconv.Itoa(limits.Leaves) + "\n"
	engineSource = limitsLua + plainLua + "\n" + engineLua + "\n" + mainLua
)

// ErrCorrupt is matched (with errors.Is) by the error of a check that found a subject's key in a
// state the script cannot trust: of another type, a field missing or unreadable, tokens above the
// capacity, an impossible instant. Such a check never grants anything; Reset clears the key.
var ErrCorrupt = errors.New("redisstore: corrupt state")

const (
	opAcquire = "a"
	opPeek    = "p"
	opReset   = "r"
)

// call is one check: its key, its numbers as the script reads them (cost and the caller's time in
// µs, or -1 for the server's, packed: see plain.lua), its policy, and the caller's instant in ns
// (base) when the request carries one (caller true), from which the waits are measured.
type call struct {
	op, key string
	nums    any // a string, or nil for a cost of 1 at the server's time: the script's default
	pr      *program
	base    int64
	caller  bool
}

func (c call) keys() []string { return []string{c.key} }

// argv returns the arguments of the check's own script call.
func (c call) argv(minTTL any) []any {
	return c.appendArgv(make([]any, 0, c.argc()), minTTL)
}

// argc is the number of the check's script arguments.
func (c call) argc() int {
	switch {
	case c.op == opReset:
		return 1
	case c.nums == nil:
		return 4
	}
	return 5
}

// appendArgv appends the check's script arguments to args.
func (c call) appendArgv(args []any, minTTL any) []any {
	switch c.op { // constants, which box without an allocation
	case opAcquire:
		args = append(args, opAcquire)
	case opPeek:
		args = append(args, opPeek)
	default:
		return append(args, opReset)
	}
	args = append(args, minTTL, c.pr.text, c.pr.consts)
	if c.nums != nil {
		args = append(args, c.nums)
	}
	return args
}

// command returns the check's script call as one command, verb (evalsha or eval) of script (the
// hash or the source) on the check's key, its arguments in the command's own slice: what
// redis.Script.Run sends, without its two intermediate slices.
func (c call) command(ctx context.Context, verb string, script, minTTL any) *redis.Cmd {
	args := append(make([]any, 0, 4+c.argc()), verb, script, "1", c.key)
	cmd := redis.NewCmd(ctx, c.appendArgv(args, minTTL)...)
	cmd.SetFirstKeyPos(3) // the key, where a cluster client reads the slot from
	return cmd
}

func reset(r keyed.Request) call {
	return call{op: opReset, key: redisKey(r.Key)}
}

// costs holds the numbers of checks of small costs at the server's time, packed and boxed once;
// nil for a cost of 1, the script's default.
var costs = func() (a [65]any) {
	for i := range a {
		if i != 1 {
			a[i] = packCall(int64(i), -1)
		}
	}
	return a
}()

// packCall returns a check's numbers as the script reads them: cost, and the caller's time in µs
// or -1 for the server's, as little-endian doubles (exact: both are below 2^53).
func packCall(cost, at int64) string {
	b := make([]byte, 0, 16)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(cost)))
	return string(binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(at))))
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
	c := call{op: op, key: redisKey(r.Key), pr: pr}
	if !r.At.IsZero() {
		if r.At.Before(time.Unix(0, 0)) || !r.At.Before(time.UnixMicro(maxInstant+1)) {
			return call{}, &numerus.ParamError{Param: "time", Problem: "must lie between 1970 and 2112 for the Redis store, got " + r.At.String()}
		}
		c.nums, c.base, c.caller = packCall(cost, r.At.UnixMicro()), r.At.UnixNano(), true
	} else if cost < int64(len(costs)) {
		c.nums = costs[cost]
	} else {
		c.nums = packCall(cost, -1)
	}
	return c, nil
}

// decision reads the script's reply (see read).
func (c call) decision(cmd *redis.Cmd) (keyed.Decision, error) {
	v, err := cmd.Text()
	if err != nil {
		return keyed.Decision{}, c.fail(err)
	}
	return c.read(v)
}

// replySize is the length of the script's reply to one check: eight doubles.
const replySize = 64

// read reads the script's reply to one check: eight little-endian doubles, allowed (0 or 1),
// remaining, limit, the retry, full, current and next instants in µs (-1 for never), and the
// index of the binding leaf, which must be one of the policy's.
func (c call) read(reply string) (keyed.Decision, error) {
	if len(reply) != replySize {
		return keyed.Decision{}, fmt.Errorf("redisstore: %s %q: unexpected reply %q", c.name(), c.key, reply)
	}
	var v [8]int64
	for i := range v {
		f := math.Float64frombits(binary.LittleEndian.Uint64([]byte(reply[8*i : 8*i+8])))
		if f != math.Trunc(f) || f < -1 || f > 1<<53 { // NaN, ±Inf, a fraction: not the script's
			return keyed.Decision{}, fmt.Errorf("redisstore: %s %q: unexpected number %v in reply %q", c.name(), c.key, f, reply)
		}
		v[i] = int64(f)
	}
	if v[7] < 0 || v[7] >= int64(c.pr.leaves) {
		return keyed.Decision{}, fmt.Errorf("redisstore: %s %q: unexpected binding limit %d in reply %q", c.name(), c.key, v[7], reply)
	}
	base := c.base
	if !c.caller {
		base = v[5] * int64(time.Microsecond)
	}
	wait := func(us int64) keyed.Duration {
		if us < 0 {
			return keyed.Duration{}
		}
		return keyed.DurationOf(time.Duration(us*int64(time.Microsecond) - base))
	}
	d := keyed.Decision{Allowed: v[0] == 1, Remaining: max(v[1], 0), Limit: v[2], RetryAfter: wait(v[3]), FullAfter: wait(v[4]),
		RefillAfter: wait(v[6]), Binding: int(v[7])}
	if d.Allowed {
		d.RetryAfter = keyed.DurationOf(0)
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
	case strings.Contains(err.Error(), "NUMERUS_CORRUPT"):
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return fmt.Errorf("redisstore: %s %q: %w", c.name(), c.key, err)
}

// noScript reports whether err says the server does not hold the script (after SCRIPT FLUSH, a
// restart or a failover).
func noScript(err error) bool {
	return err != nil && (errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT"))
}
