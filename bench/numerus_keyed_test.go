package bench

import (
	"context"
	"testing"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
)

// numerusTaker is numerus's memory store behind the keyed limiter: a GCRA of p.tokens per p.per,
// bursting to p.tokens. The store starts no goroutine, so there is nothing to clean up.
type numerusTaker struct{ l keyed.Limiter[string] }

func openNumerusMemory(b *testing.B, p keyedPolicy) keyedTaker {
	return numerusTaker{l: must(keyed.New(memory.New(), typed.Spec{Algo: typed.AlgoGCRA, Count: p.tokens, Period: p.per, Burst: p.tokens}, keyed.StringKey{}))}
}

func (t numerusTaker) take(ctx context.Context, subject string) (bool, error) {
	d, err := t.l.TryAcquire(ctx, subject, 1)
	return d.Allowed, err
}
