package plan_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// cannotPrice is the rule-6 line that follows any broken tiling.
const cannotPrice = "rule 6: cost.final 452 cannot be checked: the placements do not tile the lifetimes"

func TestValidateInitializerPlan(t *testing.T) {
	p := testProblem(t)
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)

	pl := plan.FromLayout(p, lay)
	assert.Equal(t, "test", pl.Workload)
	assert.Equal(t, "fast-slow", pl.Hardware)
	assert.Equal(t, "cycle", pl.TimeUnit)
	assert.Len(t, pl.Placements, p.Blocks(), "the initializer places every block once")
	assert.NotNil(t, pl.Transfers)
	assert.Empty(t, pl.Transfers)
	cost := costmodel.Total(costmodel.Seed003{}, p, lay)
	// Every block but the pinned p in FAST, nothing moves: handInitial = 304.
	require.Equal(t, handInitial, cost)
	pl.Cost = plan.Cost{Initial: cost, Final: cost}

	res := validate(t, p, pl)
	requireValid(t, res)
	assert.Equal(t, cost, res.Cost)
	assert.Equal(t, cost, res.InitialCost)
	require.NotNil(t, res.Layout)
	assert.True(t, res.Layout.Equal(lay), "the result's layout is the initializer's")
}

func TestValidateHandPlan(t *testing.T) {
	p := testProblem(t)
	res := validate(t, p, handPlan())
	requireValid(t, res)
	// See handFinal: 17 + 199 + 9 + 26 + 66 + 52 + 66 + 17 = 452; every term
	// is an integer, so the sum is exact.
	assert.Equal(t, handFinal, res.Cost)
	assert.Equal(t, handInitial, res.InitialCost)
	require.NotNil(t, res.Layout)
	assert.True(t, res.Layout.Equal(layoutOf(t, p, handPlan())))
	assert.Equal(t, handFinal, costmodel.Total(costmodel.Seed003{}, p, res.Layout), "package costmodel agrees")
}

func TestValidatePlacementOrderDoesNotMatter(t *testing.T) {
	p := testProblem(t)
	pl := handPlan()
	slices.Reverse(pl.Placements)
	res := validate(t, p, pl)
	requireValid(t, res)
	assert.Equal(t, handFinal, res.Cost)
}

func TestFromLayout(t *testing.T) {
	p := testProblem(t)
	got := plan.FromLayout(p, layoutOf(t, p, handPlan()))
	want := handPlan()
	want.Cost = plan.Cost{}
	assert.Equal(t, want, got)

	// Transfers come by time, then block ID; placements by block ID, then
	// time.
	lay := layoutOf(t, p, handPlan())
	lay.MoveAt(7, 3, state.Pos{Level: 1, Offset: 128}) // c, block 7, at 3
	lay.MoveAt(4, 2, state.Pos{Level: 1, Offset: 256}) // a1, block 4, at 2
	got = plan.FromLayout(p, lay)
	var order []string
	for _, x := range got.Transfers {
		order = append(order, x.Block+"@"+string(rune('0'+x.At)))
	}
	assert.Equal(t, []string{"a0@2", "a1@2", "c@3"}, order)
	assert.Equal(t, plan.Placement{Block: "a1", From: 1, To: 1, Level: "FAST", Offset: 320}, got.Placements[5])
	assert.Equal(t, plan.Placement{Block: "a1", From: 2, To: 3, Level: "SLOW", Offset: 256}, got.Placements[6])
	assert.Equal(t, plan.Transfer{Block: "a1", At: 2, FromLevel: "FAST", FromOffset: 320, ToLevel: "SLOW", ToOffset: 256}, got.Transfers[1])
}

