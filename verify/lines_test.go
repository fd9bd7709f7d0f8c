package verify_test

import (
	"cmp"
	"context"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// The tests here list, for plans of handProgram broken one way at a time,
// every line Check reports, word for word: they are what `hieropt verify`
// prints. (They were plan.Validate's cases, the checker before this one.)

// cannotPrice is the rule-6 line that follows any broken tiling.
const cannotPrice = "rule 6: cost.final 452 cannot be checked: the placements do not tile the lifetimes"

// planner binds prog to prof for the planner's side of a test: pricing a
// plan with package costmodel and cost.initial with the initializer.
func planner(t testing.TB, prog *workload.Program, prof *hw.Profile) *state.Problem {
	t.Helper()
	p, err := state.Bind(prog, prof, "hand")
	require.NoError(t, err)
	return p
}

// withInitial is Options whose Initial is the planner's (the initializer's
// plan under seed003: handInitial for handProgram).
func withInitial(p *state.Problem) *verify.Options {
	return &verify.Options{Doc: plan.DocName("t.json"), Initial: actions.VerifyInitial(context.Background(), p, costmodel.Seed003{})}
}

// handLayout builds the layout of a plan whose placements tile every
// lifetime, by hand (each block's placements sorted by from), so that
// package costmodel can price it.
func handLayout(t testing.TB, p *state.Problem, pl *plan.Plan) *state.Layout {
	t.Helper()
	lay := state.NewLayout(p.Blocks())
	for _, pp := range pl.Placements {
		b := slices.IndexFunc(p.Prog.Blocks, func(blk workload.Block) bool { return blk.Name == pp.Block })
		l := slices.IndexFunc(p.HW.Levels, func(lv hw.Level) bool { return lv.Name == pp.Level })
		require.True(t, b >= 0 && l >= 0, "%s in %s", pp.Block, pp.Level)
		lay.Segs[b] = append(lay.Segs[b], state.Seg{From: int32(pp.From), Level: int32(l), Offset: pp.Offset})
	}
	for b := range lay.Segs {
		slices.SortFunc(lay.Segs[b], func(x, y state.Seg) int { return cmp.Compare(x.From, y.From) })
	}
	return lay
}

// pricedByPlanner sets pl's cost.final to package costmodel's price of its
// placements under seed003 and cost.initial to the initializer's.
func pricedByPlanner(t testing.TB, p *state.Problem, pl *plan.Plan) *plan.Plan {
	t.Helper()
	pl.Cost.Final = costmodel.Total(costmodel.Seed003{}, p, handLayout(t, p, pl))
	initial, _, err := actions.InitialCost(context.Background(), p, costmodel.Seed003{})
	require.NoError(t, err)
	pl.Cost.Initial = initial
	return pl
}

// nilIfEmpty makes an empty list nil, for comparisons.
func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// drop removes the placements of block name that start at from.
func drop(pl *plan.Plan, name string, from int) {
	pl.Placements = slices.DeleteFunc(pl.Placements, func(pp plan.Placement) bool { return pp.Block == name && pp.From == from })
}

// TestPlacementOrderDoesNotMatter: the placements in reverse order are the
// same plan.
func TestPlacementOrderDoesNotMatter(t *testing.T) {
	prog, prof := handProgram(t), fastSlow()
	pl := handPlan()
	slices.Reverse(pl.Placements)
	rep := check(t, prog, prof, pl, withInitial(planner(t, prog, prof)))
	requireValid(t, rep)
	assert.Equal(t, handFinal, rep.Cost)
	assert.Equal(t, handInitial, rep.InitialCost)
}

// TestReuseLines covers the exception of rule 4: B created at t at the
// offset of a reusable A that ends at t, in the cases that the kind-rule
// tests (kind_test.go) do not: blocks in either ID order, a smaller B, an
// A that moved before, a slower level.
func TestReuseLines(t *testing.T) {
	// swapSA puts a1 (block 4) before s (block 3), so that the reusing block
	// has the lower ID.
	swapSA := func(prog *workload.Program) { prog.Blocks[3], prog.Blocks[4] = prog.Blocks[4], prog.Blocks[3] }
	reusable := func(name string) func(*workload.Program) {
		return editBlock(name, func(b *workload.Block) { b.Reusable = true })
	}
	tests := []struct {
		name   string
		mods   []func(*workload.Program)
		mutate func(t testing.TB, pl *plan.Plan)
		want   []string
	}{{
		name: "same size in place",
		// x (input, reusable, ends at 0) hands [0,64) to a0 (created at 0).
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a0", 0).Offset = 0
			pl.Transfers[0].FromOffset = 0
		},
	}, {
		name: "larger B over free space",
		// s (48 B at 256) hands its space to a1 (128 B): a1 covers
		// [256,384), of which [304,384) is free at timesteps 1-3.
		mods: []func(*workload.Program){reusable("s")},
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a1", 1).Offset = 256
			placementOf(t, pl, "y", 3).Offset = 256
		},
	}, {
		name: "larger B, reusing block has the lower ID",
		mods: []func(*workload.Program){reusable("s"), swapSA},
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a1", 1).Offset = 256
			placementOf(t, pl, "y", 3).Offset = 256
		},
	}, {
		name: "larger B over a third block",
		mods: []func(*workload.Program){reusable("s")},
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a1", 1).Offset = 256
			placementOf(t, pl, "y", 3).Offset = 256
			placementOf(t, pl, "a0", 0).Offset = 320 // [320,384) at timesteps 0-1
			pl.Transfers[0].FromOffset = 320
		},
		want: []string{`rule 4: blocks "a0" and "a1" overlap in level FAST at timesteps [1,1], bytes [320,384)`},
	}, {
		name: "larger B over a third block, reusing block has the lower ID",
		mods: []func(*workload.Program){reusable("s"), swapSA},
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a1", 1).Offset = 256
			placementOf(t, pl, "y", 3).Offset = 256
			placementOf(t, pl, "a0", 0).Offset = 320
			pl.Transfers[0].FromOffset = 320
		},
		want: []string{`rule 4: blocks "a0" and "a1" overlap in level FAST at timesteps [1,1], bytes [320,384)`},
	}, {
		name: "smaller B leaves A its tail",
		// y (64 B) takes [320,384) of a1's [320,448); a1 keeps [384,448)
		// for timestep 3.
		mods: []func(*workload.Program){editBlock("y", func(b *workload.Block) { b.Size = 64 })},
	}, {
		name: "smaller B, a third block in A's tail",
		// As above, and c moves into a1's tail [384,448) at timesteps 2-4:
		// it meets a1 (2-3) there, but not y.
		mods: []func(*workload.Program){editBlock("y", func(b *workload.Block) { b.Size = 64 })},
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "c", 2).Offset = 384
		},
		want: []string{`rule 4: blocks "a1" and "c" overlap in level FAST at timesteps [2,3], bytes [384,448)`},
	}, {
		name: "A moved before it is reused",
		// a1 moves inside FAST at 2 (a move inside a level is a transfer)
		// and y takes its new place at 3.
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a1", 1).To = 1
			pl.Placements = append(pl.Placements, plan.Placement{Block: "a1", From: 2, To: 3, Level: "FAST", Offset: 640})
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "a1", At: 2, Start: 2, FromLevel: "FAST", FromOffset: 320, ToLevel: "FAST", ToOffset: 640})
			placementOf(t, pl, "y", 3).Offset = 640
		},
	}, {
		name: "reused in the slow level",
		// a1 moves to SLOW at 2 and y is created over it there.
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a1", 1).To = 1
			pl.Placements = append(pl.Placements, plan.Placement{Block: "a1", From: 2, To: 3, Level: "SLOW", Offset: 128})
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "a1", At: 2, Start: 2, FromLevel: "FAST", FromOffset: 320, ToLevel: "SLOW", ToOffset: 128})
			y := placementOf(t, pl, "y", 3)
			y.Level, y.Offset = "SLOW", 128
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, prof := handProgram(t, tt.mods...), fastSlow()
			p := planner(t, prog, prof)
			pl := handPlan()
			if tt.mutate != nil {
				tt.mutate(t, pl)
			}
			rep := check(t, prog, prof, pricedByPlanner(t, p, pl), withInitial(p))
			assert.Equal(t, tt.want, nilIfEmpty(lines(rep)))
			assert.Equal(t, tt.want == nil, rep.Valid())
		})
	}
}

