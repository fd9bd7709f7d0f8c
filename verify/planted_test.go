package verify_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// The tests here plant in plans the real planner made what a planner with
// a footprint bug or a kind-rule bug would have produced, and show that
// verify rejects them by the right rule. The checker before it
// (plan.Validate, now gone) could not: it asked the planner's own
// footprints (state.Problem.Foot) and kind rule (workload.CanReuse), so a
// bug there was on both sides.

// optimized is a shipped pair and the plan hieropt.Plan makes for it.
type optimized struct {
	p  *state.Problem
	pl *plan.Plan
}

// optimizedPlans returns the plans hieropt.Plan makes for each shipped
// workload on the first built-in profile (by name) where it can plan it
// (shippedPlans': under -short, of every fourth pair).
func optimizedPlans(t *testing.T) []optimized {
	t.Helper()
	var out []optimized
	done := map[string]bool{}
	for _, s := range shippedPlans(t) {
		if s.res == nil || done[s.p.Prog.Name] {
			continue
		}
		done[s.p.Prog.Name] = true
		out = append(out, optimized{s.p, s.res.Plan})
	}
	require.NotEmpty(t, out)
	return out
}

// moveTo returns a copy of pl in which placement i sits at offset off of
// level, with the transfers into and out of it following it (rule 2 still
// holds).
func moveTo(pl *plan.Plan, i int, level string, off int64) *plan.Plan {
	out := clonePlan(pl)
	old := pl.Placements[i]
	out.Placements[i].Level, out.Placements[i].Offset = level, off
	for k := range out.Transfers {
		x := &out.Transfers[k]
		if x.Block != old.Block {
			continue
		}
		if x.At == old.From && x.ToLevel == old.Level && x.ToOffset == old.Offset {
			x.ToLevel, x.ToOffset = level, off
		}
		if x.At == old.To+1 && x.FromLevel == old.Level && x.FromOffset == old.Offset {
			x.FromLevel, x.FromOffset = level, off
		}
	}
	return out
}

// ids maps the placements of pl to block and level IDs of p.
func ids(t *testing.T, p *state.Problem, pp plan.Placement) (b, l int) {
	t.Helper()
	b, ok := p.BlockID(pp.Block)
	require.True(t, ok)
	l, ok = p.HW.LevelIndex(pp.Level)
	require.True(t, ok)
	return b, l
}

// requirePair requires that the rules broken are exactly want and that a
// rule-4 violation names blocks a and b.
func requirePair(t *testing.T, o optimized, bad *plan.Plan, want []int, a, b string) {
	t.Helper()
	rep := check(t, o.p.Prog, o.p.HW, bad, nil)
	require.Equal(t, want, ruleSet(rep), "%v", lines(rep))
	assert.True(t, overlapOf(rep, a, b), "no rule-4 violation for %q and %q: %v", a, b, lines(rep))
}

// TestPlantedFootprintBug: in the plans of the real planner, a block B
// placed right above a block A's footprint is moved down to where a
// planner with a footprint bug would have put it:
//   - A's size not rounded up: B at A.offset + A.size;
//   - A's size rounded up to the level's alignment but not to A's own
//     larger align (a variant of the workload where every other block asks
//     for 1024-byte alignment): B at A.offset + the size rounded to the
//     level's alignment, an offset aligned for B, so that only rule 4 can
//     see it.
//
// verify rejects every such plan with rule 4 for A and B (and, in the
// first case, rule 3 where A.offset + A.size is not aligned for B).
func TestPlantedFootprintBug(t *testing.T) {
	planted := 0
	sizeOnly := func(blk *workload.Block, levelAlign int64) int64 { return blk.Size }
	for _, o := range optimizedPlans(t) {
		if bad, a, b, ok := plantFootprint(t, o, sizeOnly, false); ok {
			requireSubsetPair(t, o, bad, []int{3, 4}, a, b)
			planted++
		}
	}
	t.Logf("size not rounded: planted in %d plans", planted)
	assert.Positive(t, planted, "no shipped plan has a neighbour right above a rounded footprint")

	planted = 0
	levelRounded := func(blk *workload.Block, levelAlign int64) int64 { return state.AlignUp(blk.Size, levelAlign) }
	for _, o := range optimizedPlans(t) {
		if planted == 3 {
			break
		}
		prog := *o.p.Prog
		prog.Name += "-aligned"
		prog.Blocks = slices.Clone(prog.Blocks)
		for i := range prog.Blocks {
			if i%2 == 0 {
				prog.Blocks[i].Align = 1024
			}
		}
		require.NoError(t, prog.Validate("aligned"))
		res, err := hieropt.Plan(context.Background(), &prog, o.p.HW, nil)
		if err != nil {
			continue
		}
		o = optimized{res.Problem, res.Plan}
		if bad, a, b, ok := plantFootprint(t, o, levelRounded, true); ok {
			requirePair(t, o, bad, []int{4}, a, b)
			planted++
		}
	}
	t.Logf("block align ignored: planted in %d plans", planted)
	assert.Positive(t, planted, "no plan has a neighbour right above an aligned block's footprint")
}

