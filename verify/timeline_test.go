package verify_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/internal/tlgen"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// tlProfile is the three-level profile of the hand-written timeline tests:
//
//	FAST:  1 KiB,  alignment 16, in/out(d) = 1 + d/4    (64 B: 17)
//	SLOW:  4 KiB,  alignment 64, in/out(d) = 10 + d/1   (64 B: 74)
//	FLASH: 64 KiB, alignment 64, in/out(d) = 20 + d/2   (64 B: 52), read-only: the home of constants
//	compute: 2 MACs per cycle, op_overhead 1; one DMA channel
//
// mods edit it first.
func tlProfile(mods ...func(*hw.Profile)) *hw.Profile {
	prof := &hw.Profile{Name: "tl", TimeUnit: hw.Cycle, CostModel: verify.TimelineModel,
		Compute: &hw.Compute{MACsPerUnit: 2, OpOverhead: 1},
		Levels: []hw.Level{
			{Name: "FAST", Capacity: 1024, Alignment: 16, In: hw.Link{Latency: 1, Bandwidth: 4}, Out: hw.Link{Latency: 1, Bandwidth: 4}},
			{Name: "SLOW", Capacity: 4096, Alignment: 64, In: hw.Link{Latency: 10, Bandwidth: 1}, Out: hw.Link{Latency: 10, Bandwidth: 1}},
			{Name: "FLASH", Capacity: 1 << 16, Alignment: 64, In: hw.Link{Latency: 20, Bandwidth: 2}, Out: hw.Link{Latency: 20, Bandwidth: 2}, ReadOnly: true},
		}}
	for _, m := range mods {
		m(prof)
	}
	return prof
}

// tlProgram is a five-op program (MACs 64, 0, 128, 32, 0) whose blocks
// are all 64 B:
//
//	block kind        life   writes reads
//	x     input       [0,0]  -      0
//	a     activation  [0,3]  0,2    1,3
//	w1    constant    [1,1]  -      1
//	w2    constant    [1,3]  -      3
//	w3    constant    [2,2]  -      2
//	y     output      [3,4]  3      4
func tlProgram(t testing.TB, mods ...func(*workload.Program)) *workload.Program {
	t.Helper()
	prog := &workload.Program{
		Name: "tl",
		Ops: []workload.Op{{Name: "op0", MACs: 64}, {Name: "op1"}, {Name: "op2", MACs: 128},
			{Name: "op3", MACs: 32}, {Name: "op4"}},
		Blocks: []workload.Block{
			{Name: "x", Size: 64, Kind: workload.Input, First: 0, Last: 0, Reads: []int{0}},
			{Name: "a", Size: 64, Kind: workload.Activation, First: 0, Last: 3, Writes: []int{0, 2}, Reads: []int{1, 3}},
			{Name: "w1", Size: 64, Kind: workload.Constant, First: 1, Last: 1, Reads: []int{1}},
			{Name: "w2", Size: 64, Kind: workload.Constant, First: 1, Last: 3, Reads: []int{3}},
			{Name: "w3", Size: 64, Kind: workload.Constant, First: 2, Last: 2, Reads: []int{2}},
			{Name: "y", Size: 64, Kind: workload.Output, First: 3, Last: 4, Writes: []int{3}, Reads: []int{4}},
		},
	}
	for _, m := range mods {
		m(prog)
	}
	require.NoError(t, prog.Validate("tl"))
	return prog
}

