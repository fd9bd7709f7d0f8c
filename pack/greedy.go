package pack

import (
	"cmp"
	"slices"
)

// greedyOrder names one ordering of the greedy portfolio.
type greedyOrder int

const (
	bySize     greedyOrder = iota // size, largest first (TFLite's greedy by size)
	byArea                        // size × lifetime, largest first
	byLength                      // lifetime, longest first
	byTotal                       // busiest section the buffer is alive in, then size
	byStart                       // start time, earliest first, then size
	byConflict                    // number of conflicting buffers, most first
	bySizeEnd                     // size, largest first, then latest end first (from scanBelow buffers on)
	numGreedyOrders
)

// greedyPack places the buffers one by one in the given order, each at the
// lowest offset of the gap that fits it best (bestFit) or at the lowest
// offset where it fits (first fit), among the buffers already placed that it
// conflicts with. It returns the offsets and the peak, or ok false if stop
// (asked every 256 buffers) cut the pass. Below scanBelow buffers it scans
// the placed buffers (greedyScan), from there on it reads an occupancy
// tree (greedyTree): the same offsets either way.
func greedyPack(in *inst, order []int32, bestFit bool, stop func() bool) (offs []int64, peak int64, ok bool) {
	return greedyPackUnder(in, order, bestFit, inf, stop)
}

// greedyPackUnder is greedyPack that gives up as soon as the peak exceeds
// worst: it then returns nil offsets, ok true and the peak so far (above
// worst). The portfolio gives up a pass whose peak can no longer be the
// one it keeps; the passes it finishes give greedyPack's offsets.
func greedyPackUnder(in *inst, order []int32, bestFit bool, worst int64, stop func() bool) (offs []int64, peak int64, ok bool) {
	if in.n < scanBelow {
		return greedyScanUnder(in, order, bestFit, worst, stop)
	}
	return greedyTreeUnder(in, order, bestFit, worst, stop)
}

// scanBelow is the number of buffers from which the greedy passes and
// TFLM use the occupancy tree: on compiler traces the scan is faster
// below about 1,000 buffers (2x at 150-450, MiniMalloc's challenging
// set), the tree above (3.4x at 8,000).
const scanBelow = 1024

// greedyTree is greedyPack's pass over an occupancy tree (see
// occupancy): the gaps come from the tree, not from a scan of the placed
// buffers, so a pass costs O(n log ns) insertions plus the runs each query
// reads, which stay few where the conflicts are many.
func greedyTree(in *inst, order []int32, bestFit bool, stop func() bool) (offs []int64, peak int64, ok bool) {
	return greedyTreeUnder(in, order, bestFit, inf, stop)
}

// greedyTreeUnder is greedyTree giving up above worst (see greedyPackUnder).
func greedyTreeUnder(in *inst, order []int32, bestFit bool, worst int64, stop func() bool) (offs []int64, peak int64, ok bool) {
	offs = make([]int64, in.n)
	// One tree per instance, emptied for each pass: its lists keep their
	// memory (on small instances, allocating them was most of a pass).
	if in.occ == nil {
		in.occ = newOccupancy(in.ns)
	} else {
		in.occ.reset()
	}
	occ := in.occ
	for k, b := range order {
		if k&255 == 255 && stop() {
			return nil, 0, false
		}
		size := in.size[b]
		lo, hi := in.lo[b], in.hi[b]
		at := occ.place(lo, hi, size, in.align[b], bestFit)
		occ.add(lo, hi, at, at+size)
		offs[b] = at
		if peak = max(peak, at+size); peak > worst {
			return nil, peak, true
		}
	}
	return offs, peak, true
}

// greedyScan is the greedy pass that scans, for each buffer, the placed
// buffers it conflicts with in order of offset for the gaps. It gives the
// same offsets as greedyTree (tested), twice as fast on a few hundred
// buffers, but O(n²) or O(E log E) a pass.
func greedyScan(in *inst, order []int32, bestFit bool, stop func() bool) (offs []int64, peak int64, ok bool) {
	return greedyScanUnder(in, order, bestFit, inf, stop)
}

