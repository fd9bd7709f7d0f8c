package pack

import (
	"slices"
)

// occupancy holds the placed buffers of a greedy pass so that a new buffer
// finds the gaps between the placed buffers it conflicts with without
// looking at each of them.
//
// It is a segment tree over the sections. A placed buffer alive on
// sections [lo, hi) is stored, as its memory interval, in the O(log ns)
// nodes that decompose [lo, hi) (own), and in every node above them
// (sub): sub[v] is the union of the intervals of the buffers stored at v
// or below it, own[v] that of the buffers stored at v itself. Both are
// kept as sorted lists of disjoint runs: intervals that overlap or touch
// are merged. A query over [lo, hi) reads sub of the nodes that decompose
// [lo, hi) and own of their ancestors: a placed buffer conflicts with the
// query exactly when one of its nodes lies below a decomposing node (it is
// in that node's sub) or above one (in that ancestor's own). The union of
// those lists is the union of the conflicting buffers' intervals, whose
// holes are the gaps the greedy chooses among: the same gaps as a scan of
// the conflicting buffers in order of offset.
//
// The lists stay short where it matters: over a long time range the
// buffers' union is nearly solid (few runs), and over a short one few
// buffers are alive. Storing a buffer costs O(log ns) list insertions.
type occupancy struct {
	leaves int32
	own    [][]run
	sub    [][]run
	mark   []uint32 // per node: the generation that last visited it
	gen    uint32
	// The nodes above depth cacheDepth (index below 1<<cacheDepth) cache
	// path[v], the union of the own lists of v and of all its ancestors,
	// computed at clock pathAt[v] (0: never); ver[v] is the clock of the
	// last change to own[v]. A path is stale when its node's own list
	// changed or its parent's path was computed anew since.
	cacheDepth int
	clock      uint64
	path       [][]run
	pathAt     []uint64
	ver        []uint64
	lists      [][]run // a query's lists
	pending    []int32 // a query's cached nodes whose paths it reads
	runs       []run   // a query's runs: the union merged so far
	heads      []head  // firstHole's heap of the lists' heads
	heapRuns   int     // runs firstHole reads from the heap (heapRuns)
	tails      [][]run // firstHoleRest's lists
	spare      []run   // the other buffer of union
}

// run is a half-open memory interval [s, e).
type run struct{ s, e int64 }

func newOccupancy(ns int) *occupancy {
	leaves := int32(1)
	for int(leaves) < ns {
		leaves *= 2
	}
	// Cache the paths of the top levels, down to the nodes that span 512
	// to 1023 sections: their own lists hold the long-lived buffers, which
	// most queries read. (On Y_1 caching down to 128-255 sections was as
	// fast with 25 MB more, down to 32-63 slower: more paths go stale.)
	cd := 0
	for 1<<(cd+1) <= int(leaves)/128 {
		cd++
	}
	return &occupancy{
		leaves:     leaves,
		own:        make([][]run, 2*leaves),
		sub:        make([][]run, 2*leaves),
		mark:       make([]uint32, 2*leaves),
		cacheDepth: cd,
		heapRuns:   heapRuns,
		clock:      1,
		path:       make([][]run, 1<<cd),
		pathAt:     make([]uint64, 1<<cd),
		ver:        make([]uint64, 1<<cd),
	}
}

// reset empties the tree, keeping its lists' memory for the next pass.
func (o *occupancy) reset() {
	for i := range o.own {
		o.own[i] = o.own[i][:0]
		o.sub[i] = o.sub[i][:0]
	}
	clear(o.pathAt)
	clear(o.ver)
	o.clock = 1
}

// cached reports whether node v caches its path.
func (o *occupancy) cached(v int32) bool { return v < 1<<o.cacheDepth }

// pathOf returns v's path (the union of the own lists of v and its
// ancestors; v cached), computing anew the stale paths from the root down.
func (o *occupancy) pathOf(v int32) []run {
	var chain [32]int32
	k := 0
	for x := v; x >= 1; x >>= 1 {
		chain[k] = x
		k++
	}
	var parentAt uint64
	for i := k - 1; i >= 0; i-- {
		x := chain[i]
		if at := o.pathAt[x]; at == 0 || at < o.ver[x] || at < parentAt {
			o.runs = o.runs[:0]
			if x > 1 {
				o.union(o.path[x>>1])
			}
			o.union(o.own[x])
			o.path[x] = append(o.path[x][:0], o.runs...)
			o.clock++
			o.pathAt[x] = o.clock
		}
		parentAt = o.pathAt[x]
	}
	return o.path[v]
}