// tlPlan is a valid timeline plan of tlProgram with a load, two
// prefetches and a resident constant:
//
//	x   FAST [0,64) at 0
//	a   FAST [64,128) over [0,1], copied to SLOW [0,64) for timestep 2,
//	    issued at 1 (after its write at 0; its write at 2 is in SLOW)
//	w1  loaded from FLASH into FAST [128,192), issued at 0 for timestep 1
//	w2  in FLASH (its home) over [1,2], copied to FAST [192,256) for
//	    timestep 3, issued at 1 (its source placement's first timestep)
//	w3  resident in FAST [256,320): its range is kept over [0,4]
//	y   FAST [0,64) over [3,4]
//
// Its cost (64 B: FAST 17, SLOW 74, FLASH 52 per side):
//
//	copies: w1 load 52+17 = 69; a 17+74 = 91; w2 52+17 = 69
//	m(t): t0 x 17 + a 17 = 34; t1 a 17 + w1 17 = 34; t2 a write SLOW 74 + w3 17 = 91;
//	      t3 a SLOW 74 + w2 17 + y 17 = 108; t4 y 17
//	c(t) = 1 + macs/2: 33, 1, 65, 17, 1; d(t) = max: 34, 34, 91, 108, 17
//	t0: w1 issued: [0,69], F = 69; T = 0; R = 34
//	t1: a issued (at 2 before w2's at 3): [max(34,69), +91] = [69,160]; w2: [160,229];
//	    T = max(34, w1's 69) = 69 (a stall of 35); R = 69+34 = 103
//	t2: T = max(103, a's 160) = 160 (stall 57); R = 160+91 = 251
//	t3: T = max(251, w2's 229) = 251; R = 251+108 = 359
//	t4: R = 359+17 = 376
func tlPlan() *plan.Plan {
	return &plan.Plan{
		Workload: "tl", Hardware: "tl", TimeUnit: "cycle", CostModel: verify.TimelineModel,
		Cost: plan.Cost{Initial: 376, Final: tlFinal},
		Placements: []plan.Placement{
			{Block: "x", From: 0, To: 0, Level: "FAST", Offset: 0},
			{Block: "a", From: 0, To: 1, Level: "FAST", Offset: 64},
			{Block: "a", From: 2, To: 3, Level: "SLOW", Offset: 0},
			{Block: "w1", From: 1, To: 1, Level: "FAST", Offset: 128},
			{Block: "w2", From: 1, To: 2, Level: "FLASH", Offset: 0},
			{Block: "w2", From: 3, To: 3, Level: "FAST", Offset: 192},
			{Block: "w3", From: 2, To: 2, Level: "FAST", Offset: 256},
			{Block: "y", From: 3, To: 4, Level: "FAST", Offset: 0},
		},
		Transfers: []plan.Transfer{
			{Block: "w1", At: 1, Start: 0, FromLevel: "FLASH", ToLevel: "FAST", ToOffset: 128, Load: true},
			{Block: "a", At: 2, Start: 1, FromLevel: "FAST", FromOffset: 64, ToLevel: "SLOW", ToOffset: 0},
			{Block: "w2", At: 3, Start: 1, FromLevel: "FLASH", FromOffset: 0, ToLevel: "FAST", ToOffset: 192},
		},
	}
}

const tlFinal = 376.0

// transferOf returns the transfer of block name at timestep at (a load
// when load).
func transferOf(t testing.TB, pl *plan.Plan, name string, at int, load bool) *plan.Transfer {
	t.Helper()
	for i := range pl.Transfers {
		if x := &pl.Transfers[i]; x.Block == name && x.At == at && x.Load == load {
			return x
		}
	}
	require.FailNow(t, "no transfer", "block %q at %d", name, at)
	return nil
}

// seedVersion makes pl a plan of the default model: every start at its
// at, no loads.
func seedVersion(pl *plan.Plan) {
	pl.CostModel = ""
	pl.Transfers = slices.DeleteFunc(pl.Transfers, func(x plan.Transfer) bool { return x.Load })
	for i := range pl.Transfers {
		pl.Transfers[i].Start = pl.Transfers[i].At
	}
}

func TestTimelineHandPlan(t *testing.T) {
	prog, prof := tlProgram(t), tlProfile()
	rep := check(t, prog, prof, tlPlan(), nil)
	requireValid(t, rep)
	assert.Equal(t, tlFinal, rep.Cost)
	assert.Equal(t, verify.TimelineModel, rep.Model)

	// Two channels (see tlPlan's arithmetic): at t1 F = [69, 0]: a takes
	// channel 2, [34,125]; w2 then channel 1 (69 < 125), [69,138].
	// t1: T = 69, R = 103; t2: T = max(103,125) = 125, R = 216;
	// t3: T = max(216,138) = 216, R = 324; t4: R = 341.
	pl := tlPlan()
	pl.Cost.Final = 341
	rep = check(t, prog, tlProfile(func(p *hw.Profile) { p.DMA.Channels = 2 }), pl, nil)
	requireValid(t, rep)
	assert.Equal(t, 341.0, rep.Cost)
}

// tlMutation is tlPlan broken (or not) in one way.
type tlMutation struct {
	name  string
	prog  []func(*workload.Program)
	prof  []func(*hw.Profile)
	edit  func(t testing.TB, pl *plan.Plan)
	rules []int  // exactly the rules broken (nil: the plan stays valid)
	block string // a violation of rules[0] is about this block
	// keepCost leaves cost.final as tlPlan states it; otherwise it is set to
	// the recomputed cost, so that only the rules the edit breaks show
	// (rule 6 is tested on its own).
	keepCost bool
}

