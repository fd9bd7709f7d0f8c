package verify_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/workload"
)

// randomOverlapPlan is a random program of 5 ops on two levels M and N
// (1024 B, alignment 16) and a plan that places every block once, for its
// whole life, at a random level and offset (a multiple of 16; one in three
// where an earlier block is): blocks of
// random kinds, sizes (not always multiples of 16, some with align 32),
// lifetimes and reusable flags, so that overlaps and in-place reuse are
// both frequent.
func randomOverlapPlan(t testing.TB, rng *rand.Rand) (*workload.Program, *hw.Profile, *plan.Plan) {
	t.Helper()
	const T = 5
	prog := &workload.Program{Name: "random"}
	for i := range T {
		prog.Ops = append(prog.Ops, workload.Op{Name: fmt.Sprintf("op%d", i)})
	}
	pl := &plan.Plan{Workload: "random", Hardware: "two", TimeUnit: hw.Cycle}
	n := 3 + rng.IntN(8)
	for i := range n {
		b := workload.Block{Name: fmt.Sprintf("b%d", i), Size: 8 * (1 + rng.Int64N(12)), Reusable: rng.IntN(2) == 0}
		if rng.IntN(4) == 0 {
			b.Align = 32
		}
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
		prog.Blocks = append(prog.Blocks, b)
		pp := plan.Placement{Block: b.Name, From: b.First, To: b.Last, Level: []string{"M", "N"}[rng.IntN(4)/3], Offset: 16 * rng.Int64N(32)}
		if i > 0 && rng.IntN(3) == 0 { // where an earlier block is: a take-over, or a clash
			other := pl.Placements[rng.IntN(i)]
			pp.Level, pp.Offset = other.Level, other.Offset
		}
		pl.Placements = append(pl.Placements, pp)
	}
	require.NoError(t, prog.Validate("random"))
	lv := func(name string) hw.Level {
		return hw.Level{Name: name, Capacity: 1024, Alignment: 16, In: hw.Link{Latency: 1, Bandwidth: 1}, Out: hw.Link{Latency: 1, Bandwidth: 1}}
	}
	prof := &hw.Profile{Name: "two", TimeUnit: hw.Cycle, Levels: []hw.Level{lv("M"), lv("N")}}
	require.NoError(t, prof.Validate("two"))
	return prog, prof, pl
}

// bruteOverlaps is rule 4 by its definition, for plans that place each
// block once: every two blocks of one level that are live at a common
// timestep t and whose footprints (the size rounded up to 16, or 32 for a
// block with align 32) share a byte overlap, unless one takes over the
// other's space at t: the first is reusable and ends at t, the second
// starts at t at the same offset, and kindRule lets the second's kind
// take the first's. It returns the pairs as `blocks "a" and "b"` with a
// before b in the program, and how many pairs share bytes only by such a
// take-over.
func bruteOverlaps(prog *workload.Program, pl *plan.Plan) (pairs []string, reuses int) {
	foot := func(b *workload.Block) int64 {
		a := max(int64(16), b.Align)
		return (b.Size + a - 1) / a * a
	}
	takesOver := func(a, b *workload.Block, t int) bool {
		return a.Reusable && a.Last == t && b.First == t && slices.Contains(kindRule[a.Kind.String()], b.Kind.String())
	}
	for i := range prog.Blocks {
		for j := i + 1; j < len(prog.Blocks); j++ {
			a, b := &prog.Blocks[i], &prog.Blocks[j]
			pa, pb := pl.Placements[i], pl.Placements[j]
			meet := pa.Offset < pb.Offset+foot(b) && pb.Offset < pa.Offset+foot(a)
			if pa.Level != pb.Level || !meet {
				continue
			}
			overlap := false
			for t := max(a.First, b.First); t <= min(a.Last, b.Last); t++ {
				reuse := pa.Offset == pb.Offset && (takesOver(a, b, t) || takesOver(b, a, t))
				if !reuse {
					overlap = true
					break
				}
			}
			switch {
			case overlap:
				pairs = append(pairs, fmt.Sprintf("blocks %q and %q", a.Name, b.Name))
			case max(a.First, b.First) <= min(a.Last, b.Last):
				reuses++
			}
		}
	}
	slices.Sort(pairs)
	return pairs, reuses
}

// TestOverlapsAgainstBruteForce compares the sweep of rule 4 with its
// definition on random programs and placements: the same pairs of blocks.
func TestOverlapsAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	iters := 3000
	if testmode.Quick() {
		iters = 300
	}
	overlapping, reuses := 0, 0
	for i := range iters {
		prog, prof, pl := randomOverlapPlan(t, rng)
		rep := check(t, prog, prof, pl, nil)
		var got []string
		for _, v := range rep.Violations {
			if v.Rule != 4 {
				continue
			}
			// `blocks "a" and "b" overlap ...`, the later-placed second:
			// put the pair in program order.
			var a, b string
			_, err := fmt.Sscanf(v.Message, "blocks %q and %q", &a, &b)
			require.NoError(t, err, v.Message)
			ia := slices.IndexFunc(prog.Blocks, func(blk workload.Block) bool { return blk.Name == a })
			ib := slices.IndexFunc(prog.Blocks, func(blk workload.Block) bool { return blk.Name == b })
			if ia > ib {
				a, b = b, a
			}
			got = append(got, fmt.Sprintf("blocks %q and %q", a, b))
		}
		slices.Sort(got)
		want, r := bruteOverlaps(prog, pl)
		reuses += r
		if len(want) > 0 {
			overlapping++
		}
		if !slices.Equal(want, got) {
			var desc []string
			for k, blk := range prog.Blocks {
				pp := pl.Placements[k]
				desc = append(desc, fmt.Sprintf("%s %s %dB align %d [%d,%d] reusable=%v @%s:%d", blk.Name, blk.Kind, blk.Size, blk.Align,
					blk.First, blk.Last, blk.Reusable, pp.Level, pp.Offset))
			}
			require.Failf(t, "rule 4 differs from its definition", "iteration %d: brute force %v, Check %v\n%v", i, want, got, desc)
		}
	}
	t.Logf("%d of %d plans overlap; %d pairs share space by in-place reuse", overlapping, iters, reuses)
	require.Greater(t, reuses, iters/20)
	require.Greater(t, overlapping, iters/4)
	require.Less(t, overlapping, iters*9/10, "and many do not")
}
