package typed_test

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/typed"
)

func ExampleParse() {
	for _, text := range []string{
		"100/min",       // at most 100 in any minute, all at once: the sliding log
		"5/s & 100/min", // at most 5 in any second and 100 in any minute
		"gcra 100/min",  // one every 600ms: at most 100 in any minute
		"10/s burst 20", // a GCRA: 20 at once, then one every 100ms; up to 29 in a second
	} {
		spec, err := typed.Parse(text)
		if err != nil {
			panic(err)
		}
		fmt.Println(spec)
	}
	spec, _ := typed.Parse("10/s burst 20 & window 1000/1h") // and 1000 in each hour from its top
	data, _ := json.Marshal(spec)
	fmt.Println(string(data))

	_, err := typed.Parse("10/sec & 5/x")
	fmt.Println(err)
	// Output:
	// sliding 100/m
	// sliding 5/s & sliding 100/m
	// gcra 100/m
	// gcra 10/s burst 20
	// {"and":[{"algo":"gcra","limit":"10/s","burst":20},{"algo":"window","limit":"1000/h"}]}
	// typed: column 12: expected a unit such as s, min or h, found "x"
}

func ExampleNewAnd() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := numerus.Must(typed.NewGCRA(numerus.PerSecond(10), 2)) // 2 at once, then one every 100ms: up to 11 in a second
	w := numerus.Must(typed.NewFixedWindow(time.Hour, 3))      // and 3 in each hour from its top
	l := typed.NewAnd(g, w)                                    // typed.And[typed.GCRA, typed.FixedWindow]: no allocation per debit

	for _, ms := range []time.Duration{0, 0, 0, 100, 200} {
		next, from, ok := l.Debit(t0.Add(ms * time.Millisecond))
		if ok {
			l = next
		}
		fmt.Println(ok, from)
	}
	fmt.Println(l)
	// Output:
	// true from 2026-01-01T00:00:00Z
	// true from 2026-01-01T00:00:00Z
	// false from 2026-01-01T00:00:00.1Z
	// true from 2026-01-01T00:00:00.1Z
	// false from 2026-01-01T01:00:00Z
	// gcra 10/s burst 2 & window 3/h
}

func ExampleGCRA_MarshalBinary() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := numerus.Must(typed.NewGCRA(numerus.PerSecond(10), 5)) // 5 at once, then one every 100ms
	g, _, _ = g.DebitN(t0, 4)

	data, err := g.MarshalBinary()
	if err != nil {
		panic(err)
	}
	var restored typed.GCRA
	if err := restored.UnmarshalBinary(data); err != nil {
		panic(err)
	}
	fmt.Println(len(data), "bytes:", restored)
	fmt.Println("remaining:", restored.Status(t0).Remaining)

	data[0] = 9 // a version this reader does not know
	err = restored.UnmarshalBinary(data)
	fmt.Println(errors.Is(err, typed.ErrCorrupt), err)
	// Output:
	// 28 bytes: gcra 10/s burst 5
	// remaining: 1
	// true typed: corrupt snapshot: unknown version 9
}

func ExamplePolicy_Continue() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := typed.MustCompile("10/s burst 5")  // a GCRA: 5 at once, then one every 100ms
	s, _, _ := old.DebitN(old.Fresh(), t0, 2) // 3 tokens left

	smaller := typed.MustCompile("10/s burst 2")
	larger := typed.MustCompile("10/s burst 9")
	fmt.Println("smaller:", smaller.Status(smaller.Continue(old, s, t0), t0).Remaining)
	fmt.Println("larger:", larger.Status(larger.Continue(old, s, t0), t0).Remaining)
	back := old.Continue(smaller, smaller.Continue(old, s, t0), t0)
	fmt.Println("there and back:", old.Status(back, t0).Remaining)
	// Output:
	// smaller: 2
	// larger: 3
	// there and back: 2
}

func ExamplePolicy() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := typed.MustCompile("gcra 5/s burst 5 & window 100/h") // 5 at once and up to 9 in a second, 100 in each hour from its top
	states := map[string]typed.State{}                        // what a keyed store keeps, one State per subject

	for _, who := range []string{"ann", "bob", "ann"} {
		s, seen := states[who]
		if !seen {
			s = p.Fresh()
		}
		next, _, ok := p.DebitN(s, t0, 3)
		if ok {
			states[who] = next
		}
		fmt.Println(who, ok, p.Status(states[who], t0).Remaining)
	}
	saved := p.AppendState(nil, states["ann"])
	restored, err := p.DecodeState(saved)
	fmt.Println(len(saved), "bytes", err, p.Status(restored, t0).Remaining)
	// Output:
	// ann true 2
	// bob true 2
	// ann false 2
	// 43 bytes <nil> 2
}

// A limiter held as a numerus.Limiter, as a schedule.Gate holds one, saves itself: the snapshot
// holds the policy too, so a process reads it back with nothing else.
func ExamplePolicy_AppendSnapshot() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := typed.MustCompile("gcra 10/s burst 5 & window 1000/h") // up to 14 in a second, 1000 in each hour from its top
	var l numerus.Limiter = p.Limiter(p.Fresh())
	l, _, _ = l.DebitN(t0, 4)

	saved, err := l.(encoding.BinaryMarshaler).MarshalBinary() // p.AppendSnapshot(nil, state) too
	if err != nil {
		panic(err)
	}
	policy, state, err := typed.ReadSnapshot(saved)
	fmt.Println(len(saved), "bytes", err)
	fmt.Println(policy, policy.Status(state, t0).Remaining)
	// Output:
	// 59 bytes <nil>
	// gcra 10/s burst 5 & window 1000/h 1
}

func ExampleSpec_WithMargin() {
	// An SMTP relay allows 5 a second, one at a time, and 100 a minute; connections take 20–70ms
	// to reach it, so the delays of two messages differ by up to 50ms.
	sp, _ := typed.Parse("gcra 5/s burst 1 & sliding 100/m")
	safe, err := sp.WithMargin(50 * time.Millisecond)
	if err != nil {
		panic(err)
	}
	fmt.Println(safe)
	// Output: gcra 5/1250ms burst 1 & sliding 100/60050ms
}