var tlMutations = []tlMutation{
	// Rule 7: only constants in a read-only level, under every model.
	{name: "activation placed in the read-only level", rules: []int{7}, block: "a",
		edit: func(t testing.TB, pl *plan.Plan) {
			*placementOf(t, pl, "a", 2) = plan.Placement{Block: "a", From: 2, To: 3, Level: "FLASH", Offset: 64}
			x := transferOf(t, pl, "a", 2, false)
			x.ToLevel, x.ToOffset = "FLASH", 64
		}},
	{name: "activation placed in the read-only level under seed003", rules: []int{7}, block: "a",
		edit: func(t testing.TB, pl *plan.Plan) {
			seedVersion(pl)
			*placementOf(t, pl, "a", 2) = plan.Placement{Block: "a", From: 2, To: 3, Level: "FLASH", Offset: 64}
			x := transferOf(t, pl, "a", 2, false)
			x.ToLevel, x.ToOffset = "FLASH", 64
		}},
	{name: "output pinned to the read-only level", rules: []int{7}, block: "y",
		prog: []func(*workload.Program){editBlock("y", func(b *workload.Block) { b.Level = "FLASH" })},
		edit: func(t testing.TB, pl *plan.Plan) {
			*placementOf(t, pl, "y", 3) = plan.Placement{Block: "y", From: 3, To: 4, Level: "FLASH", Offset: 1024}
		}},
	{name: "the plan of the default model is valid", edit: func(_ testing.TB, pl *plan.Plan) { seedVersion(pl) }},

	// Rule 8: 0 <= start <= at, not before the source, no write in [start, at-1].
	{name: "start before the program", rules: []int{8}, block: "a",
		edit: func(t testing.TB, pl *plan.Plan) { transferOf(t, pl, "a", 2, false).Start = -1 }},
	{name: "start after at", rules: []int{8}, block: "a",
		edit: func(t testing.TB, pl *plan.Plan) { transferOf(t, pl, "a", 2, false).Start = 3 }},
	{name: "load's start before the program", rules: []int{8}, block: "w1",
		edit: func(t testing.TB, pl *plan.Plan) { transferOf(t, pl, "w1", 1, true).Start = -1 }},
	{name: "load's start after at", rules: []int{8}, block: "w1",
		edit: func(t testing.TB, pl *plan.Plan) { transferOf(t, pl, "w1", 1, true).Start = 2 }},
	{name: "start at the source placement's from", // w2's source is in FLASH from 1
		edit: func(t testing.TB, pl *plan.Plan) { require.Equal(t, 1, transferOf(t, pl, "w2", 3, false).Start) }},
	{name: "start before the source placement's from", rules: []int{8}, block: "w2",
		edit: func(t testing.TB, pl *plan.Plan) { transferOf(t, pl, "w2", 3, false).Start = 0 }},
	{name: "a write inside [start, at-1]", rules: []int{8}, block: "a", // a is written at 0
		edit: func(t testing.TB, pl *plan.Plan) { transferOf(t, pl, "a", 2, false).Start = 0 }},
	{name: "a write at at itself", // a is written at 2, in SLOW, the copy's destination
		edit: func(t testing.TB, pl *plan.Plan) { require.Equal(t, 1, transferOf(t, pl, "a", 2, false).Start) }},
	{name: "copy issued at at", edit: func(t testing.TB, pl *plan.Plan) { transferOf(t, pl, "w2", 3, false).Start = 3 }},

	// Rule 9: a copy's destination is reserved over [start, at-1].
	{name: "prefetch window over a block", rules: []int{9}, block: "w2",
		edit: func(t testing.TB, pl *plan.Plan) { // w1 at FAST 192 during 1: in w2's window [1,2]
			placementOf(t, pl, "w1", 1).Offset = 192
			transferOf(t, pl, "w1", 1, true).ToOffset = 192
		}},
	{name: "prefetch window touching a block", // w2's window [2,2] begins after w1's placement at 1
		edit: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "w1", 1).Offset = 192
			transferOf(t, pl, "w1", 1, true).ToOffset = 192
			transferOf(t, pl, "w2", 3, false).Start = 2
		}},
	{name: "two windows overlapping", rules: []int{9}, block: "w3",
		edit: func(t testing.TB, pl *plan.Plan) {
			// w3 loaded into FAST 128 from 0: its window [0,1] meets w1's
			// window [0,0] and w1's placement at 1.
			placementOf(t, pl, "w3", 2).Offset = 128
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w3", At: 2, Start: 0, FromLevel: "FLASH", ToLevel: "FAST", ToOffset: 128, Load: true})
		}},
	{name: "load window touching a block", // w3 loaded into FAST 128 from 2, after w1's placement at 1
		edit: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "w3", 2).Offset = 128
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w3", At: 2, Start: 2, FromLevel: "FLASH", ToLevel: "FAST", ToOffset: 128, Load: true})
		}},
	{name: "copy within a level with start < at over its own source", rules: []int{9}, block: "a",
		edit: func(t testing.TB, pl *plan.Plan) { // a: FAST [64,128) -> FAST [48,112), window [1,1]
			*placementOf(t, pl, "a", 2) = plan.Placement{Block: "a", From: 2, To: 3, Level: "FAST", Offset: 48}
			x := transferOf(t, pl, "a", 2, false)
			x.ToLevel, x.ToOffset = "FAST", 48
			placementOf(t, pl, "y", 3).Offset = 384
		}},
	{name: "copy within a level at at over its own source", // section 3: the source ends at at-1
		edit: func(t testing.TB, pl *plan.Plan) {
			*placementOf(t, pl, "a", 2) = plan.Placement{Block: "a", From: 2, To: 3, Level: "FAST", Offset: 48}
			x := transferOf(t, pl, "a", 2, false)
			x.ToLevel, x.ToOffset, x.Start = "FAST", 48, 2
			placementOf(t, pl, "y", 3).Offset = 384
		}},
	{name: "copy within a level with start < at, disjoint",
		edit: func(t testing.TB, pl *plan.Plan) {
			*placementOf(t, pl, "a", 2) = plan.Placement{Block: "a", From: 2, To: 3, Level: "FAST", Offset: 320}
			x := transferOf(t, pl, "a", 2, false)
			x.ToLevel, x.ToOffset = "FAST", 320
		}},

	// Rule 10: loads and residency.
	{name: "load from a level other than home", rules: []int{10}, block: "w1",
		edit: func(t testing.TB, pl *plan.Plan) { transferOf(t, pl, "w1", 1, true).FromLevel = "SLOW" }},
	{name: "load with a from_offset", rules: []int{2, 10}, block: "w1",
		edit: func(t testing.TB, pl *plan.Plan) { transferOf(t, pl, "w1", 1, true).Load = false }},
	{name: "load not at the first timestep", rules: []int{10}, block: "w1",
		edit: func(t testing.TB, pl *plan.Plan) { x := transferOf(t, pl, "w1", 1, true); x.At, x.Start = 0, 0 }},
	{name: "load into another range than the first placement", rules: []int{10}, block: "w1",
		edit: func(t testing.TB, pl *plan.Plan) { transferOf(t, pl, "w1", 1, true).ToOffset = 320 }},
	{name: "two loads", rules: []int{10}, block: "w1",
		edit: func(t testing.TB, pl *plan.Plan) {
			x := *transferOf(t, pl, "w1", 1, true)
			x.Start = 1 // no second window: only rule 10
			pl.Transfers = append(pl.Transfers, x)
		}},
	{name: "load of an activation", rules: []int{10}, block: "x",
		edit: func(t testing.TB, pl *plan.Plan) {
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "x", At: 0, Start: 0, FromLevel: "FLASH", ToLevel: "FAST", ToOffset: 0, Load: true})
		}},
	{name: "constant in its home with a load", rules: []int{10}, block: "w2",
		edit: func(t testing.TB, pl *plan.Plan) {
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w2", At: 1, Start: 1, FromLevel: "FLASH", ToLevel: "FLASH", ToOffset: 0, Load: true})
		}},
	{name: "constant outside its home without a load, two placements", rules: []int{10}, block: "w1",
		prog: []func(*workload.Program){editBlock("w1", func(b *workload.Block) { b.Last, b.Reads = 2, []int{1, 2} })},
		edit: func(t testing.TB, pl *plan.Plan) {
			pl.Transfers = slices.DeleteFunc(pl.Transfers, func(x plan.Transfer) bool { return x.Block == "w1" })
			pl.Placements = append(pl.Placements, plan.Placement{Block: "w1", From: 2, To: 2, Level: "FAST", Offset: 320})
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w1", At: 2, Start: 2, FromLevel: "FAST", FromOffset: 128, ToLevel: "FAST", ToOffset: 320})
		}},
	{name: "resident constant with two placements", rules: []int{10}, block: "w3",
		prog: []func(*workload.Program){editBlock("w3", func(b *workload.Block) { b.Last, b.Reads = 3, []int{2, 3} })},
		edit: func(t testing.TB, pl *plan.Plan) {
			pl.Placements = append(pl.Placements, plan.Placement{Block: "w3", From: 3, To: 3, Level: "FAST", Offset: 320})
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w3", At: 3, Start: 3, FromLevel: "FAST", FromOffset: 256, ToLevel: "FAST", ToOffset: 320})
		}},
	{name: "resident range over a block before first", rules: []int{10}, block: "w3",
		edit: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "x", 0).Offset = 256 }},
	{name: "resident range over a block after last", rules: []int{10}, block: "w3",
		edit: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "y", 3).Offset = 256 }},
	{name: "resident range over a prefetch window", rules: []int{9, 10}, block: "w2",
		edit: func(t testing.TB, pl *plan.Plan) {
			// w2's window [1,2] at FAST 256 meets w3's resident range at 1
			// (rule 10) and its placement at 2 (rule 9); w2's placement at 3
			// the range again (rule 10).
			placementOf(t, pl, "w2", 3).Offset = 256
			transferOf(t, pl, "w2", 3, false).ToOffset = 256
		}},
	{name: "a load under seed003", rules: []int{10}, block: "w1",
		edit: func(t testing.TB, pl *plan.Plan) {
			seedVersion(pl)
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w1", At: 1, Start: 1, FromLevel: "FLASH", ToLevel: "FAST", ToOffset: 128, Load: true})
		}},
	{name: "start != at under seed003", rules: []int{10}, block: "a",
		edit: func(t testing.TB, pl *plan.Plan) {
			seedVersion(pl)
			transferOf(t, pl, "a", 2, false).Start = 1
		}},
	{name: "start != at under vela-dma", rules: []int{10}, block: "a",
		edit: func(t testing.TB, pl *plan.Plan) {
			seedVersion(pl)
			pl.CostModel = "vela-dma"
			transferOf(t, pl, "a", 2, false).Start = 1
		}},

	// Rule 6 under the timeline model.
	{name: "cost.final off by 1e-8 relative", rules: []int{6}, keepCost: true, edit: scaleFinal(1 + 1e-8)},
	{name: "cost.final off by 1e-10 relative", keepCost: true, edit: scaleFinal(1 + 1e-10)},
	{name: "cost.final of the seed model", rules: []int{6}, keepCost: true,
		edit: func(_ testing.TB, pl *plan.Plan) {
			// The sum of every access and copy: 34+34+91+108+17 + 69+91+69.
			pl.Cost.Final = 34 + 34 + 91 + 108 + 17 + 69 + 91 + 69
		}},
}

