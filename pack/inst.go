package pack

import (
	"slices"
)

// inst is a problem compiled for the solvers: times replaced by section
// indices, and adjacency in compressed-sparse-row form.
//
// Section k is the elementary time interval [times[k], times[k+1]) between
// two consecutive distinct endpoints. Buffer b is alive on sections
// [lo[b], hi[b]); two buffers conflict exactly when their section ranges
// intersect. The buffers b conflicts with are those alive in its first
// section that start before it, and those that start while it is alive
// (confParts): no list of conflicting pairs is kept, as there can be
// quadratically many (75 million for 30 000 buffers of a compiler trace).
type inst struct {
	n, ns       int
	size, align []int64 // align >= 1
	lo, hi      []int32
	length      []int64 // upper - lower, in time units
	counts      []int32 // per section: the number of buffers alive in it
	coverSize   int64   // the sum of the buffers' section counts (of counts)
	// The cover lists, built by ensureCover for the branch and bound only
	// (their size is the sum of the buffers' section counts: 193 million
	// entries, 1.5 GB, on idealloc's Y_1, where the greedy needs none):
	coverStart []int32 // buffers alive in section s: cover[coverStart[s]:coverStart[s+1]]
	cover      []int32
	posStart   []int32 // where buffer b sits in each of its sections' cover lists:
	pos        []int32 // pos[posStart[b]+s-lo[b]] is an index into cover
	byLo       []int32 // buffers by first section (by index within one)
	loStart    []int32 // buffers starting in sections [a, c): byLo[loStart[a]:loStart[c]]
	deg        []int32 // per buffer: the number of buffers it conflicts with
	edges      int64   // sum of deg
	classPrev  []int32 // previous buffer of b's symmetry class, or -1
	demand     []int64 // total size alive in each section
	total      []int64 // per buffer: the largest demand among its sections
	g          int64   // every canonical offset is a multiple of g
	maxLive    int64
	// masks are the branch and bound's reason masks (search.go), built on
	// its first use.
	masks *reasonMasks
	// occ is the greedy passes' occupancy tree, reused by each (an inst
	// belongs to one Solve, which runs the passes one after another).
	occ *occupancy
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func roundUp(x, a int64) int64 {
	if a <= 1 {
		return x
	}
	if r := x % a; r != 0 {
		return x + a - r
	}
	return x
}

// newInst compiles p, in O(n log n + ns log ns) time and memory: the
// cover lists, whose size is the total number of sections the buffers are
// alive in, wait for ensureCover. It calls stop every
// few thousand buffers and returns nil as soon as stop says so.
func newInst(p *Problem, stop func() bool) *inst {
	n := len(p.Buffers)
	in := &inst{n: n}
	// every reports whether stop said so, asking every 4096 steps i.
	every := func(i int) bool { return i&4095 == 4095 && stop() }
	times := make([]int64, 0, 2*n)
	for _, b := range p.Buffers {
		times = append(times, b.Lower, b.Upper)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	if stop() {
		return nil
	}
	ns := max(len(times)-1, 0)
	in.ns = ns
	rank := func(t int64) int32 {
		i, _ := slices.BinarySearch(times, t)
		return int32(i)
	}
	in.size = make([]int64, n)
	in.align = make([]int64, n)
	in.lo = make([]int32, n)
	in.hi = make([]int32, n)
	in.length = make([]int64, n)
	var g int64
	// Differences of the demand and of the number of buffers alive per
	// section, summed below: O(n + ns), whatever the lifetimes.
	dd := make([]int64, ns+1)
	counts := make([]int32, ns+1)
	starts := make([]int32, ns+1)
	for i, b := range p.Buffers {
		in.size[i] = b.Size
		in.align[i] = max(b.Align, 1)
		lo, hi := rank(b.Lower), rank(b.Upper)
		in.lo[i], in.hi[i] = lo, hi
		in.length[i] = b.Upper - b.Lower
		g = gcd(g, b.Size)
		if b.Align > 1 {
			g = gcd(g, b.Align)
		}
		dd[lo] += b.Size
		dd[hi] -= b.Size
		counts[lo]++
		counts[hi]--
		starts[lo]++
		if every(i) {
			return nil
		}
	}
	if g == 0 {
		g = 1
	}
	in.g = g
	in.demand = make([]int64, ns)
	var d int64
	var c int32
	for s := 0; s < ns; s++ {
		d += dd[s]
		c += counts[s]
		in.demand[s], counts[s] = d, c
		in.coverSize += int64(c)
		in.maxLive = max(in.maxLive, d)
	}
	counts[ns] = 0
	// total: the largest demand over each buffer's sections, from a sparse
	// table of range maxima (O(ns log ns) to build, O(1) a query).
	in.total = make([]int64, n)
	rmq := newRangeMax(in.demand)
	for i := 0; i < n; i++ {
		in.total[i] = rmq.max(in.lo[i], in.hi[i])
	}
	in.counts = counts
	if stop() {
		return nil
	}
	// Buffers by first section (a counting sort, stable by index), and
	// each buffer's number of conflicts: those alive in its first section
	// that start before it, plus those that start while it is alive.
	in.loStart = make([]int32, ns+1)
	for s := 0; s < ns; s++ {
		in.loStart[s+1] = in.loStart[s] + starts[s]
	}
	in.byLo = make([]int32, n)
	next := append([]int32(nil), in.loStart[:ns]...)
	in.deg = make([]int32, n)
	for i := 0; i < n; i++ {
		lo, hi := in.lo[i], in.hi[i]
		in.byLo[next[lo]] = int32(i)
		next[lo]++
		in.deg[i] = counts[lo] - starts[lo] + in.loStart[hi] - in.loStart[lo] - 1
		in.edges += int64(in.deg[i])
	}
	// Symmetry classes: same sections, size and alignment.
	in.classPrev = make([]int32, n)
	type key struct {
		lo, hi      int32
		size, align int64
	}
	last := map[key]int32{}
	for i := 0; i < n; i++ {
		k := key{in.lo[i], in.hi[i], in.size[i], in.align[i]}
		if j, ok := last[k]; ok {
			in.classPrev[i] = j
		} else {
			in.classPrev[i] = -1
		}
		last[k] = int32(i)
	}
	return in
}

// ensureCover builds the cover lists (the buffers alive in each section,
// and where each buffer sits in them) if they are not built yet. It costs
// O(n + ns) plus the sum of the buffers' section counts, in time and in
// memory. It calls stop (if not nil) every few thousand buffers and
// reports false, building nothing, as soon as stop says so.
func (in *inst) ensureCover(stop func() bool) bool {
	if in.cover != nil || in.n == 0 {
		return true
	}
	ns, n := in.ns, in.n
	coverStart := make([]int32, ns+1)
	for s := 0; s < ns; s++ {
		coverStart[s+1] = coverStart[s] + in.counts[s]
	}
	cover := make([]int32, coverStart[ns])
	fill := append([]int32(nil), coverStart[:ns]...)
	posStart := make([]int32, n+1)
	for i := 0; i < n; i++ {
		posStart[i+1] = posStart[i] + in.hi[i] - in.lo[i]
	}
	pos := make([]int32, posStart[n])
	for i := 0; i < n; i++ {
		for s := in.lo[i]; s < in.hi[i]; s++ {
			cover[fill[s]] = int32(i)
			pos[posStart[i]+s-in.lo[i]] = fill[s]
			fill[s]++
		}
		if i&4095 == 4095 && stop != nil && stop() {
			return false
		}
	}
	in.coverStart, in.cover, in.posStart, in.pos = coverStart, cover, posStart, pos
	return true
}

// The branch and bound's memory, per entry of the cover lists, per
// section and per buffer, in bytes (see searchBytes).
const (
	// cover and pos (int32 each), the searcher's lbc (int64).
	bytesPerCover = 4 + 4 + 8
	// coverStart (int32); the searcher's h, hr, D, m, V, Z2 (8 bytes
	// each), cross and dmark (4 each); its stacks of sections (dirty,
	// wasted, bounds: up to 16 more); the reason masks (four of 8).
	bytesPerSection = 4 + 6*8 + 2*4 + 16 + 4*8
	// posStart (int32); the searcher's lb, off, Z (8 each) and placed
	// (1); the rankings it caches (up to five of 4 bytes) and the keys it
	// sorts them by (32); its candidate stacks (up to 16); the reason
	// mask (8).
	bytesPerBuffer = 4 + 3*8 + 1 + 5*4 + 32 + 16 + 8
	// The table of failed subproblems at its largest (4M entries).
	bytesNogoods = 8 << 22
)

// searchBytes estimates the memory the branch and bound takes on in, from
// the sizes alone, before it allocates anything: the cover lists that
// ensureCover builds and a searcher's state (one at a time: each probe's
// is garbage by the next), plus its table of failed subproblems at its
// largest. The trail, which grows with the depth of the search, is left
// out: it holds one region's changes at a time.
func (in *inst) searchBytes() int64 {
	return in.coverSize*bytesPerCover + int64(in.ns)*bytesPerSection + int64(in.n)*bytesPerBuffer + bytesNogoods
}

// rangeMax answers range-maximum queries over a fixed slice (a sparse
// table: level k holds the maxima of the runs of 2^k values).
type rangeMax struct {
	levels [][]int64
}

func newRangeMax(v []int64) *rangeMax {
	r := &rangeMax{levels: [][]int64{v}}
	for w := 1; 2*w <= len(v); w *= 2 {
		prev := r.levels[len(r.levels)-1]
		next := make([]int64, len(prev)-w)
		for i := range next {
			next[i] = max(prev[i], prev[i+w])
		}
		r.levels = append(r.levels, next)
	}
	return r
}

// max returns the largest of v[a:c] (a < c).
func (r *rangeMax) max(a, c int32) int64 {
	k := 0
	for 2<<k <= c-a {
		k++
	}
	l := r.levels[k]
	return max(l[a], l[c-1<<k])
}

// confParts returns (after ensureCover) the buffers b conflicts with, in two parts, each of
// which holds others too: early, the buffers alive in b's first section,
// of which those that start before it (lo < lo[b]) conflict with b; late,
// the buffers that start while b is alive, all of which conflict with b
// except b itself. Each conflicting buffer is in exactly one part.
func (in *inst) confParts(b int32) (early, late []int32) {
	lo := in.lo[b]
	return in.coverOf(lo), in.byLo[in.loStart[lo]:in.loStart[in.hi[b]]]
}

func (in *inst) coverOf(s int32) []int32 {
	return in.cover[in.coverStart[s]:in.coverStart[s+1]]
}
