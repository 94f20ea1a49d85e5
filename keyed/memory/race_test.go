//go:build race

package memory

// RaceEnabled reports whether the race detector is on: sync.Pool then drops items at random, so
// allocation counts mean nothing, and an atomic operation takes some 20 times longer. (Exported
// for the package's external tests, from this test file only.)
const RaceEnabled = true
