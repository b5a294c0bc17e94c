package pisession

import "hash/maphash"

// idGraph is the tree of a session as a listing needs it: enough to say
// that an id repeats, that a parent is missing or that the links make a
// cycle, without holding the file. Ids are kept as 64-bit hashes (a
// collision, about one chance in 30 million for a million distinct ids,
// could only
// change the listing's one-line problem, never a file or an open session),
// so an entry costs about 30 bytes whatever its id, and the graph is only
// kept up to Options.MaxEntries entries: a file with more cannot be opened
// anyway.
type idGraph struct {
	seed  maphash.Seed
	id    []uint64 // per entry: its id's hash, 0 when it has none
	par   []uint64 // per entry: its parent id's hash, 0 for a root
	line  []int32  // per entry: its line in the file
	slots []int32  // open addressing on id: 1 + the latest entry with it, 0 empty
	used  int
}

func newIDGraph() *idGraph { return &idGraph{seed: maphash.MakeSeed(), slots: make([]int32, 1024)} }

// hash returns the key of an id; "" (no id, or a null parent) is 0.
func (g *idGraph) hash(id []byte) uint64 {
	if len(id) == 0 {
		return 0
	}
	if h := maphash.Bytes(g.seed, id); h != 0 {
		return h
	}
	return 1
}

// slot returns where h is, or the empty slot where it would go.
func (g *idGraph) slot(h uint64) int {
	mask := len(g.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		if e := g.slots[i]; e == 0 || g.id[e-1] == h {
			return i
		}
	}
}

// find returns the latest entry whose id hashes to h, or -1.
func (g *idGraph) find(h uint64) int32 {
	if h == 0 {
		return -1
	}
	return g.slots[g.slot(h)] - 1
}

// add appends an entry and returns the earlier entry with the same id, or
// -1. Like pi's map, the id now means the new entry.
func (g *idGraph) add(id, parent uint64, line int32) (prev int32) {
	i := int32(len(g.id))
	g.id = append(g.id, id)
	g.par = append(g.par, parent)
	g.line = append(g.line, line)
	if id == 0 {
		return -1
	}
	k := g.slot(id)
	prev = g.slots[k] - 1
	g.slots[k] = i + 1
	if prev < 0 {
		g.used++
		if 2*g.used > len(g.slots) {
			g.grow()
		}
	}
	return prev
}

func (g *idGraph) grow() {
	old := g.slots
	g.slots = make([]int32, 2*len(old))
	for _, e := range old {
		if e != 0 {
			g.slots[g.slot(g.id[e-1])] = e
		}
	}
}

// parents links every entry to its parent (-1 for a root or a missing
// parent) and says which entries name a parent that is not there.
func (g *idGraph) parents() (parent []int32, dangling func(i int) bool) {
	parent = make([]int32, len(g.par))
	for i, p := range g.par {
		parent[i] = g.find(p)
	}
	return parent, func(i int) bool { return g.par[i] != 0 && parent[i] < 0 }
}

// cycleIn returns an entry of n that is its own ancestor, or -1. Entries
// are walked in order, so of several cycles the same one is named whoever
// asks (Open and a listing).
func cycleIn(n int, parent func(i int32) int32) int32 {
	seen := make([]uint8, n) // 0 new, 1 on the current walk, 2 done
	var walk []int32
	for i := range n {
		walk = walk[:0]
		j := int32(i)
		for j >= 0 && seen[j] == 0 {
			seen[j] = 1
			walk = append(walk, j)
			j = parent(j)
		}
		if j >= 0 && seen[j] == 1 {
			return j
		}
		for _, k := range walk {
			seen[k] = 2
		}
	}
	return -1
}