// greedyScanUnder is greedyScan giving up above worst (see greedyPackUnder).
func greedyScanUnder(in *inst, order []int32, bestFit bool, worst int64, stop func() bool) (offs []int64, peak int64, ok bool) {
	if !in.ensureCover(stop) { // the sparse scan reads conflicts off them
		return nil, 0, false
	}
	offs = make([]int64, in.n)
	placed := make([]bool, in.n)
	// The placed buffers, sorted by offset: scanning them in order and
	// skipping those that do not conflict gives the gaps bottom up. That
	// costs O(n²) a pass; when the conflict graph is sparse (long programs
	// have many buffers, each alive for a short while), each buffer
	// instead sorts its placed conflicting buffers, O(E log E) a pass.
	// Both give the same gaps: of buffers at one offset only the first can
	// bound a gap, and the scan ends past all of them, so ties may come in
	// any order.
	sparse := in.edges < int64(in.n)*int64(in.n)/16
	var byOff []int32
	if !sparse {
		byOff = make([]int32, 0, in.n)
	}
	var near []int32
	for k, b := range order {
		if k&255 == 255 && stop() {
			return nil, 0, false
		}
		size, al := in.size[b], in.align[b]
		lo, hi := in.lo[b], in.hi[b]
		scan := byOff
		if sparse {
			near = near[:0]
			early, late := in.confParts(b)
			for _, c := range early {
				if in.lo[c] < lo && placed[c] {
					near = append(near, c)
				}
			}
			for _, c := range late {
				if placed[c] {
					near = append(near, c)
				}
			}
			slices.SortFunc(near, func(x, y int32) int { return cmp.Compare(offs[x], offs[y]) })
			scan = near
		}
		var cur int64
		best, bestGap := int64(-1), int64(-1)
		for _, c := range scan {
			if in.lo[c] >= hi || lo >= in.hi[c] {
				continue
			}
			if o := roundUp(cur, al); o+size <= offs[c] {
				gap := offs[c] - cur
				if best < 0 || (bestFit && gap < bestGap) {
					best, bestGap = o, gap
				}
				if !bestFit {
					break
				}
			}
			cur = max(cur, offs[c]+in.size[c])
		}
		if best < 0 {
			best = roundUp(cur, al)
		}
		offs[b] = best
		placed[b] = true
		if !sparse {
			i, _ := slices.BinarySearchFunc(byOff, best, func(c int32, o int64) int { return cmp.Compare(offs[c], o) })
			byOff = slices.Insert(byOff, i, b)
		}
		if peak = max(peak, best+size); peak > worst {
			return nil, peak, true
		}
	}
	return offs, peak, true
}

// startOrderPack is the greedy pass in start order (byStart: earliest
// start first, then largest, then lowest index), computed from the problem
// itself, without the compiled instance: the buffers a buffer conflicts
// with among those placed before it are exactly those still alive when it
// starts, which are disjoint in memory. So the runs they cover, sorted by
// offset, with the ended ones cut out, give the same gaps as greedyPack in
// the same order, and the same offsets, at a cost of O(n log n) plus the
// runs at each start: no conflict lists, no sections. Solve runs
// it before anything else, so that a packing exists however early the
// deadline comes. stop is asked every 256 buffers; when it says so, the
// buffers left are stacked above the peak (a valid packing, ok false).
func startOrderPack(p *Problem, bestFit bool, stop func() bool) (offs []int64, peak int64, ok bool) {
	return startOrderPackUnder(p, bestFit, inf, stop)
}

