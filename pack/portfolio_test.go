package pack

import (
	"math/rand/v2"
	"os"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// portfolioAll is greedyPortfolio as it was before passes were given up
// (in the same order):
// every pass finished, the lowest peak kept (the first on ties), the
// portfolio ended by the first packing at or below stopAt.
func portfolioAll(in *inst, p *Problem, stopAt int64) (best []int64, bestPeak int64) {
	bestPeak = -1
	for _, o := range portfolioOrders(in.n) {
		order := greedyOrdering(in, o)
		for _, bf := range []bool{true, false} {
			offs, peak, ok := greedyPack(in, order, bf, never)
			if !ok {
				panic("never stopped")
			}
			if bestPeak < 0 || peak < bestPeak {
				best, bestPeak = offs, peak
			}
			if bestPeak <= stopAt {
				return best, bestPeak
			}
		}
	}
	return best, bestPeak
}

// TestPortfolioGivesUpHarmlessly: giving up the passes that cannot be kept,
// and running them out of order, changes nothing: the portfolio returns the
// offsets of the portfolio that finishes every pass in order, for stopAt at max-live (Minimize), at capacities
// between max-live and the worst pass, and with none (random problems,
// compiler traces on both sides of scanBelow, the challenging set).
func TestPortfolioGivesUpHarmlessly(t *testing.T) {
	var probs []*Problem
	r := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 200; iter++ {
		p := randomProblem(r, 1+r.IntN(80), iter%2 == 1)
		if iter%5 == 0 {
			p = compilerTrace(uint64(iter), 300)
		}
		probs = append(probs, p)
	}
	for _, f := range challenging(t) {
		probs = append(probs, loadCSV(t, f))
	}
	probs = append(probs, compilerTrace(4, 3000))
	// Where the busiest-section order, tried first, reaches max-live.
	if _, err := os.Stat(idealloc() + "/Y_1.csv"); err == nil {
		probs = append(probs, &Problem{Buffers: loadCSV(t, idealloc()+"/Y_1.csv").Buffers[:16000]})
	}
	gaveUp := 0
	for i, p := range probs {
		in := newInst(p, never)
		first, firstPeak, ok := startOrderPack(p, true, never)
		require.True(t, ok)
		for _, stopAt := range []int64{in.maxLive, in.maxLive + (firstPeak-in.maxLive)/2, firstPeak - 1, 0} {
			want, wantPeak := portfolioAll(in, p, stopAt)
			got, peak, _, cut := greedyPortfolio(in, p, first, firstPeak, stopAt, never)
			require.False(t, cut)
			require.Equal(t, wantPeak, peak, "problem %d stopAt %d", i, stopAt)
			require.Equal(t, want, got, "problem %d stopAt %d", i, stopAt)
		}
		// Some passes are given up (else this test shows nothing).
		order := greedyOrdering(in, bySize)
		if offs, _, _ := greedyPackUnder(in, order, false, in.maxLive, never); offs == nil {
			gaveUp++
		}
	}
	require.Greater(t, gaveUp, len(probs)/4)
}

// TestPortfolioOrders: every order once; from scanBelow on byTotal first
// and bySizeEnd last, below it the orders before bySizeEnd as numbered.
func TestPortfolioOrders(t *testing.T) {
	for _, n := range []int{1, scanBelow - 1, scanBelow, 100000} {
		orders := portfolioOrders(n)
		want := int(numGreedyOrders)
		if n < scanBelow {
			want = int(bySizeEnd)
		}
		require.Len(t, orders, want)
		seen := map[greedyOrder]bool{}
		for _, o := range orders {
			seen[o] = true
		}
		require.Len(t, seen, want)
		if n >= scanBelow {
			require.Equal(t, byTotal, orders[0])
			require.Equal(t, bySizeEnd, orders[len(orders)-1])
		} else {
			require.Equal(t, []greedyOrder{bySize, byArea, byLength, byTotal, byStart, byConflict}, orders)
		}
	}
}

// TestGreedyOrderingIsTheStableOne: greedyOrdering (an unstable sort, its
// keys ending in the index) gives the order of the stable sort it replaced,
// on problems with many equal keys.
func TestGreedyOrderingIsTheStableOne(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for iter := 0; iter < 100; iter++ {
		p := randomProblem(r, 1+r.IntN(200), iter%2 == 1)
		if iter%4 == 0 {
			p = compilerTrace(uint64(iter), 2000)
		}
		in := newInst(p, never)
		for o := greedyOrder(0); o < numGreedyOrders; o++ {
			got := greedyOrdering(in, o)
			want := greedyOrdering(in, o)
			key := func(i int32) [2]int64 {
				switch o {
				case bySize:
					return [2]int64{in.size[i], in.length[i]}
				case byArea:
					return [2]int64{in.size[i] * in.length[i], in.size[i]}
				case byLength:
					return [2]int64{in.length[i], in.size[i]}
				case byTotal:
					return [2]int64{in.total[i], in.size[i]}
				case byStart:
					return [2]int64{-int64(in.lo[i]), in.size[i]}
				case bySizeEnd:
					return [2]int64{in.size[i], int64(in.hi[i])}
				}
				return [2]int64{int64(in.deg[i]), in.size[i]}
			}
			for i := range want {
				want[i] = int32(i)
			}
			sort.SliceStable(want, func(a, b int) bool {
				ka, kb := key(want[a]), key(want[b])
				if ka[0] != kb[0] {
					return ka[0] > kb[0]
				}
				return ka[1] > kb[1]
			})
			require.Equal(t, want, got, "iter %d order %d", iter, o)
		}
	}
}