// lineCase breaks the hand plan of handProgram(mods...) by mutate and
// lists the lines Check must report, in order. final, when not zero, is
// the plan's cost.final (else handFinal), initial likewise (else
// handInitial); cost.initial is checked against the initializer's plan.
type lineCase struct {
	name           string
	mods           []func(*workload.Program)
	mutate         func(t testing.TB, pl *plan.Plan)
	final, initial float64
	want           []string
}

func runLineCases(t *testing.T, tests []lineCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, prof := handProgram(t, tt.mods...), fastSlow()
			pl := handPlan()
			tt.mutate(t, pl)
			if tt.final != 0 {
				pl.Cost.Final = tt.final
			}
			if tt.initial != 0 {
				pl.Cost.Initial = tt.initial
			}
			rep := check(t, prog, prof, pl, withInitial(planner(t, prog, prof)))
			assert.Equal(t, tt.want, nilIfEmpty(lines(rep)))
			assert.Equal(t, tt.want == nil, rep.Valid())
		})
	}
}

func TestRule1Lines(t *testing.T) {
	runLineCases(t, []lineCase{{
		name:   "missing placement",
		mutate: func(t testing.TB, pl *plan.Plan) { drop(pl, "w", 1) },
		want:   []string{`rule 1: block "w" has no placement for its lifetime, timestep 1`, cannotPrice},
	}, {
		name:   "gap",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "a0", 0).To = 0 },
		want:   []string{`rule 1: block "a0": no placement covers timestep 1`, cannotPrice},
	}, {
		name:   "gap at the end",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "y", 3).To = 3 },
		want:   []string{`rule 1: block "y": no placement covers timestep 4`, cannotPrice},
	}, {
		name:   "gap at the start",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "a1", 1).From = 2 },
		want:   []string{`rule 1: block "a1": no placement covers timestep 1`, cannotPrice},
	}, {
		name: "own placements overlap",
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a0", 2).From = 1
			pl.Transfers[0].At, pl.Transfers[0].Start = 1, 1
		},
		want: []string{`rule 1: block "a0": placements overlap at timestep 1`, cannotPrice},
	}, {
		name:   "starts before first",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "a1", 1).From = 0 },
		want:   []string{`rule 1: block "a1": placement at timesteps [0,3] starts before the lifetime [1,3]`, cannotPrice},
	}, {
		name:   "runs past last",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "x", 0).To = 1 },
		want:   []string{`rule 1: block "x": placements reach timestep 1, past the lifetime's end 0`, cannotPrice},
	}, {
		name:   "from > to",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "w", 1).To = 0 },
		want: []string{
			`rule 1: block "w": placement from timestep 1 to 0 is empty (from > to)`,
			`rule 1: block "w": no placement covers timestep 1`,
			cannotPrice,
		},
	}})
}

