package pack

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSearchCoreAllFreeIsExact: with every buffer in the core (no floor)
// a core search is the branch and bound from its usual start, so without
// limits it finds a packing exactly where exact does (which is complete),
// on random problems at capacities from max-live to the greedy's peak.
func TestSearchCoreAllFreeIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	found, refuted := 0, 0
	for iter := 0; iter < 600; iter++ {
		p := randomProblem(r, 1+r.IntN(12), iter%2 == 1)
		in := newInst(p, never)
		offs, peak, _ := greedyPack(in, greedyOrdering(in, bySize), true, never)
		all := make([]bool, in.n)
		for i := range all {
			all[i] = true
		}
		for C := in.maxLive; C <= peak; C++ {
			var st Stats
			_, want := exact(in, C, 1, never, &st, 1<<40)
			got := searchCore(in, p, offs, all, C, 1<<40, DefaultMemoryLimit, 1, never)
			require.Equal(t, want == exactFound, got.offs != nil, "iter %d capacity %d", iter, C)
			if got.offs != nil {
				found++
				require.NoError(t, Check(p, &Solution{Offsets: got.offs, Peak: peakOf(p, got.offs)}))
				require.LessOrEqual(t, peakOf(p, got.offs), C)
			} else {
				refuted++
			}
		}
	}
	require.Positive(t, found)
	require.Positive(t, refuted)
}

// TestSearchCoreKeepsTheRest: a core search over a floor of kept buffers
// moves only the core, and what it returns is a packing within its
// capacity (the checker's verdict), on random problems and compiler
// traces, with cores picked by coreOf at capacities below the greedy's
// peak. Some searches find packings (else the test shows nothing).
func TestSearchCoreKeepsTheRest(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	found, searched := 0, 0
	for iter := 0; iter < 400; iter++ {
		p := randomProblem(r, 5+r.IntN(60), iter%2 == 1)
		if iter%8 == 0 {
			p = compilerTrace(uint64(iter), 400+r.IntN(800))
		}
		in := newInst(p, never)
		offs, peak, _ := greedyPack(in, greedyOrdering(in, bySize), r.IntN(2) == 0, never)
		if peak == in.maxLive {
			continue
		}
		gap := peak - in.maxLive
		C := in.maxLive + r.Int64N(gap)
		free := coreOf(in, offs, C-1-r.Int64N(gap+1), C, in.n, never)
		if free == nil {
			continue
		}
		searched++
		res := searchCore(in, p, offs, free, C, 20000, DefaultMemoryLimit, uint64(iter), never)
		if res.offs == nil {
			continue
		}
		found++
		for b := range offs {
			if !free[b] {
				require.Equal(t, offs[b], res.offs[b], "iter %d: kept buffer %d moved", iter, b)
			}
		}
		require.NoError(t, Check(p, &Solution{Offsets: res.offs, Peak: peakOf(p, res.offs)}), "iter %d", iter)
		require.LessOrEqual(t, peakOf(p, res.offs), C, "iter %d", iter)
	}
	t.Logf("%d core searches, %d packed", searched, found)
	require.Greater(t, found, searched/10)
}

// TestHardCoreLowersPeak: on a compiler trace whose greedy packings miss
// max-live by 8%, Solve's core searches lower the peak below the greedy
// portfolio's within a node limit too small for the whole-instance search
// to place every buffer; the packing is valid, the same on a second run,
// and not called optimal above max-live.
func TestHardCoreLowersPeak(t *testing.T) {
	p := compilerTrace(1, 8000)
	in := newInst(p, never)
	_, greedyPeak := portfolioAll(in, p, in.maxLive)
	o := &Options{Minimize: true, NodeLimit: 2000}
	sol, err := Solve(context.Background(), p, o)
	require.NoError(t, err)
	require.NoError(t, Check(p, sol))
	assert.Positive(t, sol.Stats.Cores)
	assert.Less(t, sol.Peak, greedyPeak)
	assert.Equal(t, sol.Peak == in.maxLive, sol.Optimal)
	assert.LessOrEqual(t, sol.Stats.Nodes, o.NodeLimit)
	again, err := Solve(context.Background(), p, o)
	require.NoError(t, err)
	assert.Equal(t, sol.Offsets, again.Offsets)
	t.Logf("greedy %d, cores %d: %d (max-live %d), %d nodes", greedyPeak, sol.Stats.Cores, sol.Peak, in.maxLive, sol.Stats.Nodes)

	// Under a memory limit below any search's (its table of failed
	// states alone takes more), no core is searched either.
	sol, err = Solve(context.Background(), p, &Options{Minimize: true, NodeLimit: 2000, MemoryLimit: 1 << 20})
	require.NoError(t, err)
	assert.Zero(t, sol.Stats.Cores)
	assert.Zero(t, sol.Stats.Nodes)
	assert.Equal(t, greedyPeak, sol.Peak)
	assert.True(t, sol.Stats.OverMemory)
}

// TestLargestPart: largestPart counts the buffers of the largest group
// that overlapping lives join, against a union of overlapping buffers
// computed pair by pair, on random problems and time-shifted copies.
func TestLargestPart(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for iter := 0; iter < 300; iter++ {
		p := randomProblem(r, 1+r.IntN(40), false)
		if iter%3 == 0 {
			p = somasCopies(p, 1+r.IntN(4), r.Int64N(14))
		}
		in := newInst(p, never)
		parent := make([]int, in.n)
		for i := range parent {
			parent[i] = i
		}
		var find func(int) int
		find = func(i int) int {
			if parent[i] != i {
				parent[i] = find(parent[i])
			}
			return parent[i]
		}
		for i, a := range p.Buffers {
			for j, b := range p.Buffers[:i] {
				if a.Lower < b.Upper && b.Lower < a.Upper {
					parent[find(i)] = find(j)
				}
			}
		}
		size := map[int]int{}
		want := 0
		for i := range parent {
			size[find(i)]++
			want = max(want, size[find(i)])
		}
		require.Equal(t, want, largestPart(in), "iter %d", iter)
	}
}

// TestNoCoreOnSmallParts: copies of a trace that do not meet in time are
// packed apart by the whole search; with each below coreFrom buffers no
// core is searched, however many buffers they make together.
func TestNoCoreOnSmallParts(t *testing.T) {
	p := somasCopies(compilerTrace(1, 1500), 3, 1500)
	in := newInst(p, never)
	require.Equal(t, 1500, largestPart(in))
	sol, err := Solve(context.Background(), p, &Options{Minimize: true, NodeLimit: 20000})
	require.NoError(t, err)
	require.NoError(t, Check(p, sol))
	assert.Zero(t, sol.Stats.Cores)
}
