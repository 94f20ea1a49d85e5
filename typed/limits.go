package typed

import (
	"errors"
	"strconv"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/limits"
)

// This file holds what every reader of a policy shares about the limits of package
// internal/limits (see Limits in the package doc): how each names a policy past one, and the
// bound a log leaf's state places on its entries.

// tooDeep, tooWide and tooManyLeaves say how a policy passes a limit.
func tooDeep() string { return "nests more than " + strconv.Itoa(limits.Depth) + " levels, the limit" }

func tooWide() string {
	return "holds more than " + strconv.Itoa(limits.Children) + " specs, the limit"
}

func tooManyLeaves() string {
	return "holds more than " + strconv.Itoa(limits.Leaves) + " leaves in all, the limit"
}

// tooFew says that an And or Or holds fewer than two children.
func tooFew(n int) string { return "must hold at least two specs, got " + strconv.Itoa(n) }

// shape checks that sp keeps within the limits on a policy's size: And and Or nested at most
// limits.Depth deep, each of at least two and at most limits.Children children. It counts the
// leaves into *leaves and stops once they pass limits.Leaves, so that it visits no more of sp than
// the limits allow, whatever its size.
func (sp Spec) shape(depth int, leaves *int) error {
	if !sp.Algo.kind().inner() {
		*leaves++
		return nil
	}
	switch {
	case depth >= limits.Depth:
		return paramError("", "of", tooDeep())
	case len(sp.Of) > limits.Children:
		return paramError("", "of", tooWide())
	case len(sp.Of) < 2:
		return paramError("", "of", tooFew(len(sp.Of)))
	}
	for i, c := range sp.Of {
		if err := c.shape(depth+1, leaves); err != nil || *leaves > limits.Leaves {
			return within(i, err)
		}
	}
	return nil
}

// within returns err, found in child i of a node, named from the node: a *numerus.ParamError's
// parameter gets the child's path. Other errors, and nil, it returns as they are.
func within(i int, err error) error {
	var pe *numerus.ParamError
	if !errors.As(err, &pe) {
		return err
	}
	return paramError("of["+strconv.Itoa(i)+"].", pe.Param, pe.Problem)
}

// maxEntries is the most entries the state of a log leaf can hold: each holds a token at least,
// and lies at its own instant in the period (a bucketed log's, at its own sub-window). It is 0 for a leaf of another algorithm, and
// for one whose parameters make no log.
func maxEntries(leaf Spec) int64 {
	switch leaf.Algo.kind() {
	case kindSliding:
		return max(min(leaf.Count, int64(leaf.Period)), 0)
	case kindBuckets:
		return max(min(leaf.Count, leaf.In), 0)
	}
	return 0
}