// TestTimelineMutations breaks tlPlan one way at a time (or changes it in
// a way that keeps it valid): each broken plan is rejected with exactly
// the rules it breaks, and a violation of the first names the block and
// its timesteps.
func TestTimelineMutations(t *testing.T) {
	for _, m := range tlMutations {
		t.Run(m.name, func(t *testing.T) {
			prog, prof := tlProgram(t, m.prog...), tlProfile(m.prof...)
			pl := tlPlan()
			if m.edit != nil {
				m.edit(t, pl)
			}
			rep := check(t, prog, prof, pl, nil)
			if !m.keepCost {
				pl.Cost.Final = rep.Cost
				rep = check(t, prog, prof, pl, nil)
			}
			for _, l := range lines(rep) {
				t.Log(l)
			}
			if m.rules == nil {
				requireValid(t, rep)
				return
			}
			require.Equal(t, m.rules, ruleSet(rep), "violations:\n%s", strings.Join(lines(rep), "\n"))
			if m.block != "" {
				found := false
				for _, v := range rep.Violations {
					if v.Rule == m.rules[0] && v.Block == m.block {
						found = true
						assert.Contains(t, v.String(), `"`+m.block+`"`, "the line names the block")
						assert.Contains(t, v.String(), "timestep", "the line names the timesteps")
					}
				}
				assert.True(t, found, "no rule-%d violation about %q: %v", m.rules[0], m.block, lines(rep))
			}
		})
	}
}

