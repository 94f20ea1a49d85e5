package redisstore

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
)

// scriptReply packs a decision as the script writes it: eight little-endian doubles.
func scriptReply(v [8]int64) string {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(x)))
	}
	return string(b)
}

// FuzzReadReply feeds arbitrary replies to call.read, the decoder of a check's reply, under a
// policy of 1 to 8 leaves. A reply of any length but 64 bytes is an error. Any decision read has
// no negative balance, an admission has no wait, and the binding limit is one of the policy's. A
// reply as the script writes it (allowed 0 or 1, numbers within 2^53, instants within the store's
// range and not before the check, a binding leaf of the policy) reads back as what it says.
func FuzzReadReply(f *testing.F) {
	f.Add([]byte(scriptReply([8]int64{1, 4, 5, 1_000_000, 2_000_000, 1_000_000, 1_500_000, 0})), false, int64(0), uint8(0))
	f.Add([]byte(scriptReply([8]int64{0, 0, 5, 3_000_000, -1, 1_000_000, 3_000_000, 2})), true, int64(1_000_000_500), uint8(3))
	f.Add([]byte(scriptReply([8]int64{0, 0, 1, -1, -1, maxInstant, -1, 0})), false, int64(0), uint8(1))
	f.Add([]byte(scriptReply([8]int64{1, 1, 1, 1, 1, 1, 1, 1})), false, int64(0), uint8(0))
	f.Add([]byte("short"), false, int64(0), uint8(0))
	f.Fuzz(func(t *testing.T, reply []byte, caller bool, base int64, leaves uint8) {
		c := call{op: opAcquire, key: "k", caller: caller, base: base, pr: &program{leaves: int(leaves%8) + 1}}
		d, err := c.read(string(reply))
		if len(reply) != replySize {
			require.Error(t, err)
			return
		}
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, d.Remaining, int64(0))
		if d.Allowed {
			require.Equal(t, keyed.DurationOf(0), d.RetryAfter)
		}
		require.True(t, d.Binding >= 0 && d.Binding < c.pr.leaves, "binding %d of %d leaves", d.Binding, c.pr.leaves)

		// The same numbers, as the script would write them.
		var v [8]int64
		for i := range v {
			v[i] = int64(binary.LittleEndian.Uint64(reply[8*i:])>>11) - 1 // [-1, 2^53)
		}
		v[0] = v[0] & 1
		v[5] = min(max(v[5], 0), maxInstant)
		for _, i := range []int{3, 4, 6} { // instants: -1 (never), or not before now
			if v[i] >= 0 {
				v[i] = min(v[5]+v[i]%(maxInstant+1), maxInstant)
			}
		}
		v[7] = (v[7] + 1) % int64(c.pr.leaves)
		if caller {
			c.base = v[5]*int64(time.Microsecond) + base%int64(time.Microsecond)
			if c.base < 0 {
				c.base = -c.base
			}
		}
		now := v[5] * int64(time.Microsecond)
		if caller {
			now = c.base
		}
		d, err = c.read(scriptReply(v))
		require.NoError(t, err)
		require.Equal(t, v[0] == 1, d.Allowed)
		require.Equal(t, max(v[1], 0), d.Remaining)
		require.Equal(t, v[2], d.Limit)
		want := func(us int64) keyed.Duration {
			if us < 0 {
				return keyed.Duration{}
			}
			return keyed.DurationOf(time.Duration(us*int64(time.Microsecond) - now))
		}
		require.Equal(t, want(v[4]), d.FullAfter)
		require.Equal(t, want(v[6]), d.RefillAfter)
		require.Equal(t, int(v[7]), d.Binding)
		if v[0] == 1 {
			require.Equal(t, keyed.DurationOf(0), d.RetryAfter)
		} else {
			require.Equal(t, want(v[3]), d.RetryAfter)
		}
	})
}

// replyError stands for an error element of a script's reply table.
type replyError string

func (e replyError) Error() string { return string(e) }

// buildReply makes a batch reply from data: each element a tag byte and what it needs.
func buildReply(data []byte, n int) []any {
	var reply []any
	for len(data) > 0 {
		tag := data[0]
		data = data[1:]
		switch tag % 6 {
		case 0: // a check's index, often in range
			x := int64(0)
			if len(data) > 0 {
				x, data = int64(int8(data[0])), data[1:]
			}
			reply = append(reply, x)
		case 1:
			reply = append(reply, error(replyError("NUMERUS_CORRUPT bad state")))
		case 2:
			reply = append(reply, error(replyError("ERR other")))
		case 3: // the decisions of all checks
			reply = append(reply, strings.Repeat(scriptReply([8]int64{1, 2, 3, -1, -1, 1000, 1000, 0}), n))
		case 4: // a string of some length
			l := 0
			if len(data) > 0 {
				l, data = int(data[0]), data[1:]
			}
			reply = append(reply, strings.Repeat("x", l))
		default:
			reply = append(reply, nil)
		}
	}
	return reply
}