// TestRule1NoCost: an untiled plan has no cost; cost.initial is still
// checked, as it does not depend on the plan.
func TestRule1NoCost(t *testing.T) {
	prog, prof := handProgram(t), fastSlow()
	pl := handPlan()
	drop(pl, "w", 1)
	rep := check(t, prog, prof, pl, withInitial(planner(t, prog, prof)))
	assert.True(t, math.IsNaN(rep.Cost), "an untiled plan has no cost")
	assert.Equal(t, handInitial, rep.InitialCost)
}

func TestRule2Lines(t *testing.T) {
	runLineCases(t, []lineCase{{
		name: "consecutive placements at the same place",
		mutate: func(t testing.TB, pl *plan.Plan) {
			a0 := placementOf(t, pl, "a0", 2)
			a0.Level, a0.Offset = "FAST", 64
			pl.Transfers[0].ToLevel, pl.Transfers[0].ToOffset = "FAST", 64
		},
		// a0 now reads at 2 from FAST (17, not 74) and its transfer costs
		// out FAST + in FAST = 17 + 17 = 34 (not 91): 452 - 57 - 57 = 338.
		final: 338,
		want:  []string{`rule 2: block "a0": placements starting at timesteps 0 and 2 are at the same place (FAST, offset 64): no move between them`},
	}, {
		name:   "missing transfer",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Transfers = nil },
		// Section 4 sums the listed transfers: 452 - 91 = 361.
		final: 361,
		want:  []string{`rule 2: block "a0": no transfer at timestep 2, where it moves from FAST@64 to SLOW@0`},
	}, {
		name:   "transfer with the wrong to_offset",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Transfers[0].ToOffset = 64 },
		want:   []string{`rule 2: block "a0": transfer at timestep 2 says FAST@64 -> SLOW@64, the placements say FAST@64 -> SLOW@0`},
	}, {
		name:   "transfer with the wrong from_offset",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Transfers[0].FromOffset = 0 },
		want:   []string{`rule 2: block "a0": transfer at timestep 2 says FAST@0 -> SLOW@0, the placements say FAST@64 -> SLOW@0`},
	}, {
		name:   "transfer with the wrong to_level",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Transfers[0].ToLevel = "FAST" },
		// The listed transfer is priced: out FAST 17 + in FAST 17 = 34
		// instead of 91: 452 - 57 = 395.
		final: 395,
		want:  []string{`rule 2: block "a0": transfer at timestep 2 says FAST@64 -> FAST@0, the placements say FAST@64 -> SLOW@0`},
	}, {
		name:   "two transfers at one boundary",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Transfers = append(pl.Transfers, pl.Transfers[0]) },
		// Both are priced: 452 + 91 = 543.
		final: 543,
		want:  []string{`rule 2: block "a0": 2 transfers at timestep 2, want exactly one`},
	}, {
		name: "transfer not at a boundary",
		mutate: func(t testing.TB, pl *plan.Plan) {
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w", At: 1, Start: 1, FromLevel: "FAST", FromOffset: 128, ToLevel: "SLOW", ToOffset: 128})
		},
		// w (32 B): out FAST 1+8 = 9, in SLOW 10+32 = 42: 452 + 51 = 503.
		final: 503,
		want:  []string{`rule 2: block "w": transfer at timestep 1 is not at a boundary between two of its placements`},
	}, {
		name:   "transfer one timestep early",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Transfers[0].At, pl.Transfers[0].Start = 1, 1 },
		want: []string{
			`rule 2: block "a0": no transfer at timestep 2, where it moves from FAST@64 to SLOW@0`,
			`rule 2: block "a0": transfer at timestep 1 is not at a boundary between two of its placements`,
		},
	}})
}

