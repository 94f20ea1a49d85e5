package bench

import (
	"context"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The benchmarks of this file measure the in-memory stores at scale (issue 28, point 3): the
// heap a subject takes, the time to add one, and a workload of a million subjects drawn Zipf,
// for numerus, sethvargo and throttled in one run. Each iteration runs the whole scenario on a
// new store, so -benchtime 1x runs each once (about a second at 10^6 subjects); their figures are
// custom metrics, per subject or per check, not ns/op.

// scaleLibs are the stores measured at scale: those that, like ours, keep one entry per subject.
var scaleLibs = keyedLibs[:3]

// scaleSubjects returns n subjects of 11 or 12 bytes ("user:" and a number), pairwise distinct.
func scaleSubjects(b *testing.B, n int) []string {
	b.Helper()
	subjects := make([]string, n)
	for i := range subjects {
		subjects[i] = "user:" + strconv.Itoa(100_000+i)
	}
	if n > 0 && (len(subjects[0]) < 10 || len(subjects[n-1]) > 12 || subjects[0] == subjects[n-1]) {
		b.Fatalf("subjects %q to %q", subjects[0], subjects[n-1])
	}
	return subjects
}

// BenchmarkScaleFill adds subjects distinct subjects to a new store, one admitted check each,
// under 100/h burst 100, and reports the time a new subject takes (ns/subject, and
// cpu-ns/subject: the processor time of the process, garbage collection included) and the heap the
// store holds after a collection, per subject (B/subject): the heap in use, as
// runtime.MemStats.HeapInuse counts it (live objects and the free room of their spans), less
// that before the store was opened.
func BenchmarkScaleFill(b *testing.B) {
	for _, lib := range scaleLibs {
		for _, n := range []int{100_000, 1_000_000} {
			b.Run(name("lib", lib.lib, "subjects", n), func(b *testing.B) { runScaleFill(b, lib, n) })
		}
	}
}

func runScaleFill(b *testing.B, lib keyedLib, n int) {
	ctx := context.Background()
	subjects := scaleSubjects(b, n)
	p := keyedPolicy{tokens: 100, per: time.Hour}
	var perSubject float64
	var fill, cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		start, startCPU := time.Now(), cpuTime()
		t := lib.open(b, p)
		for _, s := range subjects {
			if ok, err := t.take(ctx, s); err != nil || !ok {
				b.Fatalf("subject %q: admitted %v, error %v", s, ok, err)
			}
		}
		fill, cpu = fill+time.Since(start), cpu+cpuTime()-startCPU
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(t)
		perSubject = float64(int64(after.HeapInuse)-int64(before.HeapInuse)) / float64(n)
		b.StartTimer()
	}
	b.ReportMetric(perSubject, "B/subject")
	b.ReportMetric(float64(fill.Nanoseconds())/float64(b.N*n), "ns/subject")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/subject")
	b.ReportMetric(0, "ns/op")
}

// zipfChecks is the Zipf workload's checks in all, over zipfGoroutines goroutines.
const (
	zipfSubjects   = 1_000_000
	zipfChecks     = 4_000_000
	zipfGoroutines = 2
)

// zipfDraws returns the subjects of the Zipf workload's checks, drawn with s = 1.1 over
// zipfSubjects subjects (a fixed seed, so every library gets the same sequence), and checks that
// the draws are skewed as a Zipf law of 1.1 makes them: the top subject takes about a tenth of
// the checks, and a few hundred thousand subjects are seen.
var zipfDraws = sync.OnceValue(func() []int32 {
	z := rand.NewZipf(rand.New(rand.NewPCG(28, 3)), 1.1, 1, zipfSubjects-1)
	draws := make([]int32, zipfChecks)
	for i := range draws {
		draws[i] = int32(z.Uint64())
	}
	return draws
})

// BenchmarkScaleZipf runs the Zipf workload on a new store each iteration: 4·10^6 checks of
// subjects drawn Zipf (s = 1.1) from 10^6, from two goroutines, under 10/s burst 10 on the real
// clock, so that hot subjects are refused and the tail's entries come and go. It reports the time
// of one check on one goroutine (ns/check: the elapsed time times the goroutines over the
// checks), most of which, in every library, is cache misses, and the processor time of the
// process a check costs (cpu-ns/check: garbage collection included), which a loaded machine
// stretches less than the elapsed time.
func BenchmarkScaleZipf(b *testing.B) {
	draws := zipfDraws()
	subjects := scaleSubjects(b, zipfSubjects)
	if top := countOf(draws, 0); top < zipfChecks/20 || top > zipfChecks/5 {
		b.Fatalf("the top subject takes %d of %d checks: not a Zipf law of 1.1", top, zipfChecks)
	}
	for _, lib := range append(scaleLibs, keyedLib{lib: "floor", open: openFloor}) {
		b.Run(name("lib", lib.lib), func(b *testing.B) { runScaleZipf(b, lib, subjects, draws) })
	}
}

// floorTaker is the Zipf workload's floor: no store, only the reads of each check's subject
// (its string header and bytes, which every library hashes), admitting one subject in three.
// What a library's check costs beyond it is its store's.
type floorTaker struct{}

func openFloor(*testing.B, keyedPolicy) keyedTaker { return floorTaker{} }

func (floorTaker) take(_ context.Context, subject string) (bool, error) {
	var sum byte
	for i := range len(subject) {
		sum += subject[i]
	}
	return sum%3 == 0, nil
}

func countOf(draws []int32, v int32) (n int) {
	for _, d := range draws {
		if d == v {
			n++
		}
	}
	return n
}

func runScaleZipf(b *testing.B, lib keyedLib, subjects []string, draws []int32) {
	ctx := context.Background()
	p := keyedPolicy{tokens: 10, per: time.Second}
	var allowed, errs int
	var cpu time.Duration
	for b.Loop() {
		startCPU := cpuTime()
		t := lib.open(b, p)
		var wg sync.WaitGroup
		results := make([][2]int, zipfGoroutines)
		part := len(draws) / zipfGoroutines
		for g := range zipfGoroutines {
			wg.Go(func() {
				for _, d := range draws[g*part : (g+1)*part] {
					ok, err := t.take(ctx, subjects[d])
					switch {
					case err != nil:
						results[g][1]++
					case ok:
						results[g][0]++
					}
				}
			})
		}
		wg.Wait()
		cpu += cpuTime() - startCPU
		for _, r := range results {
			allowed, errs = allowed+r[0], errs+r[1]
		}
	}
	checks := float64(b.N * zipfChecks)
	// How many are admitted depends on how fast the checks run (the policy refills on the real
	// clock), so the workload is only checked for admitting some and refusing some.
	if allowed == 0 || allowed == int(checks) {
		b.Fatalf("%d of %.0f checks admitted: the workload is not what it says", allowed, checks)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())*zipfGoroutines/checks, "ns/check")
	b.ReportMetric(float64(cpu.Nanoseconds())/checks, "cpu-ns/check")
	b.ReportMetric(float64(allowed)/checks, "allowed/check")
	b.ReportMetric(float64(errs)/checks, "errors/check")
	b.ReportMetric(0, "ns/op")
}
