//go:build race

package kernel

const race = true