// startOrderPackUnder is startOrderPack giving up above worst (see
// greedyPackUnder); when stop cuts it first, it returns the stacked
// packing as startOrderPack does.
func startOrderPackUnder(p *Problem, bestFit bool, worst int64, stop func() bool) (offs []int64, peak int64, ok bool) {
	n := len(p.Buffers)
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	bs := p.Buffers
	slices.SortFunc(order, func(x, y int32) int {
		if c := cmp.Compare(bs[x].Lower, bs[y].Lower); c != 0 {
			return c
		}
		if c := cmp.Compare(bs[y].Size, bs[x].Size); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	offs = make([]int64, n)
	// The buffers alive are disjoint in memory: what they cover is kept as
	// sorted runs, buffers that touch merged into one, whose holes are the
	// gaps between them. A buffer that ends is cut out of its run (the
	// buffers left in it still cover the rest exactly). The runs are far
	// fewer than the buffers where many are alive (on idealloc's Y_1,
	// thousands are), and give the same gaps: between touching buffers
	// there is none.
	var runs []run
	ends := endHeap{bs: bs}
	for k, b := range order {
		if k&255 == 255 && stop() {
			for _, r := range order[k:] {
				offs[r] = roundUp(peak, max(bs[r].Align, 1))
				peak = offs[r] + bs[r].Size
			}
			return offs, peak, false
		}
		size, al, lower := bs[b].Size, max(bs[b].Align, 1), bs[b].Lower
		for len(ends.h) > 0 && bs[ends.h[0]].Upper <= lower {
			e := ends.pop()
			runs = cutRun(runs, offs[e], offs[e]+bs[e].Size)
		}
		var cur int64
		best, bestGap := int64(-1), int64(-1)
		for _, r := range runs {
			if o := roundUp(cur, al); o+size <= r.s {
				gap := r.s - cur
				if best < 0 || (bestFit && gap < bestGap) {
					best, bestGap = o, gap
				}
				if !bestFit {
					break
				}
			}
			cur = r.e
		}
		if best < 0 {
			best = roundUp(cur, al)
		}
		offs[b] = best
		runs = insertRun(runs, best, best+size)
		ends.push(b)
		if peak = max(peak, best+size); peak > worst {
			return nil, peak, true
		}
	}
	return offs, peak, true
}

// cutRun removes [s, e) from the sorted disjoint runs rs, where it lies
// within one run.
func cutRun(rs []run, s, e int64) []run {
	// i: the first run that ends after s, the one that holds [s, e).
	i, _ := slices.BinarySearchFunc(rs, s, func(r run, x int64) int {
		if r.e <= x {
			return -1
		}
		return 1
	})
	if i == len(rs) || rs[i].s > s || rs[i].e < e {
		panic("pack: start-order pass lost a buffer") // alive buffers lie within the runs
	}
	r := rs[i]
	switch left, right := r.s < s, e < r.e; {
	case left && right:
		rs[i] = run{r.s, s}
		return slices.Insert(rs, i+1, run{e, r.e})
	case left:
		rs[i] = run{r.s, s}
	case right:
		rs[i] = run{e, r.e}
	default:
		return slices.Delete(rs, i, i+1)
	}
	return rs
}

// endHeap is a min-heap of buffers by Upper (ties by index, so that the
// order is deterministic).
type endHeap struct {
	bs []Buffer
	h  []int32
}

func (e *endHeap) less(i, j int) bool {
	a, b := e.h[i], e.h[j]
	if e.bs[a].Upper != e.bs[b].Upper {
		return e.bs[a].Upper < e.bs[b].Upper
	}
	return a < b
}

func (e *endHeap) push(b int32) {
	e.h = append(e.h, b)
	for i := len(e.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !e.less(i, p) {
			break
		}
		e.h[i], e.h[p] = e.h[p], e.h[i]
		i = p
	}
}

func (e *endHeap) pop() int32 {
	top := e.h[0]
	last := len(e.h) - 1
	e.h[0] = e.h[last]
	e.h = e.h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && e.less(l, m) {
			m = l
		}
		if r < last && e.less(r, m) {
			m = r
		}
		if m == i {
			return top
		}
		e.h[i], e.h[m] = e.h[m], e.h[i]
		i = m
	}
}

// greedyOrdering returns the buffers sorted for one greedy order; ties go to
// the lower index, so the result is deterministic.
func greedyOrdering(in *inst, o greedyOrder) []int32 {
	idx := make([]int32, in.n)
	for i := range idx {
		idx[i] = int32(i)
	}
	key := make([][2]int64, in.n)
	for i := 0; i < in.n; i++ {
		var k [2]int64
		switch o {
		case bySize:
			k = [2]int64{in.size[i], in.length[i]}
		case byArea:
			k = [2]int64{in.size[i] * in.length[i], in.size[i]}
		case byLength:
			k = [2]int64{in.length[i], in.size[i]}
		case byTotal:
			k = [2]int64{in.total[i], in.size[i]}
		case byStart:
			k = [2]int64{-int64(in.lo[i]), in.size[i]}
		case byConflict:
			k = [2]int64{int64(in.deg[i]), in.size[i]}
		case bySizeEnd:
			k = [2]int64{in.size[i], int64(in.hi[i])}
		}
		key[i] = k
	}
	// The keys and then the index order the buffers totally, so any sort
	// gives the same order (pdqsort: several times faster than a stable
	// sort, which was 7% of a trace's greedy phase).
	slices.SortFunc(idx, func(a, b int32) int {
		ka, kb := key[a], key[b]
		if c := cmp.Compare(kb[0], ka[0]); c != 0 {
			return c
		}
		if c := cmp.Compare(kb[1], ka[1]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return idx
}

// portfolioOrders is the order in which the portfolio tries the greedy
// orders on n buffers: the busiest-section order first from scanBelow
// buffers on, else as numbered. On idealloc's Y_1 and its prefixes of
// 16,000 and 32,000 rows byTotal with best fit reaches max-live, where
// the orders numbered before it miss it (all but byLength on 16,000 rows):
// tried first, it ends Minimize's portfolio at once, where four to six
// passes that cost as much ran before it (on the generated compiler
// traces from 4,000 buffers on and on SOMAS copies no order reaches
// max-live, and every pass runs whatever the order).
//
// From scanBelow buffers on bySizeEnd comes last. Its first-fit pass packs
// 20 copies of MindSpore SOMAS resnet50 (BenchmarkPackSOMAS) 0.485% above
// max-live where the best of the others was 0.603% (bySize, whose ties by
// length interleave the copies' equal buffers otherwise); with the copies
// 300 or 700 time units apart instead of 515, 4.38% and 1.23% against
// 6.60% and 1.27%. Below scanBelow the orders stay the six numbered before
// it, which keeps the small instances' packings (the challenging set's
// among them) as they were.
func portfolioOrders(n int) []greedyOrder {
	orders := make([]greedyOrder, 0, numGreedyOrders)
	if n >= scanBelow {
		orders = append(orders, byTotal)
	}
	for o := greedyOrder(0); o < bySizeEnd; o++ {
		if o != byTotal || n < scanBelow {
			orders = append(orders, o)
		}
	}
	if n >= scanBelow {
		orders = append(orders, bySizeEnd)
	}
	return orders
}

// greedyPortfolio makes the greedy packings of every ordering (in
// portfolioOrders) with best fit and first fit, numbered in that order
// (an order's best fit first), and keeps what making them in that order
// would: the first at or below stopAt, if one is; else the lowest peak,
// the lowest number on ties. The start-order best-fit packing is given
// (first: Solve made it already); the other start-order one is made by
// startOrderPack, which gives greedyPack's offsets faster. It returns the
// offsets, the peak, the number of packings it made, and cut true if stop
// (asked between and during the passes) ended it early, in which case the
// best is among the passes it finished.
//
// A pass is given up as soon as its peak (which only grows as it places
// buffers) shows that it cannot be the one kept: once one is at or below
// stopAt, above stopAt; before, above stopAt and above the best peak so
// far, or at it where the best's number is lower. A pass numbered after
// one at or below stopAt is not made. The packing kept is the same as
// with every pass finished in order (tested), at a fraction of the cost:
// on idealloc's Y_1 most passes after the first few are given up early.
//
// From scanBelow buffers on, the passes run the first first, then from
// the last back: the first (byTotal, best fit) ends Y_1 at max-live alone,
// and the last orders (bySizeEnd, byConflict, byStart) were added for
// large instances, where they are often the best: made early, they raise
// the bar at which the others are given up. (Where an early pass but the
// first reaches stopAt, the passes after it are made first in vain; below
// scanBelow, where the orders were chosen on the challenging set, they run
// in order.) On SOMAS copies
// (BenchmarkPackSOMAS) and compiler traces of 4,000 to 64,000 buffers the
// same packings took up to 41% less time than in order: 470 -> 362 ms and
// 740 -> 426 ms on 20 copies 515 and 300 time units apart, 1.52 -> 1.16 s
// on the 64,000-buffer trace, 170 -> 145 ms on 16,000, the same on 8,000
// and 32,000.
func greedyPortfolio(in *inst, p *Problem, first []int64, firstPeak, stopAt int64, stop func() bool) (best []int64, bestPeak int64, tried int, cut bool) {
	type pass struct {
		o  greedyOrder
		bf bool
	}
	var passes []pass
	for _, o := range portfolioOrders(in.n) {
		passes = append(passes, pass{o, true}, pass{o, false})
	}
	// The best packing so far and its number; fits, the lowest number of a
	// packing at or below stopAt (len(passes) while there is none), and
	// that packing.
	bestAt, fits := -1, len(passes)
	var fit []int64
	var fitPeak int64
	keep := func(offs []int64, peak int64, k int) {
		if peak <= stopAt && k < fits {
			fit, fitPeak, fits = offs, peak, k
		}
		if bestAt < 0 || peak < bestPeak || (peak == bestPeak && k < bestAt) {
			best, bestPeak, bestAt = offs, peak, k
		}
	}
	for k, ps := range passes {
		if ps.o == byStart && ps.bf {
			keep(first, firstPeak, k)
		}
	}
	orders := make([][]int32, numGreedyOrders)
	for i := range passes {
		k := i
		if in.n >= scanBelow {
			k = (len(passes) - i) % len(passes) // 0, then from the last back
		}
		ps := passes[k]
		if k > fits {
			continue
		}
		if ps.o == byStart && ps.bf {
			continue // given
		}
		if stop() {
			return best, bestPeak, tried, true
		}
		// Above worst the pass cannot be kept: it must beat the best's
		// peak, or equal it with a lower number, or (once some pass is at
		// or below stopAt) reach stopAt.
		worst := bestPeak - 1
		if k < bestAt {
			worst = bestPeak
		}
		worst = max(worst, stopAt)
		if fits < len(passes) {
			worst = stopAt
		}
		var offs []int64
		var peak int64
		var ok bool
		if ps.o == byStart {
			offs, peak, ok = startOrderPackUnder(p, false, worst, stop)
		} else {
			if orders[ps.o] == nil {
				orders[ps.o] = greedyOrdering(in, ps.o)
			}
			offs, peak, ok = greedyPackUnder(in, orders[ps.o], ps.bf, worst, stop)
		}
		tried++
		if !ok {
			return best, bestPeak, tried, true
		}
		if offs != nil {
			keep(offs, peak, k)
		}
	}
	if fits < len(passes) {
		return fit, fitPeak, tried, false
	}
	return best, bestPeak, tried, false
}