func TestRule3Lines(t *testing.T) {
	runLineCases(t, []lineCase{{
		name:   "misaligned for the level",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "c", 2).Offset = 520 },
		want:   []string{`rule 3: block "c": offset 520 in level FAST during timesteps [2,4] is not a multiple of its alignment 16`},
	}, {
		name:   "misaligned for the slow level",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "p", 2).Offset = 160 },
		want:   []string{`rule 3: block "p": offset 160 in level SLOW during timesteps [2,3] is not a multiple of its alignment 64`},
	}, {
		name: "misaligned for the block's own align",
		// 704 is a multiple of 16 (FAST) but not of w's 128.
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "w", 1).Offset = 704 },
		want:   []string{`rule 3: block "w": offset 704 in level FAST during timestep 1 is not a multiple of its alignment 128`},
	}, {
		name: "past the capacity",
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a1", 1).Offset = 4032
			placementOf(t, pl, "y", 3).Offset = 4032
		},
		want: []string{
			`rule 3: block "a1": [4032,4160) during timesteps [1,3] ends past the capacity 4096 of level FAST (footprint 128)`,
			`rule 3: block "y": [4032,4160) during timesteps [3,4] ends past the capacity 4096 of level FAST (footprint 128)`,
		},
	}, {
		name: "footprint past the capacity",
		// w is 32 B but its footprint is 128: 4000 + 128 > 4096.
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "w", 1).Offset = 3968 + 32 },
		want: []string{
			`rule 3: block "w": offset 4000 in level FAST during timestep 1 is not a multiple of its alignment 128`,
			`rule 3: block "w": [4000,4128) during timestep 1 ends past the capacity 4096 of level FAST (footprint 128)`,
		},
	}, {
		name: "ending exactly at the capacity is fine",
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a1", 1).Offset = 3968
			placementOf(t, pl, "y", 3).Offset = 3968
		},
	}, {
		name:   "negative",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "c", 2).Offset = -64 },
		want:   []string{`rule 3: block "c": offset -64 in level FAST during timesteps [2,4] is negative`},
	}, {
		name: "near MaxInt64",
		// 2^63-64 is a multiple of 64: only the end is wrong, and it
		// overflows.
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "c", 2).Offset = math.MaxInt64 - 63 },
		want:   []string{`rule 3: block "c": [9223372036854775744,overflow) during timesteps [2,4] ends past the capacity 4096 of level FAST (footprint 64)`},
	}, {
		name:   "MaxInt64",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "c", 2).Offset = math.MaxInt64 },
		want: []string{
			`rule 3: block "c": offset 9223372036854775807 in level FAST during timesteps [2,4] is not a multiple of its alignment 16`,
			`rule 3: block "c": [9223372036854775807,overflow) during timesteps [2,4] ends past the capacity 4096 of level FAST (footprint 64)`,
		},
	}, {
		name: "two blocks overlapping near MaxInt64",
		// w [2^63-128, 2^63) overflows; s [2^63-128, 2^63-80) does not.
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "w", 1).Offset = math.MaxInt64 - 127
			placementOf(t, pl, "s", 1).Offset = math.MaxInt64 - 127
		},
		want: []string{
			`rule 3: block "w": [9223372036854775680,overflow) during timestep 1 ends past the capacity 4096 of level FAST (footprint 128)`,
			`rule 3: block "s": [9223372036854775680,9223372036854775728) during timestep 1 ends past the capacity 4096 of level FAST (footprint 48)`,
			`rule 4: blocks "w" and "s" overlap in level FAST at timesteps [1,1], bytes [9223372036854775680,9223372036854775728)`,
		},
	}})
}

