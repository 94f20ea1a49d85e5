package numerus

import (
	"strconv"
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// Rate is a number of tokens per period, kept as the exact fraction tokens/period: 3 per second
// is 3 per second forever, never one per 333,333,333ns. The zero Rate is invalid: a constructor
// given it returns an error naming the rate.
type Rate struct {
	tokens int64
	per    time.Duration
}

// Per returns n tokens per period d.
func Per(n int64, d time.Duration) Rate { return Rate{tokens: n, per: d} }

// PerSecond returns n tokens per second.
func PerSecond(n int64) Rate { return Per(n, time.Second) }

// PerMinute returns n tokens per minute.
func PerMinute(n int64) Rate { return Per(n, time.Minute) }

// PerHour returns n tokens per hour.
func PerHour(n int64) Rate { return Per(n, time.Hour) }

// Every returns one token every d.
func Every(d time.Duration) Rate { return Per(1, d) }

// Tokens returns the tokens per period.
func (r Rate) Tokens() int64 { return r.tokens }

// Period returns the period.
func (r Rate) Period() time.Duration { return r.per }

// String returns the rate in the policy notation, as in "10/s" or "500/7d".
func (r Rate) String() string {
	if k, inv := r.kernel(); inv == nil {
		return k.String()
	}
	return strconv.FormatInt(r.tokens, 10) + "/" + r.per.String()
}

func (r Rate) kernel() (kernel.Rate, *kernel.Invalid) { return kernel.RateOf(r.tokens, int64(r.per)) }