// TestValidateReuse covers the exception of rule 4: B created at t at the
// offset of a reusable A that ends at t.
func TestValidateReuse(t *testing.T) {
	// swapSA puts a1 (block 4) before s (block 3), so that the reusing block
	// has the lower ID and the sweep meets it first.
	swapSA := func(prog *workload.Program) { prog.Blocks[3], prog.Blocks[4] = prog.Blocks[4], prog.Blocks[3] }
	tests := []struct {
		name   string
		mods   []func(*workload.Program)
		mutate func(t *testing.T, pl *plan.Plan)
		want   []string
	}{{
		name: "same size in place",
		// x (input, reusable, ends at 0) hands [0,64) to a0 (created at 0).
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a0", 0).Offset = 0
			pl.Transfers[0].FromOffset = 0
		},
	}, {
		name: "larger B over free space",
		// s (48 B at 256) hands its space to a1 (128 B): a1 covers
		// [256,384), of which [304,384) is free at timesteps 1-3.
		mods: []func(*workload.Program){reusable("s")},
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a1", 1).Offset = 256
			place(t, pl, "y", 3).Offset = 256
		},
	}, {
		name: "larger B, reusing block has the lower ID",
		mods: []func(*workload.Program){reusable("s"), swapSA},
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a1", 1).Offset = 256
			place(t, pl, "y", 3).Offset = 256
		},
	}, {
		name: "larger B over a third block",
		mods: []func(*workload.Program){reusable("s")},
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a1", 1).Offset = 256
			place(t, pl, "y", 3).Offset = 256
			place(t, pl, "a0", 0).Offset = 320 // [320,384) at timesteps 0-1
			pl.Transfers[0].FromOffset = 320
		},
		want: []string{`rule 4: blocks "a0" and "a1" overlap in level FAST at timesteps [1,1], bytes [320,384)`},
	}, {
		name: "larger B over a third block, reusing block has the lower ID",
		mods: []func(*workload.Program){reusable("s"), swapSA},
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a1", 1).Offset = 256
			place(t, pl, "y", 3).Offset = 256
			place(t, pl, "a0", 0).Offset = 320
			pl.Transfers[0].FromOffset = 320
		},
		want: []string{`rule 4: blocks "a0" and "a1" overlap in level FAST at timesteps [1,1], bytes [320,384)`},
	}, {
		name: "smaller B leaves A its tail",
		// y (64 B) takes [320,384) of a1's [320,448); a1 keeps [384,448)
		// for timestep 3.
		mods: []func(*workload.Program){block("y", func(b *workload.Block) { b.Size = 64 })},
	}, {
		name: "A moved before it is reused",
		// a1 moves inside FAST at 2 (a move inside a level is a transfer)
		// and y takes its new place at 3.
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a1", 1).To = 1
			pl.Placements = append(pl.Placements, plan.Placement{Block: "a1", From: 2, To: 3, Level: "FAST", Offset: 640})
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "a1", At: 2, FromLevel: "FAST", FromOffset: 320, ToLevel: "FAST", ToOffset: 640})
			place(t, pl, "y", 3).Offset = 640
		},
	}, {
		name: "reused in a SLOW level",
		// a1 moves to SLOW at 2 and y is created over it there.
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a1", 1).To = 1
			pl.Placements = append(pl.Placements, plan.Placement{Block: "a1", From: 2, To: 3, Level: "SLOW", Offset: 128})
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "a1", At: 2, FromLevel: "FAST", FromOffset: 320, ToLevel: "SLOW", ToOffset: 128})
			y := place(t, pl, "y", 3)
			y.Level, y.Offset = "SLOW", 128
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testProblem(t, tt.mods...)
			pl := handPlan()
			if tt.mutate != nil {
				tt.mutate(t, pl)
			}
			res := validate(t, p, priced(t, p, pl))
			assert.Equal(t, tt.want, nilIfEmpty(lines(res)))
			assert.Equal(t, tt.want == nil, res.Valid())
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// ruleCase breaks the hand plan of testProblem(mods...) by mutate and lists
// the violations Validate must report, in order. final, when not zero, is
// the plan's cost.final (else handFinal), initial likewise.
type ruleCase struct {
	name           string
	mods           []func(*workload.Program)
	mutate         func(t *testing.T, pl *plan.Plan)
	final, initial float64
	want           []string
}