// insertRun adds [s, e) to the sorted disjoint runs rs, merging it with
// every run it overlaps or touches.
func insertRun(rs []run, s, e int64) []run {
	// i: the first run that ends at or after s (it may merge with [s, e)).
	i, j := 0, len(rs)
	for i < j {
		m := int(uint(i+j) >> 1)
		if rs[m].e < s {
			i = m + 1
		} else {
			j = m
		}
	}
	j = i
	for j < len(rs) && rs[j].s <= e {
		s, e = min(s, rs[j].s), max(e, rs[j].e)
		j++
	}
	if i == j {
		return slices.Insert(rs, i, run{s, e})
	}
	rs[i] = run{s, e}
	return slices.Delete(rs, i+1, j)
}

func (o *occupancy) nextGen() {
	o.gen++
	if o.gen == 0 {
		clear(o.mark)
		o.gen = 1
	}
}

// add stores the interval [s, e) of a buffer alive on sections [lo, hi).
func (o *occupancy) add(lo, hi int32, s, e int64) {
	o.nextGen()
	for l, r := lo+o.leaves, hi+o.leaves; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			o.addAt(l, s, e)
			l++
		}
		if r&1 == 1 {
			r--
			o.addAt(r, s, e)
		}
	}
}

// addAt stores [s, e) at node u: in its own list, and in the sub lists of
// u and of its ancestors not yet visited by this add.
func (o *occupancy) addAt(u int32, s, e int64) {
	o.own[u] = insertRun(o.own[u], s, e)
	if o.cached(u) {
		o.clock++
		o.ver[u] = o.clock
	}
	for v := u; v >= 1 && o.mark[v] != o.gen; v >>= 1 {
		o.mark[v] = o.gen
		o.sub[v] = insertRun(o.sub[v], s, e)
	}
}

// place returns the offset the greedy gives a buffer of the given size
// and alignment alive on sections [lo, hi): with bestFit, the lowest
// aligned offset of the smallest hole (between the intervals of the
// stored buffers alive with it) that holds it; else the lowest offset of
// the lowest such hole; above them all if no hole holds it.
func (o *occupancy) place(lo, hi int32, size, al int64, bestFit bool) int64 {
	o.nextGen()
	o.lists = o.lists[:0]
	for l, r := lo+o.leaves, hi+o.leaves; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			o.gather(l)
			l++
		}
		if r&1 == 1 {
			r--
			o.gather(r)
		}
	}
	// The cached paths, computed after gathering (pathOf uses o.runs).
	for _, v := range o.pending {
		if p := o.pathOf(v); len(p) > 0 {
			o.lists = append(o.lists, p)
		}
	}
	o.pending = o.pending[:0]
	if !bestFit {
		return o.firstHole(size, al)
	}
	// Shortest lists first, so that the union merged so far stays short
	// until the long lists come (insertion sort: the lists are few).
	ls := o.lists
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && len(ls[j]) < len(ls[j-1]); j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
	o.runs = o.runs[:0]
	if len(ls) == 0 {
		return 0
	}
	for _, l := range ls[:len(ls)-1] {
		o.union(l)
	}
	return holeIn(o.runs, ls[len(ls)-1], 0, size, al, true)
}

// holeIn returns the offset the greedy gives a buffer of the given size
// and alignment in the union of the sorted disjoint runs a and b, above
// cur (an end read before them; they start at or above it): with
// bestFit, the lowest aligned offset of the smallest hole that holds it,
// else that of the lowest such hole; above them all if none does. It
// reads the two in order of start without writing their union out: b is
// a query's longest list, and merging it in took 8-15% of a greedy pass
// on idealloc's Y_1 and on a 64,000-buffer compiler trace.
func holeIn(a, b []run, cur, size, al int64, bestFit bool) int64 {
	best, bestGap := int64(-1), int64(-1)
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var r run
		if j == len(b) || (i < len(a) && a[i].s <= b[j].s) {
			r = a[i]
			i++
		} else {
			r = b[j]
			j++
		}
		if r.s > cur {
			if at := roundUp(cur, al); at+size <= r.s {
				if !bestFit {
					return at
				}
				if gap := r.s - cur; best < 0 || gap < bestGap {
					best, bestGap = at, gap
				}
			}
		}
		cur = max(cur, r.e)
	}
	if best < 0 {
		best = roundUp(cur, al)
	}
	return best
}

