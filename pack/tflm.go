package pack

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// TFLM places the buffers the way TensorFlow Lite Micro's runtime planner
// does (GreedyMemoryPlanner, tensorflow/lite/micro/memory_planner): the
// baseline every TFLM user gets when a model carries no offline plan.
//
// Buffers with a fixed offset (fixed[i] >= 0; fixed may be nil) keep it
// and are placed first, in input order: TFLM's offline-planned tensors.
// The others go by decreasing size, ties in decreasing input order (TFLM
// lists them from the end of its array, then sorts with a stable bubble
// sort), each at the first gap from offset 0 upwards that holds it between
// the already placed buffers alive at the same time (walked in the order of
// their offsets, ties in the order they were placed), else above the last
// of them. Buffers alive at the same time are those whose intervals
// [Lower, Upper) meet; Align is ignored (TFLM rounds every size up to 16
// bytes first and places at multiples of it: give it sizes so rounded).
// The result is TFLM's to the byte: one offset per buffer, in input order,
// and the peak, max(offset+size).
//
// stop, if not nil, is asked every 256 buffers placed; when it returns
// true TFLM returns nil offsets and peak -1. The runtime's walk is
// quadratic in the number of buffers; from 1,024 buffers on TFLM finds
// the same gaps in an occupancy tree (see greedyTree), in O(n log n) plus
// the runs it reads.
func TFLM(p *Problem, fixed []int64, stop func() bool) (offs []int64, peak int64) {
	return tflm(p, fixed, stop, tflmAuto)
}

// How tflm finds its gaps: the runtime's walk below scanBelow buffers
// (faster there) and the occupancy tree from there on, or either always.
const (
	tflmAuto = iota
	tflmWalk
	tflmTree
)

// tflm is TFLM, its gaps found as mode says.
func tflm(p *Problem, fixed []int64, stop func() bool, mode int) (offs []int64, peak int64) {
	n := len(p.Buffers)
	offs = make([]int64, n)
	order := make([]int, 0, n)
	var online []int
	for i := range n {
		if fixed != nil && fixed[i] >= 0 {
			order = append(order, i)
			offs[i] = fixed[i]
		} else {
			online = append(online, i)
		}
	}
	slices.SortStableFunc(online, func(a, b int) int {
		if c := cmp.Compare(p.Buffers[b].Size, p.Buffers[a].Size); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	order = append(order, online...)
	isFixed := func(i int) bool { return fixed != nil && fixed[i] >= 0 }
	walk := mode == tflmWalk || (mode == tflmAuto && n < scanBelow)
	for _, b := range p.Buffers {
		if walk || b.Lower >= b.Upper || b.Size <= 0 {
			// An empty lifetime [t, t) is alive with every buffer around t
			// in TFLM's test (intervals that meet), which sections cannot
			// say, and an empty buffer fits a gap of 0 bytes, which a union
			// has not: walk the placed buffers as the runtime does.
			return tflmScan(p, order, offs, isFixed, stop)
		}
	}
	// The first gap between the placed buffers alive with b, walked in
	// order of offset, is the lowest hole of the union of their memory
	// intervals: an occupancy tree over the sections finds it without
	// walking them (the walk is quadratic: 2.5 s on 62,185 buffers).
	times := make([]int64, 0, 2*n)
	for _, b := range p.Buffers {
		times = append(times, b.Lower, b.Upper)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	rank := func(t int64) int32 {
		i, _ := slices.BinarySearch(times, t)
		return int32(i)
	}
	occ := newOccupancy(max(len(times)-1, 1))
	for k, i := range order {
		if stop != nil && k%256 == 255 && stop() {
			return nil, -1
		}
		b := p.Buffers[i]
		lo, hi := rank(b.Lower), rank(b.Upper)
		if !isFixed(i) {
			offs[i] = occ.place(lo, hi, b.Size, 1, false)
		}
		occ.add(lo, hi, offs[i], offs[i]+b.Size)
		peak = max(peak, offs[i]+b.Size)
	}
	return offs, peak
}

// tflmScan is TFLM's walk as the runtime does it: each buffer scans the
// placed buffers in order of offset (ties in the order they were placed).
func tflmScan(p *Problem, order []int, offs []int64, isFixed func(int) bool, stop func() bool) ([]int64, int64) {
	var peak int64
	n := len(p.Buffers)
	// placed lists the placed buffers by offset; a new one goes after
	// every placed buffer with an offset not above its own.
	placed := make([]int, 0, n)
	for k, i := range order {
		if stop != nil && k%256 == 255 && stop() {
			return nil, -1
		}
		b := p.Buffers[i]
		if !isFixed(i) {
			var cand int64
			for _, j := range placed {
				q := p.Buffers[j]
				if q.Lower >= b.Upper || b.Lower >= q.Upper {
					continue // not alive at the same time
				}
				if offs[j]-cand >= b.Size {
					break // the gap below j holds b
				}
				cand = max(cand, offs[j]+q.Size)
			}
			offs[i] = cand
		}
		at, _ := slices.BinarySearchFunc(placed, offs[i], func(j int, o int64) int {
			if offs[j] <= o {
				return -1
			}
			return 1
		})
		placed = slices.Insert(placed, at, i)
		peak = max(peak, offs[i]+b.Size)
	}
	return offs, peak
}

// TFLMAligned is TFLM without fixed buffers, its offsets multiples of
// every buffer's Align: TFLM places at sums of sizes and relies on every
// size being a multiple of its alignment (it rounds sizes up to 16 bytes),
// so TFLMAligned runs it on sizes rounded up to a multiple of every Align
// (their least common multiple, the largest where all are powers of two;
// sizes unchanged where no buffer has an Align above 1). It does not round
// them to 16. The offsets are TFLM's on the rounded sizes; peak is
// max(offset+Size) with the sizes as given.
//
// stop is as for TFLM: when it cuts the walk, nil offsets and peak -1. The
// error says that the rounded sizes do not fit an int64 (alignments whose
// least common multiple is that large); then no arena this rule makes
// would fit any memory.
func TFLMAligned(p *Problem, stop func() bool) (offs []int64, peak int64, err error) {
	unit := int64(1)
	for _, b := range p.Buffers {
		if b.Align > 1 {
			if unit, err = lcm(unit, b.Align); err != nil {
				return nil, -1, err
			}
		}
	}
	q := p
	if unit > 1 {
		q = &Problem{Buffers: slices.Clone(p.Buffers), Capacity: p.Capacity}
		var sum int64
		for i := range q.Buffers {
			b := &q.Buffers[i]
			if r := b.Size % unit; r != 0 {
				if b.Size > math.MaxInt64-(unit-r) {
					return nil, -1, fmt.Errorf("pack: TFLM: buffer %q's size %d rounded up to %d overflows", b.ID, b.Size, unit)
				}
				b.Size += unit - r
			}
			if sum > math.MaxInt64-b.Size {
				return nil, -1, fmt.Errorf("pack: TFLM: the sizes rounded up to %d add up beyond %d", unit, int64(math.MaxInt64))
			}
			sum += b.Size
		}
	}
	offs, _ = TFLM(q, nil, stop)
	if offs == nil {
		return nil, -1, nil
	}
	for i, b := range p.Buffers {
		peak = max(peak, offs[i]+b.Size)
	}
	return offs, peak, nil
}

// lcm returns the least common multiple of a and b (both positive), or an
// error if it overflows.
func lcm(a, b int64) (int64, error) {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	a /= x
	if a > math.MaxInt64/b {
		return 0, fmt.Errorf("pack: TFLM: the alignments' least common multiple overflows (%d and %d)", a*x, b)
	}
	return a * b, nil
}
