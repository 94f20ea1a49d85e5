package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// A stat is one benchmark's summary for one unit: the median and benchstat's confidence interval
// around it, as printed ("3%", "∞").
type stat struct {
	median float64
	spread string
}

// stats maps a benchmark name, without the Benchmark prefix and the GOMAXPROCS suffix, to its
// summaries by unit ("sec/op", "allocs/op", "allow/op", …).
type stats map[string]map[string]stat

// procs matches the -N suffix that go test appends to a benchmark name.
var procs = regexp.MustCompile(`-\d+$`)

// parseStats reads the output of benchstat -format csv for a single input file. That output is a
// sequence of tables, one per unit: a row naming the file, a row ",<unit>,CI", then one row per
// benchmark (name, median, interval) and a geomean row.
func parseStats(r io.Reader) (stats, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading benchstat csv: %w", err)
	}
	s, unit := stats{}, ""
	for i, row := range rows {
		switch {
		case len(row) < 2:
			continue
		case row[0] == "" && len(row) >= 3 && row[2] == "CI":
			unit = row[1]
		case row[0] == "" || row[0] == "geomean":
			continue
		case unit == "":
			return nil, fmt.Errorf("benchstat csv row %d: %q comes before any unit", i+1, row[0])
		default:
			if err := s.add(row, unit); err != nil {
				return nil, fmt.Errorf("benchstat csv row %d: %w", i+1, err)
			}
		}
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("benchstat csv holds no benchmark")
	}
	return s, nil
}

func (s stats) add(row []string, unit string) error {
	median, err := strconv.ParseFloat(row[1], 64)
	if err != nil {
		return fmt.Errorf("median of %s: %w", row[0], err)
	}
	name := procs.ReplaceAllString(strings.TrimPrefix(row[0], "Benchmark"), "")
	if s[name] == nil {
		s[name] = map[string]stat{}
	}
	spread := ""
	if len(row) > 2 {
		spread = row[2]
	}
	s[name][unit] = stat{median: median, spread: spread}
	return nil
}

// get returns the summary of name in unit, and false when the run has none.
func (s stats) get(name, unit string) (stat, bool) {
	st, ok := s[name][unit]
	return st, ok
}

// perCheck returns the median time of one check of name in seconds: its sec/op divided by the
// batch size its name gives (batch=K), if any.
func (s stats) perCheck(name string) (stat, bool) {
	st, ok := s.get(name, "sec/op")
	if !ok {
		return st, false
	}
	if k, found := param(name, "batch"); found {
		n, err := strconv.Atoi(k)
		if err == nil && n > 0 {
			st.median /= float64(n)
		}
	}
	return st, true
}

// lookup is get for a benchstat unit and perCheck for perCheckTime.
func (s stats) lookup(name, unit string) (stat, bool) {
	if unit == perCheckTime {
		return s.perCheck(name)
	}
	return s.get(name, unit)
}

// param returns the value of key in a name made of key=value segments.
func param(name, key string) (string, bool) {
	for seg := range strings.SplitSeq(name, "/") {
		if v, ok := strings.CutPrefix(seg, key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// withParam returns name with the value of key replaced by v.
func withParam(name, key, v string) string {
	segs := strings.Split(name, "/")
	for i, seg := range segs {
		if strings.HasPrefix(seg, key+"=") {
			segs[i] = key + "=" + v
		}
	}
	return strings.Join(segs, "/")
}
