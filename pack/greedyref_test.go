package pack

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// greedyPackScan is greedyPack as it was before the occupancy tree, the
// reference its offsets are tested against: each buffer scans the placed
// buffers it conflicts with in order of offset for the gaps.
func greedyPackScan(in *inst, order []int32, bestFit bool, stop func() bool) (offs []int64, peak int64, ok bool) {
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
		peak = max(peak, best+size)
	}
	return offs, peak, true
}

// TestGreedyPackMatchesScan: the occupancy tree gives every greedy order
// and both fit rules exactly the offsets of the scan over the placed
// buffers (random problems with and without alignments, compiler-like
// traces, one of 6,000 buffers, and the challenging set).
func TestGreedyPackMatchesScan(t *testing.T) {
	var probs []*Problem
	r := rand.New(rand.NewPCG(7, 8))
	for iter := 0; iter < 300; iter++ {
		p := randomProblem(r, 1+r.IntN(80), iter%2 == 1)
		if iter%5 == 0 {
			p = compilerTrace(uint64(iter), 400)
		}
		probs = append(probs, p)
	}
	for _, f := range challenging(t) {
		probs = append(probs, loadCSV(t, f))
	}
	// Large enough for the tree to cache paths over many levels.
	probs = append(probs, compilerTrace(3, 6000))
	for i, p := range probs {
		in := newInst(p, never)
		require.True(t, in.ensureCover(never))
		for o := greedyOrder(0); o < numGreedyOrders; o++ {
			order := greedyOrdering(in, o)
			for _, bf := range []bool{true, false} {
				want, wantPeak, ok := greedyPackScan(in, order, bf, never)
				require.True(t, ok)
				got, peak, ok := greedyPack(in, order, bf, never)
				require.True(t, ok)
				require.Equal(t, want, got, "problem %d order %d best fit %v", i, o, bf)
				require.Equal(t, wantPeak, peak)
			}
		}
	}
}
