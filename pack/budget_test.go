package pack

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPackingTakesANodePerBuffer cross-checks searchCanPack's argument:
// every packing the branch and bound finds over a whole instance took at
// least one node per buffer, on random instances at capacities from
// max-live up (found and proven infeasible alike, so that both ends are
// exercised).
func TestPackingTakesANodePerBuffer(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	found, infeasible := 0, 0
	for iter := 0; iter < 400; iter++ {
		p := randomProblem(r, 1+r.IntN(40), iter%2 == 1)
		if iter%10 == 0 {
			p = compilerTrace(uint64(iter), 200)
		}
		in := newInst(p, never)
		for _, extra := range []int64{0, in.g, 4 * in.g} {
			var st Stats
			offs, res := exact(in, in.maxLive+extra, 1, never, &st, 20000)
			switch res {
			case exactFound:
				found++
				require.NoError(t, Check(&Problem{Buffers: p.Buffers, Capacity: in.maxLive + extra}, &Solution{Offsets: offs, Peak: peakOf(p, offs)}))
				require.GreaterOrEqual(t, st.Nodes, int64(in.n), "iter %d: a packing of %d buffers in %d nodes", iter, in.n, st.Nodes)
			case exactInfeasible:
				infeasible++
			}
		}
	}
	assert.Greater(t, found, 800)
	assert.Greater(t, infeasible, 5)
}

// TestNoWholeSearchUnderFewerNodesThanBuffers: when the node limit leaves
// fewer nodes than buffers after the greedy and the hard cores, the branch
// and bound over the whole instance (which could not finish a packing)
// does not run, and Solve says the limit stopped it; with as many nodes
// as buffers it runs.
func TestNoWholeSearchUnderFewerNodesThanBuffers(t *testing.T) {
	p := compilerTrace(1, 4000) // its greedy packings miss max-live
	sol, err := Solve(context.Background(), p, &Options{Minimize: true, NodeLimit: 3999})
	require.NoError(t, err)
	require.NoError(t, Check(p, sol))
	require.Greater(t, sol.Peak, MaxLive(p))
	assert.False(t, sol.Stats.Exact)
	assert.Zero(t, sol.Stats.Probes)
	assert.True(t, sol.Stats.Limited)

	sol, err = Solve(context.Background(), p, &Options{Minimize: true, NodeLimit: 20000})
	require.NoError(t, err)
	require.NoError(t, Check(p, sol))
	assert.True(t, sol.Stats.Exact)
	assert.Positive(t, sol.Stats.Probes)
}