// plantFootprint finds placements A and B of one level sharing a timestep,
// B right above A's footprint, with A.offset + buggy(A) below that (and,
// with aligned, a multiple of B's alignment), and moves B there. It
// returns the plan and the blocks.
func plantFootprint(t *testing.T, o optimized, buggy func(blk *workload.Block, levelAlign int64) int64, aligned bool) (*plan.Plan, string, string, bool) {
	t.Helper()
	p, pl := o.p, o.pl
	type key struct {
		level string
		off   int64
	}
	at := map[key][]int{} // placements by level and offset
	for i, pp := range pl.Placements {
		k := key{pp.Level, pp.Offset}
		at[k] = append(at[k], i)
	}
	for _, pp := range pl.Placements {
		ba, l := ids(t, p, pp)
		blkA := p.Block(ba)
		wrong := buggy(blkA, p.HW.Levels[l].Alignment)
		if wrong >= p.Foot(ba, l) {
			continue
		}
		for _, j := range at[key{pp.Level, pp.Offset + p.Foot(ba, l)}] {
			b := pl.Placements[j]
			bb, _ := ids(t, p, b)
			if b.To < pp.From || pp.To < b.From || aligned && (pp.Offset+wrong)%p.Align(bb, l) != 0 {
				continue
			}
			return moveTo(pl, j, b.Level, pp.Offset+wrong), pp.Block, b.Block, true
		}
	}
	return nil, "", "", false
}

// requireSubsetPair requires that the rules broken are among allowed, rule
// 4 included, with a violation for a and b.
func requireSubsetPair(t *testing.T, o optimized, bad *plan.Plan, allowed []int, a, b string) {
	t.Helper()
	rep := check(t, o.p.Prog, o.p.HW, bad, nil)
	rules := ruleSet(rep)
	require.Contains(t, rules, 4, "%v", lines(rep))
	for _, r := range rules {
		require.Contains(t, allowed, r, "%v", lines(rep))
	}
	assert.True(t, overlapOf(rep, a, b), "no rule-4 violation for %q and %q: %v", a, b, lines(rep))
}

// TestPlantedKindRuleBug: in the plans of the real planner, a constant or
// a scratch block B is moved, at its first timestep t, onto the offset of
// a block A of its level that ends at t, where the kind rule forbids B to
// take A's space (A not reusable, or of a kind whose space B's kind may
// not take): what a planner with a kind-rule bug would do. verify rejects
// it with rule 4 for A and B.
func TestPlantedKindRuleBug(t *testing.T) {
	found := map[workload.Kind]int{}
	for _, o := range optimizedPlans(t) {
		for _, kb := range []workload.Kind{workload.Constant, workload.Scratch} {
			bad, a, b, ok := plantKindRule(t, o, kb)
			if !ok {
				continue
			}
			requirePair(t, o, bad, []int{4}, a, b)
			found[kb]++
		}
	}
	t.Logf("planted: %d constants, %d scratch blocks", found[workload.Constant], found[workload.Scratch])
	assert.Positive(t, found[workload.Constant], "no constant could be planted over a forbidden space")
	assert.Positive(t, found[workload.Scratch], "no scratch block could be planted over a forbidden space")
}

// plantKindRule finds placements A and B of one level, B the first
// placement of a block of kind kb starting at t, A the last of a block
// ending at t whose space the kind rule (kindRule, and A reusable) does
// not give to B, with A's offset aligned for B and room for B's footprint
// there; and moves B onto A's offset.
func plantKindRule(t *testing.T, o optimized, kb workload.Kind) (*plan.Plan, string, string, bool) {
	t.Helper()
	p, pl := o.p, o.pl
	for j, bp := range pl.Placements {
		bb, l := ids(t, p, bp)
		blkB := p.Block(bb)
		if blkB.Kind != kb || bp.From != blkB.First {
			continue
		}
		for _, ap := range pl.Placements {
			ba, la := ids(t, p, ap)
			blkA := p.Block(ba)
			if la != l || ba == bb || ap.To != bp.From || blkA.Last != bp.From || ap.Offset == bp.Offset {
				continue
			}
			if blkA.Reusable && slices.Contains(kindRule[blkA.Kind.String()], blkB.Kind.String()) {
				continue // allowed: not a bug
			}
			if ap.Offset%p.Align(bb, l) != 0 || ap.Offset+p.Foot(bb, l) > p.HW.Levels[l].Capacity {
				continue
			}
			return moveTo(pl, j, bp.Level, ap.Offset), ap.Block, bp.Block, true
		}
	}
	return nil, "", "", false
}

// overlapOf reports whether rep has a rule-4 violation for blocks a and b
// (in either order).
func overlapOf(rep *verify.Report, a, b string) bool {
	return slices.ContainsFunc(rep.Violations, func(v verify.Violation) bool {
		return v.Rule == 4 && (strings.HasPrefix(v.Message, fmt.Sprintf("blocks %q and %q overlap", a, b)) ||
			strings.HasPrefix(v.Message, fmt.Sprintf("blocks %q and %q overlap", b, a)))
	})
}
