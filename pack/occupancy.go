package pack

import (
	"cmp"
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
	runs   []run // a query's runs: the union gathered so far
	spare  []run // the other buffer of union
}

// run is a half-open memory interval [s, e).
type run struct{ s, e int64 }

func newOccupancy(ns int) *occupancy {
	leaves := int32(1)
	for int(leaves) < ns {
		leaves *= 2
	}
	return &occupancy{
		leaves: leaves,
		own:    make([][]run, 2*leaves),
		sub:    make([][]run, 2*leaves),
		mark:   make([]uint32, 2*leaves),
	}
}

// insertRun adds [s, e) to the sorted disjoint runs rs, merging it with
// every run it overlaps or touches.
func insertRun(rs []run, s, e int64) []run {
	// i: the first run that ends at or after s (it may merge with [s, e)).
	i, _ := slices.BinarySearchFunc(rs, s, func(r run, x int64) int { return cmp.Compare(r.e, x) })
	j := i
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
	o.runs = o.runs[:0]
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
	var cur int64
	best, bestGap := int64(-1), int64(-1)
	for _, r := range o.runs {
		if r.s > cur {
			if at := roundUp(cur, al); at+size <= r.s {
				gap := r.s - cur
				if best < 0 || (bestFit && gap < bestGap) {
					best, bestGap = at, gap
				}
				if !bestFit {
					break
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

// gather merges into o.runs (the union so far) node u's sub list and its
// ancestors' own lists (those not yet visited by this query).
func (o *occupancy) gather(u int32) {
	o.union(o.sub[u])
	for v := u >> 1; v >= 1 && o.mark[v] != o.gen; v >>= 1 {
		o.mark[v] = o.gen
		o.union(o.own[v])
	}
}

// union merges the sorted disjoint runs b into o.runs, which stay sorted
// and disjoint (runs that overlap or touch become one): linear in both.
func (o *occupancy) union(b []run) {
	if len(b) == 0 {
		return
	}
	a := o.runs
	if len(a) == 0 {
		o.runs = append(o.runs, b...)
		return
	}
	out := o.spare[:0]
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
		if k := len(out) - 1; k >= 0 && r.s <= out[k].e {
			out[k].e = max(out[k].e, r.e)
		} else {
			out = append(out, r)
		}
	}
	o.runs, o.spare = out, a
}
