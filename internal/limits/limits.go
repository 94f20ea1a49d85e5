// Package limits holds the bounds on the size of a policy that every reader of one enforces: the
// notation's parser, the JSON spec reader, Spec.Validate, the snapshot and state decoders of
// package typed, and the Redis store's CheckPolicy. They are defined here once, so that no layer
// accepts a policy another refuses, and chosen far above any policy written by hand, so that only
// hostile or broken input meets them. Each reader checks them before it allocates for what they
// bound, which keeps its memory and its time within a small multiple of its input. Search bounds
// the rounds of a search instead, for the same reason: no input can make a caller loop.
package limits

const (
	// Children is the most children one And or Or holds.
	Children = 1000
	// Leaves is the most leaves (single algorithms) a whole policy holds.
	Leaves = 1000
	// Depth is how deeply And and Or nest: a leaf lies below at most Depth of them.
	Depth = 32
	// Text is the longest policy, in bytes, that the notation or the JSON form of a spec may take:
	// enough for the String and the JSON of every policy within the other limits (at most about
	// 77 KB and 107 KB, for 1,000 leaves whose every number has 19 digits), so that each reads back.
	Text = 128 << 10
	// Search bounds how many rounds an And spends looking for an instant that all of its children
	// admit (numerus.AllOf, the keyed model), and how many refusals in a row the
	// planners (numerus.Admissions, schedule.Gate) take before they give up. Children that keep
	// moving each other's answer past it get Never. The built-in limiters never need more than one
	// round: capacity never shrinks as time passes.
	Search = 64
)
