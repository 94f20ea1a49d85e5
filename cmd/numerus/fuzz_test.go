package main

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzParseTraffic holds the traffic SPEC reader to never panicking and, when it accepts a
// spec, to instants in order.
func FuzzParseTraffic(f *testing.F) {
	for _, seed := range []string{"const:10/s", "poisson:8/s:7+burst:40/5m", "burst:50/10s",
		"csv:x", "const:3/2s+const:1/ns", "poisson:1/d:18446744073709551615", "const:9223372036854775807/ns"} {
		f.Add(seed, "1.5\n2026-01-01T00:00:00Z\n# c\n0")
	}
	f.Fuzz(func(t *testing.T, spec, file string) {
		open := func(string) (io.ReadCloser, error) {
			if strings.HasPrefix(file, "!") {
				return nil, errors.New("no such file")
			}
			return io.NopCloser(strings.NewReader(file)), nil
		}
		tr, err := parseTraffic(spec, epochBase, open)
		if err != nil {
			return
		}
		last := int64(-1 << 63)
		for range 200 {
			at, ok := tr.next()
			if !ok {
				return
			}
			if at < last {
				t.Fatalf("%q: %d after %d", spec, at, last)
			}
			last = at
		}
	})
}
