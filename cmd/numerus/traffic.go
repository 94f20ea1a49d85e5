package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// trafficHelp documents the traffic SPEC; sim's help prints it.
const trafficHelp = `TRAFFIC SPEC (--traffic), one pattern or several joined by "+":
  const:RATE            evenly spaced, exactly: const:10/s is one request every 100ms
  poisson:RATE[:SEED]   Poisson arrivals at RATE on average; SEED (default 1) fixes the draw
  burst:N/PERIOD        N requests at once, every PERIOD: burst:50/10s
  csv:FILE              one timestamp per line (the first comma-separated field): RFC 3339
                        ("2026-01-01T00:00:01.5Z") or seconds since --start ("1.5"); blank
                        lines and lines starting with # are skipped; sorted before the replay
RATE is COUNT/[N]UNIT, as in the policy notation: 10/s, 600/min, 3/2s, 1000/d.
UNIT is ns, us, ms, s, m (min), h or d. Every request costs one token.
Example: --traffic "poisson:8/s:7+burst:40/1m" --for 10m
`

// traffic is a source of request instants, in nanoseconds since the Unix epoch, in order.
type traffic interface {
	// next returns the next instant; false when there is none.
	next() (int64, bool)
}

// parseTraffic reads a SPEC (see trafficHelp); open opens a csv FILE.
func parseTraffic(spec string, start int64, open func(string) (io.ReadCloser, error)) (traffic, error) {
	var parts []traffic
	for _, p := range strings.Split(spec, "+") {
		t, err := parsePattern(strings.TrimSpace(p), start, open)
		if err != nil {
			return nil, fmt.Errorf("traffic %q: %w", p, err)
		}
		parts = append(parts, t)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return newMerge(parts), nil
}

func parsePattern(p string, start int64, open func(string) (io.ReadCloser, error)) (traffic, error) {
	kind, arg, ok := strings.Cut(p, ":")
	if !ok {
		return nil, errors.New("expected KIND:ARGUMENT, as in const:10/s")
	}
	switch kind {
	case "const":
		n, per, err := parseRate(arg)
		return newConstant(start, n, per), err
	case "poisson":
		return parsePoisson(arg, start)
	case "burst":
		n, per, err := parseRate(arg)
		return &bursts{at: start, size: n, every: per}, err
	case "csv":
		return readCSV(arg, start, open)
	}
	return nil, fmt.Errorf("unknown kind %q: expected const, poisson, burst or csv", kind)
}

// parseRate reads COUNT/[N]UNIT.
func parseRate(s string) (n, per int64, err error) {
	count, period, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("expected a rate such as 10/s, found %q", s)
	}
	if n, err = strconv.ParseInt(count, 10, 64); err != nil || n < 1 {
		return 0, 0, fmt.Errorf("expected a count of at least 1, found %q", count)
	}
	per, err = parsePeriod(period)
	return n, per, err
}

// unitNanos are the units of rates and durations.
var unitNanos = map[string]int64{"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9,
	"min": 60e9, "h": 3600e9, "d": 86400e9}

// parsePeriod reads [N]UNIT: "s", "10s", "2d".
func parsePeriod(s string) (int64, error) {
	digits := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if digits < 0 {
		return 0, fmt.Errorf("expected a unit such as s, m or h after %q", s)
	}
	k := int64(1)
	if digits > 0 {
		var err error
		if k, err = strconv.ParseInt(s[:digits], 10, 64); err != nil || k < 1 {
			return 0, fmt.Errorf("expected a period of at least 1, found %q", s)
		}
	}
	u, ok := unitNanos[s[digits:]]
	if !ok || k > math.MaxInt64/u {
		return 0, fmt.Errorf("expected a unit such as s, m or h, found %q", s[digits:])
	}
	return k * u, nil
}

