//go:build race

package memory_test

// raceEnabled reports whether the race detector is on: sync.Pool then drops items at random, so
// allocation counts mean nothing.
const raceEnabled = true