// firstHole returns the lowest aligned offset of the lowest hole of the
// union of the query's lists that holds a buffer of the given size and
// alignment (above them all if none does). It reads the lists' runs in
// order of start, the next one from a heap of the lists' heads, only as
// far as that hole: the runs read in order give the union's holes where a
// run starts above the highest end read so far. First fit usually finds
// its hole among the first few runs of a union of a hundred or more.
func (o *occupancy) firstHole(size, al int64) int64 {
	h := o.heads[:0]
	for k, l := range o.lists {
		if len(l) > 0 {
			h = append(h, head{l[0].s, int32(k), 0})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	var cur int64
	for read := 0; len(h) > 0; read++ {
		if read == o.heapRuns {
			o.heads = h
			return o.firstHoleRest(h, cur, size, al)
		}
		x := &h[0]
		l := o.lists[x.list]
		r := l[x.at]
		if r.s > cur {
			if at := roundUp(cur, al); at+size <= r.s {
				o.heads = h
				return at
			}
		}
		cur = max(cur, r.e)
		if x.at++; int(x.at) < len(l) {
			x.s = l[x.at].s
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		siftDown(h, 0)
	}
	o.heads = h
	return roundUp(cur, al)
}

// heapRuns is how many runs firstHole reads from its heap before it
// merges the rest of the lists as best fit does (occupancy.heapRuns; tests
// set less): a heap costs a few comparisons a run, a merge less where one
// list holds most runs, and when the hole is far up (long-lived buffers
// alive by thousands, where first fit read most of the runs) the heap
// alone was slower than the merge.
const heapRuns = 32

// firstHoleRest is firstHole past its first heapRuns runs: it merges what
// is left of the lists (from the heads in h on: every run left starts at
// or above the runs read) and goes on from cur, the highest end read.
func (o *occupancy) firstHoleRest(h []head, cur, size, al int64) int64 {
	tails := o.tails[:0]
	for _, x := range h {
		tails = append(tails, o.lists[x.list][x.at:])
	}
	for i := 1; i < len(tails); i++ {
		for j := i; j > 0 && len(tails[j]) < len(tails[j-1]); j-- {
			tails[j], tails[j-1] = tails[j-1], tails[j]
		}
	}
	o.runs = o.runs[:0]
	for _, l := range tails[:len(tails)-1] {
		o.union(l)
	}
	o.tails = tails
	return holeIn(o.runs, tails[len(tails)-1], cur, size, al, false)
}

// head is where firstHole is in one of the query's lists: at the run at
// of list, which starts at s.
type head struct {
	s        int64
	list, at int32
}

// siftDown restores the heap order (least s on top) of h below i.
func siftDown(h []head, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].s < h[c].s {
			c++
		}
		if h[i].s <= h[c].s {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// gather adds to the query's lists node u's sub list and its ancestors'
// own lists (those not yet visited by this query), leaving out empty ones.
func (o *occupancy) gather(u int32) {
	if len(o.sub[u]) > 0 {
		o.lists = append(o.lists, o.sub[u])
	}
	for v := u >> 1; v >= 1 && o.mark[v] != o.gen; v >>= 1 {
		if o.cached(v) {
			// The rest of the way up in one list: mark it all.
			for x := v; x >= 1 && o.mark[x] != o.gen; x >>= 1 {
				o.mark[x] = o.gen
			}
			o.pending = append(o.pending, v)
			return
		}
		o.mark[v] = o.gen
		if len(o.own[v]) > 0 {
			o.lists = append(o.lists, o.own[v])
		}
	}
}

// union merges the sorted disjoint runs b into o.runs, which stay sorted
// and disjoint (runs that overlap or touch become one): linear in both.
// Once one side is used up, the rest of the other (disjoint, and above
// all that was merged but the runs it still overlaps) is copied in one
// piece.
func (o *occupancy) union(b []run) {
	if len(b) == 0 {
		return
	}
	a := o.runs
	if len(a) == 0 {
		o.runs = append(o.runs, b...)
		return
	}
	out := slices.Grow(o.spare[:0], len(a)+len(b))
	var cur run // the run being merged, not yet in out
	i, j := 0, 0
	if a[0].s <= b[0].s {
		cur, i = a[0], 1
	} else {
		cur, j = b[0], 1
	}
	for i < len(a) && j < len(b) {
		var r run
		if a[i].s <= b[j].s {
			r = a[i]
			i++
		} else {
			r = b[j]
			j++
		}
		if r.s <= cur.e {
			cur.e = max(cur.e, r.e)
		} else {
			out = append(out, cur)
			cur = r
		}
	}
	rest := a[i:]
	if j < len(b) {
		rest = b[j:]
	}
	for len(rest) > 0 && rest[0].s <= cur.e {
		cur.e = max(cur.e, rest[0].e)
		rest = rest[1:]
	}
	out = append(out, cur)
	out = append(out, rest...)
	o.runs, o.spare = out, a
}
