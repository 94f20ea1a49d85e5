package main

import (
	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/typed"
)

// policyText is the sending policy, the one place it is written, in the policy notation: at most 5
// messages a second, paced one every 200ms (a GCRA of burst 1), at most 100 in any minute and
// 1,000 in any day (sliding logs).
const policyText = "gcra 5/s burst 1 & sliding 100/min & sliding 1000/d"

// policy returns a fresh limiter for policyText.
func policy() numerus.Limiter {
	p := typed.MustCompile(policyText)
	return p.Limiter(p.Fresh())
}
