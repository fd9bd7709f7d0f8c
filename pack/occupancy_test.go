package pack

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFirstHoleMergesTheRest: first fit gives the scan's offsets however
// many runs it reads from its heap before merging the rest of the lists
// (none, one, a few, the default), with and without alignments.
func TestFirstHoleMergesTheRest(t *testing.T) {
	var probs []*Problem
	r := rand.New(rand.NewPCG(21, 22))
	for iter := 0; iter < 60; iter++ {
		probs = append(probs, randomProblem(r, 1+r.IntN(80), iter%2 == 1))
	}
	probs = append(probs, compilerTrace(7, 400), compilerTrace(8, 3000))
	for i, p := range probs {
		in := newInst(p, never)
		require.True(t, in.ensureCover(never))
		for _, o := range []greedyOrder{bySize, byStart, byConflict} {
			order := greedyOrdering(in, o)
			want, _, ok := greedyScan(in, order, false, never)
			require.True(t, ok)
			for _, k := range []int{0, 1, 3, heapRuns} {
				in.occ = newOccupancy(in.ns)
				in.occ.heapRuns = k
				got, _, ok := greedyTree(in, order, false, never)
				require.True(t, ok)
				require.Equal(t, want, got, "problem %d order %d heapRuns %d", i, o, k)
			}
		}
	}
}