func runRuleCases(t *testing.T, tests []ruleCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testProblem(t, tt.mods...)
			pl := handPlan()
			tt.mutate(t, pl)
			if tt.final != 0 {
				pl.Cost.Final = tt.final
			}
			if tt.initial != 0 {
				pl.Cost.Initial = tt.initial
			}
			res := validate(t, p, pl)
			assert.Equal(t, tt.want, nilIfEmpty(lines(res)))
			assert.Equal(t, tt.want == nil, res.Valid())
			if tt.want != nil {
				assert.Nil(t, res.Layout, "an invalid plan has no layout")
			}
		})
	}
}

// drop removes the placements of block name that start at from.
func drop(pl *plan.Plan, name string, from int) {
	pl.Placements = slices.DeleteFunc(pl.Placements, func(pp plan.Placement) bool { return pp.Block == name && pp.From == from })
}

func TestValidateRule1Tiling(t *testing.T) {
	runRuleCases(t, []ruleCase{{
		name:   "missing placement",
		mutate: func(t *testing.T, pl *plan.Plan) { drop(pl, "w", 1) },
		want:   []string{`rule 1: block "w" has no placement (lifetime [1,1])`, cannotPrice},
	}, {
		name:   "gap",
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "a0", 0).To = 0 },
		want:   []string{`rule 1: block "a0": no placement covers timesteps [1,1]`, cannotPrice},
	}, {
		name:   "gap at the end",
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "y", 3).To = 3 },
		want:   []string{`rule 1: block "y": no placement covers timesteps [4,4]`, cannotPrice},
	}, {
		name: "gap at the start",
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a1", 1).From = 2
		},
		want: []string{`rule 1: block "a1": no placement covers timesteps [1,1]`, cannotPrice},
	}, {
		name: "own placements overlap",
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a0", 2).From = 1
			pl.Transfers[0].At = 1
		},
		want: []string{`rule 1: block "a0": placements overlap at timestep 1`, cannotPrice},
	}, {
		name:   "starts before first",
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "a1", 1).From = 0 },
		want:   []string{`rule 1: block "a1": placement [0,3] starts before the lifetime [1,3]`, cannotPrice},
	}, {
		name:   "runs past last",
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "x", 0).To = 1 },
		want:   []string{`rule 1: block "x": placements reach timestep 1, past the lifetime's end 0`, cannotPrice},
	}, {
		name:   "from > to",
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "w", 1).To = 0 },
		want: []string{
			`rule 1: block "w": placement [1,0] is empty (from > to)`,
			`rule 1: block "w": no placement covers timesteps [1,1]`,
			cannotPrice,
		},
	}})
}

func TestValidateRule1NoCost(t *testing.T) {
	p := testProblem(t)
	pl := handPlan()
	drop(pl, "w", 1)
	res := validate(t, p, pl)
	assert.True(t, math.IsNaN(res.Cost), "an untiled plan has no cost")
	assert.Equal(t, handInitial, res.InitialCost, "the initializer's cost does not depend on the plan")
	assert.Nil(t, res.Layout)
}