// TestRule3TooLarge places a block in a level smaller than its footprint
// (the profile lets it live only in SLOW).
func TestRule3TooLarge(t *testing.T) {
	prog, prof := handProgram(t, editBlock("c", func(b *workload.Block) { b.Size = 5000 })), fastSlow()
	pl := handPlan()
	// c is read at 4 from FAST: 1 + 5000/4 = 1251 instead of 17, so
	// cost.final is 452 - 17 + 1251 = 1686; the initializer puts c in SLOW:
	// 304 - 17 + (10 + 5000) = 5297.
	pl.Cost = plan.Cost{Initial: 5297, Final: 1686}
	rep := check(t, prog, prof, pl, withInitial(planner(t, prog, prof)))
	assert.Equal(t, []string{
		`rule 3: block "c": [512,5520) during timesteps [2,4] ends past the capacity 4096 of level FAST (footprint 5008)`,
	}, lines(rep))
	assert.Equal(t, 5297.0, rep.InitialCost)
}

func TestRule4Lines(t *testing.T) {
	s2 := func(prog *workload.Program) {
		prog.Blocks = append(prog.Blocks, workload.Block{Name: "s2", Size: 16, Kind: workload.Scratch, First: 1, Last: 1, Writes: []int{1}})
	}
	reusable := func(name string) func(*workload.Program) {
		return editBlock(name, func(b *workload.Block) { b.Reusable = true })
	}
	runLineCases(t, []lineCase{{
		name:   "two blocks",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "s", 1).Offset = 128 },
		want:   []string{`rule 4: blocks "w" and "s" overlap in level FAST at timesteps [1,1], bytes [128,176)`},
	}, {
		name: "two blocks over several timesteps",
		// c [2,4] at 352 sits on a1 at 2-3 and on y at 3-4.
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "c", 2).Offset = 352 },
		want: []string{
			`rule 4: blocks "a1" and "c" overlap in level FAST at timesteps [2,3], bytes [352,416)`,
			`rule 4: blocks "c" and "y" overlap in level FAST at timesteps [3,4], bytes [352,416)`,
		},
	}, {
		name:   "in the slow level",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "p", 2).Offset = 0 },
		want:   []string{`rule 4: blocks "a0" and "p" overlap in level SLOW at timesteps [2,2], bytes [0,64)`},
	}, {
		name: "partial overlap from below",
		// s at 224: [224,272) overlaps w [128,256) at [224,256).
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "s", 1).Offset = 224 },
		want:   []string{`rule 4: blocks "w" and "s" overlap in level FAST at timesteps [1,1], bytes [224,256)`},
	}, {
		name: "reuse of a non-reusable block",
		mods: []func(*workload.Program){editBlock("x", func(b *workload.Block) { b.Reusable = false })},
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a0", 0).Offset = 0
			pl.Transfers[0].FromOffset = 0
		},
		want: []string{`rule 4: blocks "x" and "a0" overlap in level FAST at timesteps [0,0], bytes [0,64)`},
	}, {
		name: "kind rule: scratch over scratch",
		mods: []func(*workload.Program){reusable("s"), s2},
		mutate: func(t testing.TB, pl *plan.Plan) {
			pl.Placements = append(pl.Placements, plan.Placement{Block: "s2", From: 1, To: 1, Level: "FAST", Offset: 256})
		},
		// s2 is written at 1 in FAST: 1 + 16/4 = 5 more, 457 and 309.
		final: 457, initial: 309,
		want: []string{`rule 4: blocks "s" and "s2" overlap in level FAST at timesteps [1,1], bytes [256,272)`},
	}, {
		name: "kind rule: constant over activation",
		// a0 stays in FAST at 64 and c (a constant) is created over it at 2.
		mods: []func(*workload.Program){reusable("a0")},
		mutate: func(t testing.TB, pl *plan.Plan) {
			drop(pl, "a0", 2)
			placementOf(t, pl, "a0", 0).To = 2
			pl.Transfers = nil
			placementOf(t, pl, "c", 2).Offset = 64
		},
		final: handInitial, // no transfer, a0 read at 2 from FAST: 304
		want:  []string{`rule 4: blocks "a0" and "c" overlap in level FAST at timesteps [2,2], bytes [64,128)`},
	}, {
		name: "reuse by a block that moves in rather than is created",
		// a0 (reusable, ends at 2) stays in FAST at 64; a1 moves onto it at
		// 2, but a1 was created at 1, so it may not take a0's space.
		mods: []func(*workload.Program){reusable("a0")},
		mutate: func(t testing.TB, pl *plan.Plan) {
			drop(pl, "a0", 2)
			placementOf(t, pl, "a0", 0).To = 2
			placementOf(t, pl, "a1", 1).To = 1
			pl.Placements = append(pl.Placements, plan.Placement{Block: "a1", From: 2, To: 3, Level: "FAST", Offset: 64})
			pl.Transfers = []plan.Transfer{{Block: "a1", At: 2, Start: 2, FromLevel: "FAST", FromOffset: 320, ToLevel: "FAST", ToOffset: 64}}
			placementOf(t, pl, "y", 3).Offset = 64
		},
		// a0 reads at 2 from FAST, no a0 transfer: 304; a1 moves inside
		// FAST: out 1+32 + in 1+32 = 66: 370.
		final: 370,
		want:  []string{`rule 4: blocks "a0" and "a1" overlap in level FAST at timesteps [2,2], bytes [64,128)`},
	}, {
		name:   "reuse at another offset",
		mutate: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "y", 3).Offset = 336 },
		want:   []string{`rule 4: blocks "a1" and "y" overlap in level FAST at timesteps [3,3], bytes [336,448)`},
	}, {
		name: "reuse of a block that does not end there",
		mods: []func(*workload.Program){editBlock("a1", func(b *workload.Block) { b.Last, b.Reads = 4, []int{4} })},
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "a1", 1).To = 4
		},
		// a1 is read at 4 instead of 3: same cost.
		want: []string{`rule 4: blocks "a1" and "y" overlap in level FAST at timesteps [3,4], bytes [320,448)`},
	}, {
		name: "larger B over a third block",
		// y (192 B) takes a1's [320,448) and needs [448,512) too, where c
		// sits from 2 to 4.
		mods: []func(*workload.Program){editBlock("y", func(b *workload.Block) { b.Size = 192 })},
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "c", 2).Offset = 448
		},
		// y: 2*(1 + 192/4) = 98 instead of 66: 484 and 336.
		final: 484, initial: 336,
		want: []string{`rule 4: blocks "c" and "y" overlap in level FAST at timesteps [3,4], bytes [448,512)`},
	}, {
		name: "three blocks overlap each other",
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "w", 1).Offset = 256  // [256,384)
			placementOf(t, pl, "s", 1).Offset = 256  // [256,304)
			placementOf(t, pl, "a1", 1).Offset = 256 // [256,384)
			placementOf(t, pl, "y", 3).Offset = 256  // reuses a1: fine
		},
		want: []string{
			`rule 4: blocks "w" and "s" overlap in level FAST at timesteps [1,1], bytes [256,304)`,
			`rule 4: blocks "w" and "a1" overlap in level FAST at timesteps [1,1], bytes [256,384)`,
			`rule 4: blocks "s" and "a1" overlap in level FAST at timesteps [1,1], bytes [256,304)`,
		},
	}})
}

