// Package bench measures numerus against the Go rate limiters users would pick instead, in the
// same run on the same machine. It holds no library code: the benchmarks live in its test files,
// one file per scenario, and the script run (beside this file) turns a run into RESULTS.md.
//
// Benchmark names are key=value paths so that benchstat can group them:
//
//	BenchmarkDebit/lib=numerus-iface/result=allow
//	BenchmarkKeyed/lib=sethvargo/subjects=10000/mode=parallel/result=deny
//
// lib names the library (every name starting with "numerus" is ours), result says what every
// debit of the benchmark must answer. Each benchmark checks its own inputs (distinct subjects, the
// timeline it was given) and reports the share of admitted debits as the metric allow/op; it fails
// when that share is not the one its name promises.
//
// The benchmarks of a debit at an explicit instant (Debit, AllOf3) take their instants from a
// timeline computed ahead with the timer stopped (timeline_test.go): time.Time.Add costs about
// as much as the fastest debit measured, and the same instants reach every library, so each
// loop's time is the library's call and the harness's reading of an instant, nothing more.
//
// BenchmarkFloor runs the shapes of two scenarios (AllOf3's value copies, Keyed's clock reading
// and write per subject) with no limiter's work: a floor for every implementation on the machine
// measured. bench/run's report sets each target beside its floor, and says so when the bound lies
// below it.
//
// This module is separate from the library's so that the peers never become dependencies of
// numerus itself.
package bench