func TestValidateRule2Transfers(t *testing.T) {
	runRuleCases(t, []ruleCase{{
		name: "consecutive placements at the same place",
		mutate: func(t *testing.T, pl *plan.Plan) {
			a0 := place(t, pl, "a0", 2)
			a0.Level, a0.Offset = "FAST", 64
			pl.Transfers[0].ToLevel, pl.Transfers[0].ToOffset = "FAST", 64
		},
		// a0 now reads at 2 from FAST (17, not 74) and its transfer costs
		// out FAST + in FAST = 17 + 17 = 34 (not 91): 452 - 57 - 57 = 338.
		final: 338,
		want:  []string{`rule 2: block "a0": placements starting at 0 and 2 are at the same place (FAST, offset 64): no move between them`},
	}, {
		name:   "missing transfer",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Transfers = nil },
		// Section 4 sums the listed transfers: 452 - 91 = 361.
		final: 361,
		want:  []string{`rule 2: block "a0": no transfer at timestep 2, where it moves from FAST@64 to SLOW@0`},
	}, {
		name:   "transfer with the wrong to_offset",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Transfers[0].ToOffset = 64 },
		want:   []string{`rule 2: block "a0": transfer at 2 says FAST@64 -> SLOW@64, the placements say FAST@64 -> SLOW@0`},
	}, {
		name:   "transfer with the wrong from_offset",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Transfers[0].FromOffset = 0 },
		want:   []string{`rule 2: block "a0": transfer at 2 says FAST@0 -> SLOW@0, the placements say FAST@64 -> SLOW@0`},
	}, {
		name:   "transfer with the wrong to_level",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Transfers[0].ToLevel = "FAST" },
		// The listed transfer is priced: out FAST 17 + in FAST 17 = 34
		// instead of 91: 452 - 57 = 395.
		final: 395,
		want:  []string{`rule 2: block "a0": transfer at 2 says FAST@64 -> FAST@0, the placements say FAST@64 -> SLOW@0`},
	}, {
		name:   "two transfers at one boundary",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Transfers = append(pl.Transfers, pl.Transfers[0]) },
		// Both are priced: 452 + 91 = 543.
		final: 543,
		want:  []string{`rule 2: block "a0": 2 transfers at timestep 2, want exactly one`},
	}, {
		name: "transfer not at a boundary",
		mutate: func(t *testing.T, pl *plan.Plan) {
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w", At: 1, FromLevel: "FAST", FromOffset: 128, ToLevel: "SLOW", ToOffset: 128})
		},
		// w (32 B): out FAST 1+8 = 9, in SLOW 10+32 = 42: 452 + 51 = 503.
		final: 503,
		want:  []string{`rule 2: block "w": transfer at timestep 1 is not at a boundary between two of its placements`},
	}, {
		name:   "transfer one timestep early",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Transfers[0].At = 1 },
		want: []string{
			`rule 2: block "a0": no transfer at timestep 2, where it moves from FAST@64 to SLOW@0`,
			`rule 2: block "a0": transfer at timestep 1 is not at a boundary between two of its placements`,
		},
	}})
}

func TestValidateRule3Bounds(t *testing.T) {
	runRuleCases(t, []ruleCase{{
		name:   "misaligned for the level",
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "c", 2).Offset = 520 },
		want:   []string{`rule 3: block "c": offset 520 in level FAST is not a multiple of its alignment 16`},
	}, {
		name: "misaligned for the slow level",
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "p", 2).Offset = 160
		},
		want: []string{`rule 3: block "p": offset 160 in level SLOW is not a multiple of its alignment 64`},
	}, {
		name: "misaligned for the block's own align",
		// 704 is a multiple of 16 (FAST) but not of w's 128.
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "w", 1).Offset = 704 },
		want:   []string{`rule 3: block "w": offset 704 in level FAST is not a multiple of its alignment 128`},
	}, {
		name: "past the capacity",
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a1", 1).Offset = 4032
			place(t, pl, "y", 3).Offset = 4032
		},
		want: []string{
			`rule 3: block "a1": [4032,4160) ends past the capacity 4096 of level FAST (footprint 128)`,
			`rule 3: block "y": [4032,4160) ends past the capacity 4096 of level FAST (footprint 128)`,
		},
	}, {
		name: "footprint past the capacity",
		// w is 32 B but its footprint is 128: 4000 + 128 > 4096.
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "w", 1).Offset = 3968 + 32 },
		want: []string{
			`rule 3: block "w": offset 4000 in level FAST is not a multiple of its alignment 128`,
			`rule 3: block "w": [4000,4128) ends past the capacity 4096 of level FAST (footprint 128)`,
		},
	}, {
		name: "ending exactly at the capacity is fine",
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a1", 1).Offset = 3968
			place(t, pl, "y", 3).Offset = 3968
		},
	}, {
		name:   "negative",
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "c", 2).Offset = -64 },
		want:   []string{`rule 3: block "c": offset -64 in level FAST is negative`},
	}, {
		name: "near MaxInt64",
		// 2^63-64 is a multiple of 64: only the end is wrong, and it
		// overflows.
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "c", 2).Offset = math.MaxInt64 - 63 },
		want:   []string{`rule 3: block "c": [9223372036854775744,overflow) ends past the capacity 4096 of level FAST (footprint 64)`},
	}, {
		name:   "MaxInt64",
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "c", 2).Offset = math.MaxInt64 },
		want: []string{
			`rule 3: block "c": offset 9223372036854775807 in level FAST is not a multiple of its alignment 16`,
			`rule 3: block "c": [9223372036854775807,overflow) ends past the capacity 4096 of level FAST (footprint 64)`,
		},
	}, {
		name: "two blocks overlapping near MaxInt64",
		// w [2^63-128, 2^63) overflows; s [2^63-128, 2^63-80) does not.
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "w", 1).Offset = math.MaxInt64 - 127
			place(t, pl, "s", 1).Offset = math.MaxInt64 - 127
		},
		want: []string{
			`rule 3: block "w": [9223372036854775680,overflow) ends past the capacity 4096 of level FAST (footprint 128)`,
			`rule 3: block "s": [9223372036854775680,9223372036854775728) ends past the capacity 4096 of level FAST (footprint 48)`,
			`rule 4: blocks "w" and "s" overlap in level FAST at timesteps [1,1], bytes [9223372036854775680,9223372036854775728)`,
		},
	}})
}

