package pack

import (
	"math/rand/v2"
	"os"
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

// TestPortfolioGivesUpHarmlessly: giving up the passes that cannot be kept
// changes nothing: the portfolio returns the offsets of the portfolio that
// finishes every pass, for stopAt at max-live (Minimize), at capacities
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

// TestPortfolioOrders: every order once; byTotal first from scanBelow on.
func TestPortfolioOrders(t *testing.T) {
	for _, n := range []int{1, scanBelow - 1, scanBelow, 100000} {
		orders := portfolioOrders(n)
		require.Len(t, orders, int(numGreedyOrders))
		seen := map[greedyOrder]bool{}
		for _, o := range orders {
			seen[o] = true
		}
		require.Len(t, seen, int(numGreedyOrders))
		if n >= scanBelow {
			require.Equal(t, byTotal, orders[0])
		} else {
			require.Equal(t, bySize, orders[0])
		}
	}
}
