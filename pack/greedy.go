package pack

import (
	"cmp"
	"slices"
	"sort"
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
	numGreedyOrders
)

// greedyPack places the buffers one by one in the given order, each at the
// lowest offset of the gap that fits it best (bestFit) or at the lowest
// offset where it fits (first fit), among the buffers already placed that it
// conflicts with. It returns the offsets and the peak.
func greedyPack(in *inst, order []int32, bestFit bool) ([]int64, int64) {
	offs := make([]int64, in.n)
	placed := make([]bool, in.n)
	// The placed buffers, sorted by offset: scanning them in order and
	// skipping those that do not conflict gives the gaps bottom up. That
	// costs O(n²) a pass; when the conflict graph is sparse (long programs
	// have many buffers, each alive for a short while), each buffer
	// instead sorts its placed conflicting buffers, O(E log E) a pass.
	// Both give the same gaps: of buffers at one offset only the first can
	// bound a gap, and the scan ends past all of them, so ties may come in
	// any order.
	sparse := int64(len(in.conf)) < int64(in.n)*int64(in.n)/16
	var byOff []int32
	if !sparse {
		byOff = make([]int32, 0, in.n)
	}
	var near []int32
	var peak int64
	for _, b := range order {
		size, al := in.size[b], in.align[b]
		scan := byOff
		if sparse {
			near = near[:0]
			for _, c := range in.confOf(b) {
				if placed[c] {
					near = append(near, c)
				}
			}
			slices.SortFunc(near, func(x, y int32) int { return cmp.Compare(offs[x], offs[y]) })
			scan = near
		}
		lo, hi := in.lo[b], in.hi[b]
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
		peak = max(peak, best+size)
	}
	return offs, peak
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
			k = [2]int64{int64(in.confStart[i+1] - in.confStart[i]), in.size[i]}
		}
		key[i] = k
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := key[idx[a]], key[idx[b]]
		if ka[0] != kb[0] {
			return ka[0] > kb[0]
		}
		if ka[1] != kb[1] {
			return ka[1] > kb[1]
		}
		return idx[a] < idx[b]
	})
	return idx
}

// greedyPortfolio runs every ordering with best fit and first fit and keeps
// the lowest peak (the first one found on ties). It stops early once a
// packing reaches stopAt. It returns the offsets, the peak and the number of
// packings tried.
func greedyPortfolio(in *inst, stopAt int64) ([]int64, int64, int) {
	var best []int64
	bestPeak := int64(-1)
	tried := 0
	for o := greedyOrder(0); o < numGreedyOrders; o++ {
		order := greedyOrdering(in, o)
		for _, bf := range []bool{true, false} {
			offs, peak := greedyPack(in, order, bf)
			tried++
			if bestPeak < 0 || peak < bestPeak {
				best, bestPeak = offs, peak
			}
			if bestPeak <= stopAt {
				return best, bestPeak, tried
			}
		}
	}
	return best, bestPeak, tried
}
