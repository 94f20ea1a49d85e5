package storetest

import (
	"strconv"

	"github.com/numerus-closus/numerus/typed"
)

// testSubjects requires each subject to have a limit of its own, the empty one included.
func testSubjects(h *harness) {
	p := h.pair("gcra 1/h burst 1")
	subjects := []string{"", " ", "a", "A", "a ", "\x00", "é"}
	for i := range 300 {
		subjects = append(subjects, "subject:"+strconv.Itoa(i))
	}
	for _, s := range subjects {
		if d := p.acquire(s, 1); !d.Allowed {
			h.t.Fatalf("subject %q shares a limit with another", s)
		}
	}
	for _, s := range subjects {
		p.acquire(s, 1)
	}
}

// testNamespaces requires (namespace, subject) pairs that a naive concatenation would merge to
// stay apart, and limiters of one namespace to share their subjects' limits.
func testNamespaces(h *harness) {
	sp := typed.Spec{Algo: typed.AlgoFinite, Count: 1}
	pairs := [][4]string{
		{"a", "b:c", "a:b", "c"},
		{"ab", "c", "a", "bc"},
		{"", "1:a", "1", "a"},
		{"1:a", "", "", "1:a:"},
		{"x:", "y", "x", ":y"},
	}
	for i, q := range pairs {
		base := h.ns + "/" + strconv.Itoa(i) + "/"
		l1, l2 := h.limiter(sp, base+q[0]), h.limiter(sp, base+q[2])
		first, second, again := admit(h, l1, q[1]), admit(h, l2, q[3]), admit(h, l1, q[1])
		if !first || !second || again {
			h.t.Fatalf("namespaces %q and %q, subjects %q and %q: admitted %v, %v, then %v; want true, true, false",
				q[0], q[2], q[1], q[3], first, second, again)
		}
	}
	ns := h.namespace()
	a, b := h.limiter(sp, ns), h.limiter(sp, ns)
	if !admit(h, a, "s") || admit(h, b, "s") {
		h.t.Fatal("two limiters of one namespace do not share a subject's limit")
	}
}