// TestValidateRule3TooLarge places a block in a level smaller than its
// footprint (the profile lets it live only in SLOW).
func TestValidateRule3TooLarge(t *testing.T) {
	p := testProblem(t, block("c", func(b *workload.Block) { b.Size = 5000 }))
	pl := handPlan()
	// c is read at 4 from FAST: 1 + 5000/4 = 1251 instead of 17, so
	// cost.final is 452 - 17 + 1251 = 1686; the initializer puts c in SLOW:
	// 304 - 17 + (10 + 5000) = 5297.
	pl.Cost = plan.Cost{Initial: 5297, Final: 1686}
	res := validate(t, p, pl)
	assert.Equal(t, []string{
		`rule 3: block "c": [512,5520) ends past the capacity 4096 of level FAST (footprint 5008)`,
	}, lines(res))
	assert.Equal(t, 5297.0, res.InitialCost)
}

func TestValidateRule4Overlap(t *testing.T) {
	s2 := func(prog *workload.Program) {
		prog.Blocks = append(prog.Blocks, workload.Block{Name: "s2", Size: 16, Kind: workload.Scratch, First: 1, Last: 1, Writes: []int{1}})
	}
	runRuleCases(t, []ruleCase{{
		name:   "two blocks",
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "s", 1).Offset = 128 },
		want:   []string{`rule 4: blocks "w" and "s" overlap in level FAST at timesteps [1,1], bytes [128,176)`},
	}, {
		name: "two blocks over several timesteps",
		// c [2,4] at 320 sits on a1 at 2-3 and on y at 3-4.
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "c", 2).Offset = 352 },
		want: []string{
			`rule 4: blocks "a1" and "c" overlap in level FAST at timesteps [2,3], bytes [352,416)`,
			`rule 4: blocks "c" and "y" overlap in level FAST at timesteps [3,4], bytes [352,416)`,
		},
	}, {
		name:   "in the slow level",
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "p", 2).Offset = 0 },
		want:   []string{`rule 4: blocks "a0" and "p" overlap in level SLOW at timesteps [2,2], bytes [0,64)`},
	}, {
		name: "partial overlap from below",
		// s at 224: [224,272) overlaps w [128,256) at [224,256).
		mutate: func(t *testing.T, pl *plan.Plan) { place(t, pl, "s", 1).Offset = 224 },
		want:   []string{`rule 4: blocks "w" and "s" overlap in level FAST at timesteps [1,1], bytes [224,256)`},
	}, {
		name: "reuse of a non-reusable block",
		mods: []func(*workload.Program){block("x", func(b *workload.Block) { b.Reusable = false })},
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a0", 0).Offset = 0
			pl.Transfers[0].FromOffset = 0
		},
		want: []string{`rule 4: blocks "x" and "a0" overlap in level FAST at timesteps [0,0], bytes [0,64)`},
	}, {
		name: "kind rule: scratch over scratch",
		mods: []func(*workload.Program){reusable("s"), s2},
		mutate: func(t *testing.T, pl *plan.Plan) {
			pl.Placements = append(pl.Placements, plan.Placement{Block: "s2", From: 1, To: 1, Level: "FAST", Offset: 256})
		},
		// s2 is written at 1 in FAST: 1 + 16/4 = 5 more, 457.
		final: 457, initial: 309,
		want: []string{`rule 4: blocks "s" and "s2" overlap in level FAST at timesteps [1,1], bytes [256,272)`},
	}, {
		name: "kind rule: constant over activation",
		// a0 stays in FAST at 64 and c (a constant) is created over it at 2.
		mods: []func(*workload.Program){reusable("a0")},
		mutate: func(t *testing.T, pl *plan.Plan) {
			drop(pl, "a0", 2)
			place(t, pl, "a0", 0).To = 2
			pl.Transfers = nil
			place(t, pl, "c", 2).Offset = 64
		},
		final: handInitial, // no transfer, a0 read at 2 from FAST: 304
		want:  []string{`rule 4: blocks "a0" and "c" overlap in level FAST at timesteps [2,2], bytes [64,128)`},
	}, {
		name: "reuse by a block that moves in rather than is created",
		// a0 (reusable, ends at 2) stays in FAST at 64; a1 moves onto it at
		// 2, but a1 was created at 1, so it may not take a0's space.
		mods: []func(*workload.Program){reusable("a0")},
		mutate: func(t *testing.T, pl *plan.Plan) {
			drop(pl, "a0", 2)
			place(t, pl, "a0", 0).To = 2
			place(t, pl, "a1", 1).To = 1
			pl.Placements = append(pl.Placements, plan.Placement{Block: "a1", From: 2, To: 3, Level: "FAST", Offset: 64})
			pl.Transfers = []plan.Transfer{{Block: "a1", At: 2, FromLevel: "FAST", FromOffset: 320, ToLevel: "FAST", ToOffset: 64}}
			place(t, pl, "y", 3).Offset = 64
		},
		// a0 reads at 2 from FAST, no a0 transfer: 304; a1 moves inside
		// FAST: out 1+32 + in 1+32 = 66: 370.
		final: 370,
		want:  []string{`rule 4: blocks "a0" and "a1" overlap in level FAST at timesteps [2,2], bytes [64,128)`},
	}, {
		name: "reuse at another offset",
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "y", 3).Offset = 336
		},
		want: []string{`rule 4: blocks "a1" and "y" overlap in level FAST at timesteps [3,3], bytes [336,448)`},
	}, {
		name: "reuse of a block that does not end there",
		mods: []func(*workload.Program){block("a1", func(b *workload.Block) { b.Last, b.Reads = 4, []int{4} })},
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "a1", 1).To = 4
		},
		// a1 is read at 4 instead of 3: same cost.
		want: []string{`rule 4: blocks "a1" and "y" overlap in level FAST at timesteps [3,4], bytes [320,448)`},
	}, {
		name: "larger B over a third block",
		// y (192 B) takes a1's [320,448) and needs [448,512) too, where c
		// sits from 2 to 4.
		mods: []func(*workload.Program){block("y", func(b *workload.Block) { b.Size = 192 })},
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "c", 2).Offset = 448
		},
		// y: 2*(1 + 192/4) = 98 instead of 66: 484 and 336.
		final: 484, initial: 336,
		want: []string{`rule 4: blocks "c" and "y" overlap in level FAST at timesteps [3,4], bytes [448,512)`},
	}, {
		name: "three blocks overlap each other",
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "w", 1).Offset = 256  // [256,384)
			place(t, pl, "s", 1).Offset = 256  // [256,304)
			place(t, pl, "a1", 1).Offset = 256 // [256,384)
			place(t, pl, "y", 3).Offset = 256  // reuses a1: fine
		},
		want: []string{
			`rule 4: blocks "w" and "s" overlap in level FAST at timesteps [1,1], bytes [256,304)`,
			`rule 4: blocks "w" and "a1" overlap in level FAST at timesteps [1,1], bytes [256,384)`,
			`rule 4: blocks "s" and "a1" overlap in level FAST at timesteps [1,1], bytes [256,304)`,
		},
	}})
}