// TestTimelineViolationLines checks what the violations of rules 7-10 say.
func TestTimelineViolationLines(t *testing.T) {
	prog, prof := tlProgram(t), tlProfile()
	run := func(edit func(pl *plan.Plan)) []string {
		pl := tlPlan()
		edit(pl)
		rep := check(t, prog, prof, pl, nil)
		pl.Cost.Final = rep.Cost
		return lines(check(t, prog, prof, pl, nil))
	}
	assert.Equal(t, []string{
		`rule 7: block "a" (activation) is placed in read-only level FLASH during timesteps [2,3]: only constants may be`,
	}, run(func(pl *plan.Plan) {
		*placementOf(t, pl, "a", 2) = plan.Placement{Block: "a", From: 2, To: 3, Level: "FLASH", Offset: 64}
		x := transferOf(t, pl, "a", 2, false)
		x.ToLevel, x.ToOffset = "FLASH", 64
	}))
	assert.Equal(t, []string{
		`rule 8: block "w2": copy for timestep 3 issued at timestep 0, before its source placement (FLASH@0) begins at timestep 1`,
	}, run(func(pl *plan.Plan) { transferOf(t, pl, "w2", 3, false).Start = 0 }))
	assert.Equal(t, []string{
		`rule 8: block "a": copy for timestep 2 issued at timestep 0 would carry stale bytes: the block is written at timestep 0 in [0,1]`,
	}, run(func(pl *plan.Plan) { transferOf(t, pl, "a", 2, false).Start = 0 }))
	assert.Equal(t, []string{
		`rule 8: block "w1": load for timestep 1 issued at timestep 2, after it (start <= at)`,
	}, run(func(pl *plan.Plan) { transferOf(t, pl, "w1", 1, true).Start = 2 }))
	assert.Equal(t, []string{
		`rule 9: block "w2": copy into FAST [192,256) reserved over timesteps [1,2] overlaps block "w1" [192,256) at timestep 1`,
	}, run(func(pl *plan.Plan) {
		placementOf(t, pl, "w1", 1).Offset = 192
		transferOf(t, pl, "w1", 1, true).ToOffset = 192
	}))
	assert.Equal(t, []string{
		`rule 9: block "w3": load into FAST [128,192) reserved over timesteps [0,1] overlaps the load of block "w1" into FAST [128,192) reserved over timestep 0 at timestep 0`,
		`rule 9: block "w3": load into FAST [128,192) reserved over timesteps [0,1] overlaps block "w1" [128,192) at timestep 1`,
	}, run(func(pl *plan.Plan) {
		placementOf(t, pl, "w3", 2).Offset = 128
		pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w3", At: 2, Start: 0, FromLevel: "FLASH", ToLevel: "FAST", ToOffset: 128, Load: true})
	}))
	assert.Equal(t, []string{
		`rule 9: block "a": copy into FAST [48,112) reserved over timestep 1 overlaps its own placement FAST [64,128) at timestep 1`,
	}, run(func(pl *plan.Plan) {
		*placementOf(t, pl, "a", 2) = plan.Placement{Block: "a", From: 2, To: 3, Level: "FAST", Offset: 48}
		x := transferOf(t, pl, "a", 2, false)
		x.ToLevel, x.ToOffset = "FAST", 48
		placementOf(t, pl, "y", 3).Offset = 384
	}))
	assert.Equal(t, []string{
		`rule 10: block "w1": load at timestep 1 from level SLOW, not from its home FLASH`,
	}, run(func(pl *plan.Plan) { transferOf(t, pl, "w1", 1, true).FromLevel = "SLOW" }))
	assert.Equal(t, []string{
		`rule 10: block "w3": resident range FAST [256,320) reserved over timesteps [3,4] overlaps block "y" [256,320) at timesteps [3,4]`,
	}, run(func(pl *plan.Plan) { placementOf(t, pl, "y", 3).Offset = 256 }))
	assert.Equal(t, []string{
		`rule 10: block "w2": first placed in its home FLASH at timestep 1, yet loaded at timestep 1: a constant in its home has no load`,
	}, run(func(pl *plan.Plan) {
		pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w2", At: 1, Start: 1, FromLevel: "FLASH", ToLevel: "FLASH", ToOffset: 0, Load: true})
	}))
	assert.Equal(t, []string{
		`rule 10: block "a": transfer at timestep 2 issued at timestep 1: start differs from at only under the timeline model, not seed003`,
	}, run(func(pl *plan.Plan) {
		seedVersion(pl)
		transferOf(t, pl, "a", 2, false).Start = 1
	}))
}