// parseDuration reads a Go duration ("90s", "1h30m") or whole days ("7d", "1d12h").
func parseDuration(s string) (int64, error) {
	days := int64(0)
	if d, rest, ok := strings.Cut(s, "d"); ok && d != "" && !strings.ContainsAny(d, ".hmsuµn") {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil || n > math.MaxInt64/int64(24*time.Hour) {
			return 0, fmt.Errorf("expected a duration such as 10m, 2h or 7d, found %q", s)
		}
		days, s = n*int64(24*time.Hour), rest
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || int64(d) > math.MaxInt64-days {
		return 0, fmt.Errorf("expected a duration such as 10m, 2h or 7d, found %q", s)
	}
	return days + int64(d), nil
}

// constant is n requests every per, evenly: the k-th at start + ⌊k·per/n⌋, exactly, by steps of
// per/n whose remainders carry.
type constant struct {
	at, step, rem, n, carry int64
}

func newConstant(start, n, per int64) *constant {
	if n <= 0 {
		return &constant{at: start, step: math.MaxInt64}
	}
	return &constant{at: start, step: per / n, rem: per % n, n: n}
}

func (c *constant) next() (int64, bool) {
	at := c.at
	if c.step == math.MaxInt64 || at > math.MaxInt64-c.step-1 {
		return 0, false
	}
	c.at += c.step
	if c.carry += c.rem; c.carry >= c.n {
		c.carry -= c.n
		c.at++
	}
	return at, true
}

// poisson draws exponential gaps of mean per/n from a seeded generator.
type poisson struct {
	at   float64
	mean float64
	rng  *rand.Rand
}

func parsePoisson(arg string, start int64) (traffic, error) {
	rate, seedText, hasSeed := strings.Cut(arg, ":")
	n, per, err := parseRate(rate)
	if err != nil {
		return nil, err
	}
	seed := uint64(1)
	if hasSeed {
		if seed, err = strconv.ParseUint(seedText, 10, 64); err != nil {
			return nil, fmt.Errorf("expected a seed (a whole number), found %q", seedText)
		}
	}
	return &poisson{at: float64(start), mean: float64(per) / float64(n),
		rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}, nil
}

func (p *poisson) next() (int64, bool) {
	p.at += p.rng.ExpFloat64() * p.mean
	if p.at >= math.MaxInt64/2 {
		return 0, false
	}
	return int64(p.at), true
}

// bursts is size requests at once, every every.
type bursts struct {
	at, size, every, sent int64
}

func (b *bursts) next() (int64, bool) {
	if b.sent == b.size {
		if b.at > math.MaxInt64-b.every {
			return 0, false
		}
		b.at, b.sent = b.at+b.every, 0
	}
	b.sent++
	return b.at, true
}

// instants replays a sorted list.
type instants struct {
	at []int64
	i  int
}

func (s *instants) next() (int64, bool) {
	if s.i == len(s.at) {
		return 0, false
	}
	s.i++
	return s.at[s.i-1], true
}

// readCSV reads the timestamps of a file (see trafficHelp), sorted.
func readCSV(name string, start int64, open func(string) (io.ReadCloser, error)) (traffic, error) {
	f, err := open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var at []int64
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		field, _, _ := strings.Cut(sc.Text(), ",")
		if field = strings.TrimSpace(field); field == "" || strings.HasPrefix(field, "#") {
			continue
		}
		t, err := parseTimestamp(field, start)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		at = append(at, t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.Sort(at)
	return &instants{at: at}, nil
}

// parseTimestamp reads RFC 3339 or decimal seconds since start.
func parseTimestamp(s string, start int64) (int64, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixNano(), nil
	}
	sec, err := strconv.ParseFloat(s, 64)
	if err != nil || sec < 0 || sec > 1e9 || math.IsNaN(sec) {
		return 0, fmt.Errorf("expected an RFC 3339 timestamp or seconds since the start, found %q", s)
	}
	return start + int64(math.Round(sec*1e9)), nil
}

// merge interleaves several sources in order of their instants.
type merge struct {
	parts []traffic
	heads []int64
	live  []bool
}

func newMerge(parts []traffic) *merge {
	m := &merge{parts: parts, heads: make([]int64, len(parts)), live: make([]bool, len(parts))}
	for i, p := range parts {
		m.heads[i], m.live[i] = p.next()
	}
	return m
}

func (m *merge) next() (int64, bool) {
	best := -1
	for i := range m.parts {
		if m.live[i] && (best < 0 || m.heads[i] < m.heads[best]) {
			best = i
		}
	}
	if best < 0 {
		return 0, false
	}
	at := m.heads[best]
	m.heads[best], m.live[best] = m.parts[best].next()
	return at, true
}