func TestValidateRule5Pin(t *testing.T) {
	runRuleCases(t, []ruleCase{{
		name: "pinned block in another level",
		mutate: func(t *testing.T, pl *plan.Plan) {
			p := place(t, pl, "p", 2)
			p.Level, p.Offset = "FAST", 1024
		},
		// p in FAST: 2*(1 + 16/4) = 10 instead of 52: 452 - 42 = 410.
		final: 410,
		want:  []string{`rule 5: block "p" is pinned to level SLOW but placed in FAST during [2,3]`},
	}, {
		name: "pinned block leaves its level",
		mutate: func(t *testing.T, pl *plan.Plan) {
			place(t, pl, "p", 2).To = 2
			pl.Placements = append(pl.Placements, plan.Placement{Block: "p", From: 3, To: 3, Level: "FAST", Offset: 1024})
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "p", At: 3, FromLevel: "SLOW", FromOffset: 64, ToLevel: "FAST", ToOffset: 1024})
		},
		// p reads at 3 from FAST (5, not 26) after a transfer out SLOW
		// 10+16 = 26 + in FAST 1+4 = 5: 452 - 21 + 31 = 462.
		final: 462,
		want:  []string{`rule 5: block "p" is pinned to level SLOW but placed in FAST during [3,3]`},
	}})
}