// TestTimelineCostByHand checks the timeline cost of small plans against
// the arithmetic of FORMATS.md 6.3, written out in each case. Sizes are
// 64 B (FAST 17, FLASH 52 per side: a load 69) unless a case says.
func TestTimelineCostByHand(t *testing.T) {
	// oneOp is a program of ops with the given MACs and constants read at
	// the given timesteps ([first, last] = [read, read]); each constant is
	// loaded from FLASH into FAST at 64*i, issued at starts[i].
	type load struct {
		name        string
		size        int64
		read, start int
	}
	build := func(t *testing.T, macs []int64, loads []load) (*workload.Program, *plan.Plan) {
		prog := &workload.Program{Name: "tl"}
		for i, m := range macs {
			prog.Ops = append(prog.Ops, workload.Op{Name: fmt.Sprintf("op%d", i), MACs: m})
		}
		pl := &plan.Plan{Workload: "tl", Hardware: "tl", TimeUnit: "cycle", CostModel: verify.TimelineModel}
		off := int64(0)
		for _, l := range loads {
			prog.Blocks = append(prog.Blocks, workload.Block{Name: l.name, Size: l.size, Kind: workload.Constant, First: l.read, Last: l.read, Reads: []int{l.read}})
			pl.Placements = append(pl.Placements, plan.Placement{Block: l.name, From: l.read, To: l.read, Level: "FAST", Offset: off})
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: l.name, At: l.read, Start: l.start, FromLevel: "FLASH", ToLevel: "FAST", ToOffset: off, Load: true})
			off += (l.size + 15) / 16 * 16
		}
		require.NoError(t, prog.Validate("tl"))
		return prog, pl
	}
	noCompute := func(p *hw.Profile) { p.Compute = nil }
	channels := func(n int) func(*hw.Profile) { return func(p *hw.Profile) { p.DMA.Channels = n } }
	tests := []struct {
		name  string
		macs  []int64
		loads []load
		prof  []func(*hw.Profile)
		want  float64
	}{
		// c = 1 + 100/2 = 51, m = 17, d = 51; the load [0,69]: T = 69, R = 69+51.
		{"one op, one copy", []int64{100}, []load{{"w", 64, 0, 0}}, nil, 69 + 51},
		// Issued at its own timestep 1, after op0 (c = 1, no accesses: d = 1):
		// [1, 70]; T = 70; op1 c = 1 + 0 = 1, m = 17: R = 70+17 = 87.
		{"a copy issued at start == at", []int64{0, 0}, []load{{"w", 64, 1, 1}}, nil, 87},
		// The same load issued at 0 hides behind op0 only if op0 is long:
		// op0 c = 1 + 200/2 = 101; the load [0,69] ends before op0 does (no
		// stall): R = 101, then op1 d = max(1, 17): 118.
		{"a copy hidden behind an op", []int64{200, 0}, []load{{"w", 64, 1, 0}}, nil, 101 + 17},
		// A stall: op0 d = 1 (c = 1, no accesses); the load [0,69]; op1
		// waits from 1 to 69 (a stall of 68): R = 69 + 17 = 86.
		{"a stall", []int64{0, 0}, []load{{"w", 64, 1, 0}}, nil, 86},
		// op_overhead without MACs: op0 costs 1 (its overhead; no accesses),
		// op1 1 + 64/2 = 33 > its read 17: with the load at start == at = 1,
		// [1,70]: R = 70 + 33 = 103.
		{"op_overhead with and without macs", []int64{0, 64}, []load{{"w", 64, 1, 1}}, nil, 103},
		// Without a compute section an op costs its accesses only: op0 0,
		// the load [0,69], op1 17: 86... and op0 takes no time, so it is the
		// same as issuing at 1: 69 + 17.
		{"no compute section", []int64{1000, 1000}, []load{{"w", 64, 1, 0}}, []func(*hw.Profile){noCompute}, 69 + 17},
		// Three loads for op1 issued at 0, ordered by (at, name): u (256 B:
		// out FLASH 20+128 = 148, in FAST 1+64 = 65: 213), v, w (69 each).
		// Two channels: u takes channel 1 (F = [0,0], a tie: the lowest
		// index), [0,213]; v channel 2, [0,69]; w channel 2 (69 < 213),
		// [69,138]. op0 c = 1; T1 = 213; op1 reads u 65 + v 17 + w 17 = 99
		// > c = 1: R = 213+99 = 312. (In name order reversed w, v, u would
		// end at 69+213 = 282: the order is what the text says.)
		{"two channels, a tie to the lowest index, name order", []int64{0, 0},
			[]load{{"w", 64, 1, 0}, {"v", 64, 1, 0}, {"u", 256, 1, 0}}, []func(*hw.Profile){channels(2)}, 312},
		// The same on one channel: u [0,213], v [213,282], w [282,351]: R = 351+99 = 450.
		{"one channel", []int64{0, 0},
			[]load{{"w", 64, 1, 0}, {"v", 64, 1, 0}, {"u", 256, 1, 0}}, nil, 450},
		// Ordered by at before the name: b for op1 (issued at 0, [0,69])
		// before a for op2 (issued at 0, [69,138]). op0 1, op1 waits until
		// 69, R = 69+17 = 86; op2 waits until 138: R = 138+17 = 155.
		{"at before name", []int64{0, 0, 0}, []load{{"a", 64, 2, 0}, {"b", 64, 1, 0}}, nil, 155},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, pl := build(t, tt.macs, tt.loads)
			pl.Cost.Final = tt.want
			rep := check(t, prog, tlProfile(tt.prof...), pl, nil)
			requireValid(t, rep)
			assert.Equal(t, tt.want, rep.Cost)
		})
	}
}

