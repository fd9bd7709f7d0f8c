package verify

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// occupant is what rule 4's sweep checks: a range of a level occupied
// over timesteps [from, to], by a placement or, under the timeline model
// (FORMATS.md 6.2), by a reservation: a copy's destination from its start
// to at-1 (rule 9), a resident constant's range before its first and after
// its last timestep (rule 10). A reservation allows no reuse.
type occupant struct {
	kind     occKind
	src      int // the placement (occPlace, occResident) or the transfer (occCopy)
	b, l     int
	from, to int
	off, end int64 // end is off + footprint, or math.MaxInt64 where that overflows
}

// occKind says what occupies a range.
type occKind uint8

const (
	occPlace    occKind = iota // a placement (rule 4)
	occCopy                    // a copy's or a load's reserved destination (rule 9)
	occResident                // a resident constant's range outside its placement (rule 10)
)

// hits are overlaps found by the sweep that a later rule reports: pairs of
// occupants (the later-placed second), at most MaxViolations of them, and
// how many more there were.
type hits struct {
	pairs [][2]int
	more  int
}

// overlaps is rule 4: two placements in the same level that share a
// timestep share no address, unless one takes over the other's space in
// place (takesOver). Each pair is judged once, when the later of the two
// starts (for two that start together, the second in (block, kind,
// document) order). The reservations of FORMATS.md section 6 (rules 9 and
// 10) take part in the same sweep as placements that allow no reuse; their
// overlaps are kept for those rules to report (reservedHits).
//
// Per level, a sweep over time: the occupants in order of from; before
// one starts at t, those that ended before t leave; the live ones it meets
// are found by an index over addresses (liveIndex), then it joins. Empty
// placements (from > to) are rule 1's; placements at negative offsets
// take part (rule 3 reports them too).
func (c *checker) overlaps() {
	c.occ = c.occupants()
	perLevel := make([][]int, len(c.prof.Levels))
	for i := range c.occ {
		perLevel[c.occ[i].l] = append(perLevel[c.occ[i].l], i)
	}
	rank := make([]int, len(c.occ))
	for _, idx := range perLevel {
		c.sweep(idx, rank)
	}
}

// occupants returns the placements (from <= to) and, under a model with
// section 6's semantics, the reservations (reservations, timeline.go).
func (c *checker) occupants() []occupant {
	n := len(c.place)
	if c.model.timeline {
		n += len(c.xfer) // a reservation per copy at most, and few residents
	}
	occ := make([]occupant, 0, n)
	for i := range c.place {
		if p := &c.place[i]; p.from <= p.to {
			occ = append(occ, occupant{kind: occPlace, src: i, b: p.b, l: p.l, from: p.from, to: p.to, off: p.off, end: p.end()})
		}
	}
	if c.model.timeline {
		occ = c.reservations(occ)
	}
	return occ
}

// sweep checks the occupants idx of one level. rank is scratch space
// indexed by occupant.
func (c *checker) sweep(idx []int, rank []int) {
	n := len(idx)
	if n < 2 {
		return
	}
	occ := c.occ
	byOff := slices.Clone(idx)
	slices.SortFunc(byOff, func(i, j int) int { return cmp.Or(cmp.Compare(occ[i].off, occ[j].off), cmp.Compare(i, j)) })
	offs := make([]int64, n)
	for r, i := range byOff {
		rank[i] = r
		offs[r] = occ[i].off
	}
	starts := slices.Clone(idx)
	slices.SortFunc(starts, func(i, j int) int {
		return cmp.Or(cmp.Compare(occ[i].from, occ[j].from), cmp.Compare(occ[i].b, occ[j].b), cmp.Compare(i, j))
	})
	ends := slices.Clone(idx)
	slices.SortFunc(ends, func(i, j int) int { return cmp.Or(cmp.Compare(occ[i].to, occ[j].to), cmp.Compare(i, j)) })

	live := newLiveIndex(n)
	e := 0
	for _, i := range starts {
		x := &occ[i]
		t := x.from
		for ; e < n && occ[ends[e]].to < t; e++ {
			live.set(rank[ends[e]], math.MinInt64)
		}
		// The live occupants that overlap x start below x's end (ranks
		// [0, below)) and end above x's offset.
		below := sort.Search(n, func(r int) bool { return offs[r] >= x.end })
		live.each(below, x.off, func(r int) {
			j := byOff[r]
			if !c.takesOver(j, i, t) && !c.takesOver(i, j, t) {
				c.overlap(j, i)
			}
		})
		live.set(rank[i], x.end)
	}
}

// takesOver reports whether occupant bi may sit over occupant ai at t by
// the reuse exception of rule 4: both are placements, ai ends at t where
// its block's life ends, bi starts at t where its block's life starts, at
// the same offset of the same level, and the kind rule lets bi's block
// take ai's block's space. (Whether the rest of bi's range is free is
// judged pair by pair: bi meets every other live occupant as any does.)
func (c *checker) takesOver(ai, bi, t int) bool {
	a, b := &c.occ[ai], &c.occ[bi]
	return a.kind == occPlace && b.kind == occPlace && a.to == t && b.from == t && a.l == b.l && a.off == b.off &&
		mayTakeOver(&c.prog.Blocks[a.b], &c.prog.Blocks[b.b], t)
}

// overlap reports occupants ai and bi (bi the later) sharing addresses:
// two placements under rule 4 now, a pair with a resident range under
// rule 10 and any other pair with a copy's reservation under rule 9, when
// those rules run.
func (c *checker) overlap(ai, bi int) {
	a, b := &c.occ[ai], &c.occ[bi]
	if a.kind != occPlace || b.kind != occPlace {
		h := &c.reservedHits[0]
		if a.kind == occResident || b.kind == occResident {
			h = &c.reservedHits[1]
		}
		if len(h.pairs) < c.opt.MaxViolations {
			h.pairs = append(h.pairs, [2]int{ai, bi})
		} else {
			h.more++
		}
		return
	}
	from, to := max(a.from, b.from), min(a.to, b.to)
	an, bn := c.prog.Blocks[a.b].Name, c.prog.Blocks[b.b].Name
	c.add(4, bn, from, to, "blocks %q and %q overlap in level %s at timesteps [%d,%d], bytes [%d,%d)",
		an, bn, c.prof.Levels[a.l].Name, from, to, max(a.off, b.off), min(a.end, b.end))
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
