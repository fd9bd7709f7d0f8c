package verify

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// overlaps is rule 4: two placements in the same level that share a
// timestep share no address, unless one takes over the other's space in
// place (takesOver). Each pair is judged once, when the later of the two
// starts (for two that start together, the second in (block, document)
// order).
//
// Per level, a sweep over time: the placements in order of from; before
// one starts at t, those that ended before t leave; the live ones it meets
// are found by an index over addresses (liveIndex), then it joins. Empty
// placements (from > to) are rule 1's; placements at negative offsets
// take part (rule 3 reports them too).
func (c *checker) overlaps() {
	perLevel := make([][]int, len(c.prof.Levels))
	for i := range c.place {
		if p := &c.place[i]; p.from <= p.to {
			perLevel[p.l] = append(perLevel[p.l], i)
		}
	}
	rank := make([]int, len(c.place))
	for _, idx := range perLevel {
		c.sweep(idx, rank)
	}
}

// sweep checks the placements idx of one level. rank is scratch space
// indexed by placement.
func (c *checker) sweep(idx []int, rank []int) {
	n := len(idx)
	if n < 2 {
		return
	}
	byOff := slices.Clone(idx)
	slices.SortFunc(byOff, func(i, j int) int { return cmp.Or(cmp.Compare(c.place[i].off, c.place[j].off), cmp.Compare(i, j)) })
	offs := make([]int64, n)
	for r, i := range byOff {
		rank[i] = r
		offs[r] = c.place[i].off
	}
	starts := slices.Clone(idx)
	slices.SortFunc(starts, func(i, j int) int {
		return cmp.Or(cmp.Compare(c.place[i].from, c.place[j].from), cmp.Compare(c.place[i].b, c.place[j].b), cmp.Compare(i, j))
	})
	ends := slices.Clone(idx)
	slices.SortFunc(ends, func(i, j int) int { return cmp.Or(cmp.Compare(c.place[i].to, c.place[j].to), cmp.Compare(i, j)) })

	live := newLiveIndex(n)
	e := 0
	for _, i := range starts {
		x := &c.place[i]
		t := x.from
		for ; e < n && c.place[ends[e]].to < t; e++ {
			live.set(rank[ends[e]], math.MinInt64)
		}
		xEnd := x.end()
		// The live placements that overlap x start below x's end (ranks
		// [0, below)) and end above x's offset.
		below := sort.Search(n, func(r int) bool { return offs[r] >= xEnd })
		live.each(below, x.off, func(r int) {
			j := byOff[r]
			if !c.takesOver(j, i, t) && !c.takesOver(i, j, t) {
				c.overlap(j, i)
			}
		})
		live.set(rank[i], xEnd)
	}
}

// takesOver reports whether placement bi may sit over placement ai at t
// by the reuse exception of rule 4: ai ends at t where its block's life
// ends, bi starts at t where its block's life starts, at the same offset of
// the same level, and the kind rule lets bi's block take ai's block's space.
// (Whether the rest of bi's range is free is judged pair by pair: bi meets
// every other live placement as any placement does.)
func (c *checker) takesOver(ai, bi, t int) bool {
	a, b := &c.place[ai], &c.place[bi]
	return a.to == t && b.from == t && a.l == b.l && a.off == b.off &&
		mayTakeOver(&c.prog.Blocks[a.b], &c.prog.Blocks[b.b], t)
}

// overlap reports placements ai and bi (bi the later) sharing addresses.
func (c *checker) overlap(ai, bi int) {
	a, b := &c.place[ai], &c.place[bi]
	from, to := max(a.from, b.from), min(a.to, b.to)
	an, bn := c.prog.Blocks[a.b].Name, c.prog.Blocks[b.b].Name
	c.add(4, bn, from, to, "blocks %q and %q overlap in level %s at timesteps [%d,%d], bytes [%d,%d)",
		an, bn, c.prof.Levels[a.l].Name, from, to, max(a.off, b.off), min(a.end(), b.end()))
}

// liveIndex is the live placements of one level in address order: a
// segment tree over the level's placements ranked by offset, each leaf the
// end address of its placement while it is live (math.MinInt64 otherwise),
// each inner node the largest end below it. The placements that overlap
// [lo, hi) are the ranks whose offset is below hi (a prefix, as ranks are
// in offset order) with an end above lo; the tree finds them without
// visiting a subtree whose largest end is lo or less: O(log n) per
// placement found, however many overlap each other.
type liveIndex struct {
	size int     // leaves (a power of two)
	end  []int64 // end[1] is the root; leaves at end[size:]
}

func newLiveIndex(n int) *liveIndex {
	size := 1
	for size < n {
		size *= 2
	}
	end := make([]int64, 2*size)
	for i := range end {
		end[i] = math.MinInt64
	}
	return &liveIndex{size: size, end: end}
}

// set sets the end of the placement of rank r (math.MinInt64: not live).
func (x *liveIndex) set(r int, end int64) {
	k := x.size + r
	x.end[k] = end
	for k > 1 {
		k /= 2
		x.end[k] = max(x.end[2*k], x.end[2*k+1])
	}
}

// each calls fn, in rank order, for every live rank below `below` whose end
// is above lo.
func (x *liveIndex) each(below int, lo int64, fn func(r int)) {
	x.visit(1, 0, x.size, below, lo, fn)
}

func (x *liveIndex) visit(k, first, last, below int, lo int64, fn func(r int)) {
	if first >= below || x.end[k] <= lo {
		return
	}
	if k >= x.size {
		fn(first)
		return
	}
	mid := (first + last) / 2
	x.visit(2*k, first, mid, below, lo, fn)
	x.visit(2*k+1, mid, last, below, lo, fn)
}
