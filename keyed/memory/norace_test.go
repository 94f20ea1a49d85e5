//go:build !race

package memory

const RaceEnabled = false