func TestValidateRule6Cost(t *testing.T) {
	runRuleCases(t, []ruleCase{{
		name:   "final off by 1e-6 relative",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Cost.Final = handFinal * (1 + 1e-6) },
		want:   []string{`rule 6: cost.final 452.000452 differs from the recomputed cost 452 (seed003 model)`},
	}, {
		name:   "final off by -1e-6 relative",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Cost.Final = handFinal * (1 - 1e-6) },
		want:   []string{`rule 6: cost.final 451.999548 differs from the recomputed cost 452 (seed003 model)`},
	}, {
		name:   "final off by 1e-12 relative",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Cost.Final = handFinal * (1 + 1e-12) },
	}, {
		name:   "final off by -1e-12 relative",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Cost.Final = handFinal * (1 - 1e-12) },
	}, {
		name:   "final zero",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Cost.Final = 0 },
		want:   []string{`rule 6: cost.final 0 differs from the recomputed cost 452 (seed003 model)`},
	}, {
		name:   "initial wrong",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Cost.Initial = 305 },
		want:   []string{`rule 6: cost.initial 305 differs from the cost 304 of the initializer's plan`},
	}, {
		name:   "initial is the final cost",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Cost.Initial = handFinal },
		want:   []string{`rule 6: cost.initial 452 differs from the cost 304 of the initializer's plan`},
	}, {
		name:   "initial off by 1e-12 relative",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.Cost.Initial = handInitial * (1 + 1e-12) },
	}, {
		name:   "default model named",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.CostModel = costmodel.Default },
	}, {
		name: "vela-dma model",
		// Under vela-dma a transfer costs max(out FAST 1 + 64/4 = 17,
		// 64 / SLOW in bandwidth 1 = 64) = 64 instead of 91:
		// 452 - 91 + 64 = 425. The initializer's plan has no transfer: 304.
		mutate: func(t *testing.T, pl *plan.Plan) {
			pl.CostModel = "vela-dma"
			pl.Cost.Final = 425
		},
	}, {
		name:   "vela-dma model with seed003 costs",
		mutate: func(t *testing.T, pl *plan.Plan) { pl.CostModel = "vela-dma" },
		want:   []string{`rule 6: cost.final 452 differs from the recomputed cost 425 (vela-dma model)`},
	}})
}