// FuzzBatchRead feeds arbitrary reply tables to batch.read, the decoder of a batch script's
// reply: the index (from 1) and error of each failed check, then the 64-byte decisions of all. A
// reply of another shape fails every check; one of this shape gives each failed check its error
// (ErrCorrupt for a corrupt state) and every other check its decision. It never panics.
func FuzzBatchRead(f *testing.F) {
	f.Add(uint8(2), []byte{3})
	f.Add(uint8(3), []byte{0, 2, 1, 3})
	f.Add(uint8(3), []byte{0, 1, 2, 0, 3, 1, 3})
	f.Add(uint8(1), []byte{0, 5, 1, 3})
	f.Add(uint8(2), []byte{0, 2, 3, 3})
	f.Add(uint8(2), []byte{4, 96})
	f.Fuzz(func(t *testing.T, size uint8, data []byte) {
		n := int(size%8) + 1
		reply := buildReply(data, n)
		cmd := redis.NewCmd(context.Background())
		cmd.SetVal(reply)
		b := &batch{calls: make([]call, n), out: make([]keyed.Decision, n), errs: make([]error, n)}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
			b.calls[i] = call{op: opAcquire, key: "k", pr: &program{leaves: 1}}
		}
		b.read(cmd, idx)

		wellFormed := len(reply)%2 == 1
		var all string
		ok := false
		if len(reply) > 0 {
			all, ok = reply[len(reply)-1].(string)
			ok = ok && len(all) == replySize*n
		}
		wellFormed = wellFormed && ok
		failed := map[int]error{}
		for f := 0; f+1 < len(reply); f += 2 {
			i, isInt := reply[f].(int64)
			e, isErr := reply[f+1].(error)
			if !isInt || !isErr || i < 1 || int(i) > n {
				wellFormed = false
				break
			}
			failed[int(i)-1] = e
		}
		for i := range n {
			switch e, isFailed := failed[i]; {
			case !wellFormed:
				require.Error(t, b.errs[i], "check %d of reply %v", i, reply)
				require.Equal(t, keyed.Decision{}, b.out[i])
			case isFailed:
				require.Error(t, b.errs[i], "check %d of reply %v", i, reply)
				require.Equal(t, keyed.Decision{}, b.out[i])
				require.Equal(t, strings.Contains(e.Error(), "NUMERUS_CORRUPT"), errors.Is(b.errs[i], ErrCorrupt))
			default:
				want, err := b.calls[i].read(all[replySize*i : replySize*(i+1)]) // an error for numbers the script never writes
				require.Equal(t, err != nil, b.errs[i] != nil, "check %d of reply %v: %v", i, reply, b.errs[i])
				require.Equal(t, want, b.out[i], "check %d of reply %v", i, reply)
			}
		}
	})
}

func packReply(v [8]float64) string {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return string(b)
}

// TestReadRejectsOddNumbers: a reply whose numbers are not whole numbers within what the script
// writes (a NaN, an infinity, a fraction, a number past 2^53, a binding leaf the policy does not
// have) is an error, not a decision with a limit of MinInt64.
func TestReadRejectsOddNumbers(t *testing.T) {
	good := [8]float64{1, 4, 5, 1e6, 2e6, 1e6, 1.5e6, 1}
	c := call{op: opAcquire, key: "k", pr: &program{leaves: 2}}
	_, err := c.read(packReply(good))
	require.NoError(t, err)
	for _, odd := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0.5, -2, 1<<53 + 2} {
		for i := range good {
			v := good
			v[i] = odd
			_, err := c.read(packReply(v))
			require.Error(t, err, "%v at %d", odd, i)
		}
	}
	for _, binding := range []float64{-1, 2, 1 << 53} {
		v := good
		v[7] = binding
		_, err := c.read(packReply(v))
		require.Error(t, err, "binding %v of 2 leaves", binding)
	}
}

// TestReadTakesTheBoundsOfItsNumbers: -1 (never) and 2^53 (the last whole number a Lua number
// holds exactly) are numbers a reply may carry, at every place but the binding leaf's, which
// takes the first and the last leaf of the policy.
func TestReadTakesTheBoundsOfItsNumbers(t *testing.T) {
	good := [8]float64{1, 4, 5, 1e6, 2e6, 1e6, 1.5e6, 0}
	c := call{op: opAcquire, key: "k", pr: &program{leaves: 3}}
	for _, edge := range []float64{-1, 1 << 53} {
		for i := range good[:7] {
			v := good
			v[i] = edge
			_, err := c.read(packReply(v))
			require.NoError(t, err, "%v at %d", edge, i)
		}
	}
	for _, binding := range []float64{0, 2} {
		v := good
		v[7] = binding
		d, err := c.read(packReply(v))
		require.NoError(t, err, "binding %v", binding)
		require.Equal(t, int(binding), d.Binding)
	}
}