// costOf returns pl's cost as Check recomputes it, and the report.
func costOf(t testing.TB, g *tlgen.Gen, pl *plan.Plan) *verify.Report {
	t.Helper()
	return check(t, g.Prog, g.Prof, pl, nil)
}

// TestTimelineRandomPlans: random timeline plans, valid by construction,
// pass every rule (with cost.final the recomputed cost); and moving a
// copy's start to one before its earliest feasible one breaks rule 8, 9
// or 10, as the generator's own occupancy says it must.
func TestTimelineRandomPlans(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 6))
	iters := 1000
	if testmode.Quick() {
		iters = 200
	}
	prefetches, loads, residents, broken := 0, 0, 0, 0
	for i := 0; i < iters; {
		g, ok := tlgen.Random(rng, tlgen.Options{})
		if !ok {
			continue
		}
		i++
		pl := g.Plan
		rep := costOf(t, g, pl)
		pl.Cost.Final = rep.Cost
		rep = costOf(t, g, pl)
		require.Empty(t, lines(rep), "plan %d", i)
		for k, x := range pl.Transfers {
			switch {
			case x.Load:
				loads++
			case x.Start < x.At:
				prefetches++
			}
			if g.Earliest[k] == 0 {
				continue
			}
			bad := clonePlan(pl)
			bad.Transfers[k].Start = g.Earliest[k] - 1
			rep := costOf(t, g, bad)
			rs := ruleSet(rep)
			require.NotEmpty(t, rs, "plan %d: transfer %+v issued at %d, before its earliest feasible start %d", i, x, g.Earliest[k]-1, g.Earliest[k])
			for _, r := range rs {
				require.Contains(t, []int{6, 8, 9, 10}, r, "plan %d: %v", i, lines(rep))
			}
			require.NotEqual(t, []int{6}, rs, "plan %d: only the cost changed: %v", i, lines(rep))
			broken++
		}
		for b, blk := range g.Prog.Blocks {
			if blk.Kind == workload.Constant && !slices.ContainsFunc(pl.Transfers, func(x plan.Transfer) bool { return x.Block == blk.Name }) {
				if p := pl.Placements[slices.IndexFunc(pl.Placements, func(p plan.Placement) bool { return p.Block == blk.Name })]; p.Level != g.Prof.Levels[g.Home(b)].Name {
					residents++
				}
			}
		}
	}
	t.Logf("%d plans: %d prefetches, %d loads, %d resident constants; %d starts moved before the earliest feasible one, all rejected",
		iters, prefetches, loads, residents, broken)
	require.Greater(t, prefetches, iters/3)
	require.Greater(t, loads, iters/4)
	require.Greater(t, residents, iters/10)
	require.Greater(t, broken, iters/4)
}