func TestRule5Lines(t *testing.T) {
	runLineCases(t, []lineCase{{
		name: "pinned block in another level",
		mutate: func(t testing.TB, pl *plan.Plan) {
			p := placementOf(t, pl, "p", 2)
			p.Level, p.Offset = "FAST", 1024
		},
		// p in FAST: 2*(1 + 16/4) = 10 instead of 52: 452 - 42 = 410.
		final: 410,
		want:  []string{`rule 5: block "p" is pinned to level SLOW but placed in FAST during timesteps [2,3]`},
	}, {
		name: "pinned block leaves its level",
		mutate: func(t testing.TB, pl *plan.Plan) {
			placementOf(t, pl, "p", 2).To = 2
			pl.Placements = append(pl.Placements, plan.Placement{Block: "p", From: 3, To: 3, Level: "FAST", Offset: 1024})
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "p", At: 3, Start: 3, FromLevel: "SLOW", FromOffset: 64, ToLevel: "FAST", ToOffset: 1024})
		},
		// p reads at 3 from FAST (5, not 26) after a transfer out SLOW
		// 10+16 = 26 + in FAST 1+4 = 5: 452 - 21 + 31 = 462.
		final: 462,
		want:  []string{`rule 5: block "p" is pinned to level SLOW but placed in FAST during timestep 3`},
	}})
}

