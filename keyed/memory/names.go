package memory

import (
	"sync"
	"sync/atomic"
)

// maxNames is how many namespaces a store numbers; the keys of any further one keep their
// namespace in their slot's more. A program has a few; only a caller that sends Requests of
// ever new namespaces reaches the bound.
const maxNames = 1024

// unnamed is the number of a namespace past maxNames.
const unnamed = ^uint16(0)

// names numbers the namespaces of a store's keys, so that a slot holds its namespace in two
// bytes: the unframed "" is 0. Checks read the map without a lock; a new namespace replaces it
// with a copy, under mu.
type names struct {
	mu  sync.Mutex
	ids atomic.Pointer[map[string]uint16]
}

func (ns *names) init() { ns.ids.Store(&map[string]uint16{"": 0}) }

// id returns the number of the framed namespace prefix, numbering it if it is new.
func (ns *names) id(prefix []byte) uint16 {
	if id, ok := (*ns.ids.Load())[string(prefix)]; ok {
		return id
	}
	return ns.add(string(prefix))
}

// add numbers prefix, or returns unnamed past maxNames.
func (ns *names) add(prefix string) uint16 {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	old := *ns.ids.Load()
	if id, ok := old[prefix]; ok {
		return id
	}
	if len(old) >= maxNames {
		return unnamed
	}
	m := make(map[string]uint16, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	id := uint16(len(old))
	m[prefix] = id
	ns.ids.Store(&m)
	return id
}