// TestTimelineGeneralisesSeed003 is the must-show of FORMATS.md 6.3: with
// no compute section, one channel and every start == at, the timeline cost
// of a plan equals the seed model's for the same placements, when the
// constants sit in their home levels (no loads, nobody resident), on
// random plans, to 1e-12 relative. With loads issued at their at, it is
// the seed's cost plus the loads' copies.
func TestTimelineGeneralisesSeed003(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 15))
	iters := 1000
	if testmode.Quick() {
		iters = 200
	}
	worst := 0.0
	for i := 0; i < iters; {
		g, ok := tlgen.Random(rng, tlgen.Options{ConstantsHome: true, SeedOnly: true})
		if !ok {
			continue
		}
		i++
		g.Prof.Compute, g.Prof.DMA.Channels = nil, rng.IntN(2) // 0 or 1: one channel
		seed := costOf(t, g, g.Plan)
		g.Plan.Cost.Final = seed.Cost
		requireValid(t, costOf(t, g, g.Plan))
		tl := clonePlan(g.Plan)
		tl.CostModel = verify.TimelineModel
		rep := costOf(t, g, tl)
		requireValid(t, rep) // cost.final: the seed's cost, to 1e-9
		d := relDiff(rep.Cost, seed.Cost)
		require.LessOrEqual(t, d, 1e-12, "plan %d: timeline %v, seed003 %v", i, rep.Cost, seed.Cost)
		worst = max(worst, d)
	}
	t.Logf("%d plans: largest relative difference %.3g", iters, worst)

	// Constants anywhere, each outside its home loaded at its first
	// timestep: the seed's cost (which charges nothing for that) plus each
	// load's out(home) + in(level).
	for i := 0; i < iters/4; {
		g, ok := tlgen.Random(rng, tlgen.Options{SeedOnly: true})
		if !ok {
			continue
		}
		i++
		g.Prof.Compute, g.Prof.DMA.Channels = nil, 1
		seed := costOf(t, g, g.Plan).Cost
		tl := clonePlan(g.Plan)
		tl.CostModel = verify.TimelineModel
		extra := 0.0
		for b, blk := range g.Prog.Blocks {
			p := tl.Placements[slices.IndexFunc(tl.Placements, func(p plan.Placement) bool { return p.Block == blk.Name })]
			if blk.Kind != workload.Constant || p.Level == g.Prof.Levels[g.Home(b)].Name {
				continue
			}
			tl.Transfers = append(tl.Transfers, plan.Transfer{Block: blk.Name, At: blk.First, Start: blk.First,
				FromLevel: g.Prof.Levels[g.Home(b)].Name, ToLevel: p.Level, ToOffset: p.Offset, Load: true})
			home, to := &g.Prof.Levels[g.Home(b)], &g.Prof.Levels[slices.IndexFunc(g.Prof.Levels, func(l hw.Level) bool { return l.Name == p.Level })]
			extra += home.Out.Latency + float64(blk.Size)/home.Out.Bandwidth + to.In.Latency + float64(blk.Size)/to.In.Bandwidth
		}
		rep := costOf(t, g, tl)
		assert.InEpsilon(t, seed+extra, rep.Cost, 1e-12, "plan %d", i)
		tl.Cost.Final = rep.Cost
		requireValid(t, costOf(t, g, tl))
	}
}