func TestRule6Lines(t *testing.T) {
	runLineCases(t, []lineCase{{
		name:   "final off by 1e-6 relative",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Cost.Final = handFinal * (1 + 1e-6) },
		want:   []string{`rule 6: cost.final 452.000452 differs from the recomputed cost 452 (seed003 model)`},
	}, {
		name:   "final off by -1e-6 relative",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Cost.Final = handFinal * (1 - 1e-6) },
		want:   []string{`rule 6: cost.final 451.999548 differs from the recomputed cost 452 (seed003 model)`},
	}, {
		name:   "final off by 1e-12 relative",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Cost.Final = handFinal * (1 + 1e-12) },
	}, {
		name:   "final off by -1e-12 relative",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Cost.Final = handFinal * (1 - 1e-12) },
	}, {
		name:   "final zero",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Cost.Final = 0 },
		want:   []string{`rule 6: cost.final 0 differs from the recomputed cost 452 (seed003 model)`},
	}, {
		name:   "initial wrong",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Cost.Initial = 305 },
		want:   []string{`rule 6: cost.initial 305 differs from the cost 304 of the initializer's plan`},
	}, {
		name:   "initial is the final cost",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Cost.Initial = handFinal },
		want:   []string{`rule 6: cost.initial 452 differs from the cost 304 of the initializer's plan`},
	}, {
		name:   "initial off by 1e-12 relative",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.Cost.Initial = handInitial * (1 + 1e-12) },
	}, {
		name:   "default model named",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.CostModel = verify.DefaultModel },
	}, {
		name: "vela-dma model",
		// Under vela-dma a transfer costs max(out FAST 1 + 64/4 = 17,
		// 64 / SLOW in bandwidth 1 = 64) = 64 instead of 91:
		// 452 - 91 + 64 = 425. The initializer's plan has no transfer: 304.
		mutate: func(t testing.TB, pl *plan.Plan) {
			pl.CostModel = "vela-dma"
			pl.Cost.Final = handFinalVela
		},
	}, {
		name:   "vela-dma model with seed003 costs",
		mutate: func(t testing.TB, pl *plan.Plan) { pl.CostModel = "vela-dma" },
		want:   []string{`rule 6: cost.final 452 differs from the recomputed cost 425 (vela-dma model)`},
	}})
}

// TestDefaultMaxViolations: without Options.MaxViolations Check lists
// DefaultMaxViolations and counts the rest.
func TestDefaultMaxViolations(t *testing.T) {
	prog, prof := handProgram(t), fastSlow()
	pl := handPlan()
	const n = verify.DefaultMaxViolations + 200
	for range n {
		pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w", At: 1, Start: 1, FromLevel: "FAST", FromOffset: 128, ToLevel: "SLOW", ToOffset: 128})
	}
	// Every listed transfer of w is priced: 51 each (see rule 2's lines).
	pl.Cost.Final = handFinal + n*51
	rep := check(t, prog, prof, pl, nil)
	assert.Len(t, rep.Violations, verify.DefaultMaxViolations)
	assert.Equal(t, 200, rep.Omitted)
	assert.False(t, rep.Valid())
	for _, v := range rep.Violations {
		require.Equal(t, 2, v.Rule)
	}
	assert.Equal(t, handFinal+n*51, rep.Cost, "the cost counts every transfer, listed or not")
}
