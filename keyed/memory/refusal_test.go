package memory

import (
	"context"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/internal/bind"
	"github.com/numerus-closus/numerus/typed"
	"pgregory.net/rapid"
)

// TestRefusalModel: bound checks, which a refusal kept may answer without the lock (see
// refusal), decide as Requests do on a store of their own, which takes the lock for every check:
// one hot subject and a few others in one shard, refused again and again, under two policies of
// one namespace, with Requests, peeks, resets and sweeps between, at instants out of order.
func TestRefusalModel(t *testing.T) {
	specs := []string{"gcra 2/s burst 2", "window 3/s", "token 2/s burst 3", "finite 2 & gcra 1/s burst 2", "gcra 5/s burst 1 | window 2/s"}
	ctx := context.Background()
	rapid.Check(t, func(t *rapid.T) {
		ps := []typed.Policy{typed.MustCompile(rapid.SampledFrom(specs).Draw(t, "policy")), typed.MustCompile(rapid.SampledFrom(specs).Draw(t, "other"))}
		var now int64
		clock := WithClock(func() time.Time { return time.Unix(0, now) })
		s, ref := New(WithGrace(0), WithShards(1), clock), New(WithGrace(0), WithShards(1), clock)
		bs := []bind.Bound{s.bind("1:a:", ps[0]), s.bind("1:a:", ps[1])}
		var latest int64
		instant := func(t *rapid.T) int64 {
			latest += rapid.Int64Range(0, 2e8).Draw(t, "forward")
			return 1e12 + latest - rapid.Int64Range(0, 1e9).Draw(t, "back")
		}
		subject := func(t *rapid.T) string {
			return rapid.SampledFrom([]string{"hot", "hot", "hot", "b", "a long subject of more than 16 bytes"}).Draw(t, "subject")
		}
		request := func(sub string, p typed.Policy, cost, at int64) keyed.Request {
			return keyed.Request{Key: []byte("1:a:" + sub), Policy: p, Cost: cost, At: time.Unix(0, at)}
		}
		check := func(t *rapid.T, what string, got keyed.Decision, want keyed.Decision, err error) {
			if err != nil || got != want {
				t.Fatalf("%s: bound %+v, Requests %+v (%v)", what, got, want, err)
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"acquire": func(t *rapid.T) {
				sub, i, at := subject(t), rapid.IntRange(0, 1).Draw(t, "policy"), instant(t)
				cost := rapid.SampledFrom([]int64{1, 1, 1, 2}).Draw(t, "cost")
				var got keyed.Decision
				got.SetOutcome(bs[i].Acquire(sub, cost, time.Unix(0, at)))
				want, err := ref.Acquire(ctx, request(sub, ps[i], cost, at))
				check(t, "acquire "+sub, got, want, err)
			},
			"request": func(t *rapid.T) {
				sub, i, at := subject(t), rapid.IntRange(0, 1).Draw(t, "policy"), instant(t)
				got, err := s.Acquire(ctx, request(sub, ps[i], 1, at))
				want, refErr := ref.Acquire(ctx, request(sub, ps[i], 1, at))
				if err != nil || refErr != nil || got != want {
					t.Fatalf("request %s: %+v, %+v (%v %v)", sub, got, want, err, refErr)
				}
			},
			"peek": func(t *rapid.T) {
				sub, i, at := subject(t), rapid.IntRange(0, 1).Draw(t, "policy"), instant(t)
				var got keyed.Decision
				got.SetOutcome(bs[i].Peek(sub, time.Unix(0, at)))
				want, err := ref.Peek(ctx, request(sub, ps[i], 1, at))
				check(t, "peek "+sub, got, want, err)
			},
			"reset": func(t *rapid.T) {
				sub := subject(t)
				_ = s.Reset(ctx, keyed.Request{Key: []byte("1:a:" + sub)})
				_ = ref.Reset(ctx, keyed.Request{Key: []byte("1:a:" + sub)})
			},
			"sweep": func(t *rapid.T) {
				now = instant(t) + rapid.Int64Range(0, 2e9).Draw(t, "ahead") // past some subjects' Full
				if got, want := s.Sweep(10), ref.Sweep(10); got != want {
					t.Fatalf("sweep dropped %d, the reference %d", got, want)
				}
			},
		})
	})
}
