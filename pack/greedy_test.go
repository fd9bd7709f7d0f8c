package pack

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

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
				want, wantPeak, ok := greedyScan(in, order, bf, never)
				require.True(t, ok)
				got, peak, ok := greedyTree(in, order, bf, never)
				require.True(t, ok)
				require.Equal(t, want, got, "problem %d order %d best fit %v", i, o, bf)
				require.Equal(t, wantPeak, peak)
			}
		}
	}
}

// BenchmarkGreedyChallenging: the greedy passes of the portfolio (every
// order, both fit rules) over the challenging set, with the occupancy tree
// and with the scan it replaced.
func BenchmarkGreedyChallenging(b *testing.B) {
	type pass struct {
		in    *inst
		order []int32
	}
	var passes []pass
	for _, f := range challenging(b) {
		in := newInst(loadCSV(b, f), never)
		require.True(b, in.ensureCover(never))
		for o := greedyOrder(0); o < numGreedyOrders; o++ {
			passes = append(passes, pass{in, greedyOrdering(in, o)})
		}
	}
	for _, impl := range []struct {
		name string
		pack func(*inst, []int32, bool, func() bool) ([]int64, int64, bool)
	}{{"tree", greedyTree}, {"scan", greedyScan}} {
		b.Run(impl.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, p := range passes {
					impl.pack(p.in, p.order, true, never)
					impl.pack(p.in, p.order, false, never)
				}
			}
		})
	}
}