func TestValidateVelaCost(t *testing.T) {
	p := testProblem(t)
	pl := handPlan()
	pl.CostModel = "vela-dma"
	pl.Cost.Final = 425 // see TestValidateRule6Cost
	res := validate(t, p, pl)
	requireValid(t, res)
	assert.Equal(t, 425.0, res.Cost)
	assert.Equal(t, handInitial, res.InitialCost)
	vela, ok := costmodel.Lookup("vela-dma")
	require.True(t, ok)
	assert.Equal(t, 425.0, costmodel.Total(vela, p, res.Layout))
}

func TestValidateMaxViolations(t *testing.T) {
	p := testProblem(t)
	pl := handPlan()
	const n = plan.MaxViolations + 200
	for range n {
		pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w", At: 1, FromLevel: "FAST", FromOffset: 128, ToLevel: "SLOW", ToOffset: 128})
	}
	// Every listed transfer of w is priced: 51 each (see rule 2's test).
	pl.Cost.Final = handFinal + n*51
	res := validate(t, p, pl)
	assert.Len(t, res.Violations, plan.MaxViolations)
	assert.Equal(t, 200, res.Omitted)
	assert.False(t, res.Valid())
	for _, v := range res.Violations {
		require.Equal(t, 2, v.Rule)
	}
}

func TestValidateInputErrors(t *testing.T) {
	known := strings.Join(costmodel.Names(), ", ")
	tests := []struct {
		name   string
		mutate func(pl *plan.Plan)
		want   string
	}{
		{"another workload", func(pl *plan.Plan) { pl.Workload = "other" },
			`plan "t.json": plan is for workload "other", not "test"`},
		{"another hardware", func(pl *plan.Plan) { pl.Hardware = "other" },
			`plan "t.json": plan is for hardware profile "other", not "fast-slow"`},
		{"time_unit", func(pl *plan.Plan) { pl.TimeUnit = "ns" },
			`plan "t.json": time_unit "ns" does not match the profile's "cycle"`},
		{"unknown block in a placement", func(pl *plan.Plan) {
			pl.Placements = append(pl.Placements, plan.Placement{Block: "zz", From: 0, To: 0, Level: "FAST", Offset: 0})
		}, `plan "t.json": placements[9]: block "zz" is not in workload "test"`},
		{"unknown block in a transfer", func(pl *plan.Plan) { pl.Transfers[0].Block = "zz" },
			`plan "t.json": transfers[0]: block "zz" is not in workload "test"`},
		{"unknown level in a placement", func(pl *plan.Plan) { pl.Placements[3].Level = "L3" },
			`plan "t.json": placements[3]: level "L3" is not in hardware profile "fast-slow"`},
		{"unknown from_level in a transfer", func(pl *plan.Plan) { pl.Transfers[0].FromLevel = "L3" },
			`plan "t.json": transfers[0]: level "L3" is not in hardware profile "fast-slow"`},
		{"unknown to_level in a transfer", func(pl *plan.Plan) { pl.Transfers[0].ToLevel = "" },
			`plan "t.json": transfers[0]: level "" is not in hardware profile "fast-slow"`},
		{"unknown cost_model", func(pl *plan.Plan) { pl.CostModel = "nope" },
			`plan "t.json": cost_model "nope" is not known (known: ` + known + `)`},
	}
	p := testProblem(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := handPlan()
			tt.mutate(pl)
			res, err := plan.Validate(p, pl, plan.DocName("t.json"))
			require.Error(t, err)
			assert.Nil(t, res)
			assert.True(t, inputerr.Is(err), "%T is an input error", err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}
