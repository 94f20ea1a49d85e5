package typed

import (
	"strconv"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// This file converts each kernel to and from its state words: exactly the kernel's exported fields,
// in the order they are declared, so a store (or a Redis script) can mirror them.
//
//	gcra    tat (whole ns), tat fraction (in 1/N ns), last
//	token   tokens (scaled by the rate's period), last
//	leaky   level (scaled by the rate's period), last
//	finite  left
//	window  start, count, last
//	count   start, prev, cur, last
//	sliding last, then (instant, tokens) for each live entry, oldest first
//	buckets as sliding, instants being sub-window starts

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func loadGCRA(p *kernel.GCRAPolicy, w []int64) kernel.GCRA {
	return kernel.GCRA{P: p, TAT: kernel.Frac{Q: w[0], R: w[1]}, Last: w[2]}
}

func putGCRA(w []int64, g kernel.GCRA) { w[0], w[1], w[2] = g.TAT.Q, g.TAT.R, g.Last }

func loadTokens(p *kernel.BucketPolicy, w []int64) kernel.TokenBucket {
	return kernel.TokenBucket{P: p, Tokens: w[0], Last: w[1]}
}

func putTokens(w []int64, b kernel.TokenBucket) { w[0], w[1] = b.Tokens, b.Last }

func loadLeaky(p *kernel.BucketPolicy, w []int64) kernel.LeakyBucket {
	return kernel.LeakyBucket{P: p, Level: w[0], Last: w[1]}
}

func putLeaky(w []int64, b kernel.LeakyBucket) { w[0], w[1] = b.Level, b.Last }

func loadFinite(size int64, w []int64) kernel.Finite { return kernel.Finite{Size: size, Left: w[0]} }

func putFinite(w []int64, f kernel.Finite) { w[0] = f.Left }

func loadWindow(p *kernel.WindowPolicy, w []int64) kernel.FixedWindow {
	return kernel.FixedWindow{P: p, Start: w[0], Count: w[1], Last: w[2]}
}

func putWindow(w []int64, f kernel.FixedWindow) { w[0], w[1], w[2] = f.Start, f.Count, f.Last }

func loadCounter(p *kernel.WindowPolicy, w []int64) kernel.SlidingCounter {
	return kernel.SlidingCounter{P: p, Start: w[0], Prev: w[1], Cur: w[2], Last: w[3]}
}

func putCounter(w []int64, c kernel.SlidingCounter) {
	w[0], w[1], w[2], w[3] = c.Start, c.Prev, c.Cur, c.Last
}

// logWords returns the words of a log: its last instant, then its live entries as pairs.
func logWords(l kernel.Log) []int64 {
	w := []int64{l.Last}
	for at, tokens := range l.Live {
		w = append(w, at, tokens)
	}
	return w
}

func restoreLog(p *kernel.LogPolicy, w []int64) (kernel.Log, *kernel.Invalid) {
	return p.RestoreLog(w[0], w[1:])
}

// restoreWords validates the words of a fixed-size leaf against its policy and returns the
// kernel they hold, or the kernel's verdict on them. The kernel may differ from the words where
// they do not matter (an empty counter's start), so that every reader keeps the same state.
func (lf *leaf) restoreWords(w []int64) (kernels, *kernel.Invalid) {
	var k kernels
	var inv *kernel.Invalid
	switch lf.k {
	case kindGCRA:
		k.gcra, inv = lf.gcra.RestoreGCRA(w[0], w[1], w[2])
	case kindToken:
		k.tokens, inv = lf.bucket.RestoreTokens(w[0], w[1])
	case kindLeaky:
		k.leaky, inv = lf.bucket.RestoreLeaky(w[0], w[1])
	case kindFinite:
		k.finite, inv = kernel.RestoreFinite(lf.size, w[0])
	case kindWindow:
		k.window, inv = lf.window.RestoreWindow(w[0], w[1], w[2])
	case kindCount:
		k.counter, inv = lf.window.RestoreCounter(w[0], w[1], w[2], w[3])
	}
	return k, inv
}
