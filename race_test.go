//go:build race

package numerus_test

// race is true when the tests run under the race detector, which slows long loops tenfold.
const race = true
