package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progressEvents is how many requests a simulation replays before it reports progress.
const progressEvents = 1 << 20

// newProgress returns sim's progress report: on w, once the replay has passed progressEvents
// requests and then at most every half second, the share of the simulated time replayed and the
// requests so far; on a terminal it rewrites one line. It reads the clock, which only the
// command does: the core never does.
func newProgress(w io.Writer, start, dur int64) func(at, n int64) {
	var last time.Time
	eol := "\n"
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			eol = "\r"
		}
	}
	return func(at, n int64) {
		if n < progressEvents || time.Since(last) < 500*time.Millisecond {
			return
		}
		last = time.Now()
		fmt.Fprintf(w, "sim: %5.1f%% of %s replayed, %d requests%s", 100*float64(at-start)/float64(dur), fmtDur(dur), n, eol)
	}
}
