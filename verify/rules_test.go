package verify_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

func TestHandPlanIsValid(t *testing.T) {
	prog, prof := handProgram(t), fastSlow()
	rep := check(t, prog, prof, handPlan(), nil)
	requireValid(t, rep)
	assert.Equal(t, handFinal, rep.Cost)
	assert.True(t, math.IsNaN(rep.InitialCost), "no Options.Initial: cost.initial is not checked")
	assert.Equal(t, "seed003", rep.Model)

	vela := handPlan()
	vela.CostModel = "vela-dma"
	vela.Cost.Final = handFinalVela
	rep = check(t, prog, prof, vela, nil)
	requireValid(t, rep)
	assert.Equal(t, handFinalVela, rep.Cost)
	assert.Equal(t, "vela-dma", rep.Model)
}

// mutation is a plan of handProgram broken in one way.
type mutation struct {
	name  string
	prog  []func(*workload.Program)
	prof  []func(*hw.Profile)
	edit  func(t testing.TB, pl *plan.Plan)
	rules []int  // exactly the rules broken (nil: the plan stays valid)
	block string // a violation of rules[0] is about this block
}

// editBlock returns a program mod that edits block name.
func editBlock(name string, edit func(*workload.Block)) func(*workload.Program) {
	return func(prog *workload.Program) {
		for i := range prog.Blocks {
			if prog.Blocks[i].Name == name {
				edit(&prog.Blocks[i])
				return
			}
		}
		panic("no block " + name)
	}
}

// at moves the placement of block name covering timestep ts to off.
func at(name string, ts int, off int64) func(testing.TB, *plan.Plan) {
	return func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, name, ts).Offset = off }
}

func capacity(level string, c int64) func(*hw.Profile) {
	return func(prof *hw.Profile) {
		for i := range prof.Levels {
			if prof.Levels[i].Name == level {
				prof.Levels[i].Capacity = c
			}
		}
	}
}

func scaleFinal(f float64) func(testing.TB, *plan.Plan) {
	return func(_ testing.TB, pl *plan.Plan) { pl.Cost.Final *= f }
}

var mutations = []mutation{
	// Rule 1: placements tile the lifetime.
	{name: "block without placement", rules: []int{1, 6}, block: "x",
		edit: func(t testing.TB, pl *plan.Plan) { pl.Placements = pl.Placements[1:] }},
	{name: "gap inside the lifetime", rules: []int{1, 6}, block: "a0",
		edit: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "a0", 0).To = 0 }},
	{name: "placement before first", rules: []int{1, 6}, block: "c",
		edit: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "c", 2).From = 1 }},
	{name: "placement past last", rules: []int{1, 6}, block: "y",
		edit: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "y", 3).To = 5 }},
	{name: "placements of a block overlap", rules: []int{1, 6}, block: "a0",
		edit: func(t testing.TB, pl *plan.Plan) { placementOf(t, pl, "a0", 0).To = 2 }},
	{name: "empty placement", rules: []int{1, 2, 6}, block: "c",
		edit: func(t testing.TB, pl *plan.Plan) {
			pl.Placements = append(pl.Placements, plan.Placement{Block: "c", From: 3, To: 2, Level: "FAST", Offset: 512})
		}},

	// Rule 2: transfers exactly at the boundaries.
	{name: "transfer missing", rules: []int{2, 6}, block: "a0",
		edit: func(t testing.TB, pl *plan.Plan) { pl.Transfers = nil }},
	{name: "transfer extra", rules: []int{2, 6}, block: "x",
		edit: func(t testing.TB, pl *plan.Plan) {
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "x", At: 0, Start: 0, FromLevel: "FAST", ToLevel: "FAST"})
		}},
	{name: "transfer to_offset mismatched", rules: []int{2}, block: "a0",
		edit: func(t testing.TB, pl *plan.Plan) { pl.Transfers[0].ToOffset = 64 }},
	{name: "transfer from_level mismatched", rules: []int{2, 6}, block: "a0",
		edit: func(t testing.TB, pl *plan.Plan) { pl.Transfers[0].FromLevel = "SLOW" }},
	{name: "transfer at another timestep", rules: []int{2}, block: "a0",
		edit: func(t testing.TB, pl *plan.Plan) { pl.Transfers[0].At, pl.Transfers[0].Start = 1, 1 }},
	{name: "two transfers at one boundary", rules: []int{2, 6}, block: "a0",
		edit: func(t testing.TB, pl *plan.Plan) { pl.Transfers = append(pl.Transfers, pl.Transfers[0]) }},
	{name: "consecutive placements at the same place", rules: []int{2, 6}, block: "a0",
		edit: func(t testing.TB, pl *plan.Plan) {
			*placementOf(t, pl, "a0", 2) = plan.Placement{Block: "a0", From: 2, To: 2, Level: "FAST", Offset: 64}
			pl.Transfers[0].ToLevel, pl.Transfers[0].ToOffset = "FAST", 64
		}},

	// Rule 3: aligned offsets inside the level.
	{name: "negative offset", rules: []int{3}, block: "c", edit: at("c", 2, -64)},
	{name: "offset not a multiple of the level's alignment", rules: []int{3}, block: "c", edit: at("c", 2, 520)},
	{name: "offset a multiple of the level's alignment, not of the block's align", rules: []int{3}, block: "w",
		edit: at("w", 1, 1040)}, // 65*16, not a multiple of 128
	{name: "footprint ends at the capacity", edit: at("c", 2, 4096-64)},
	{name: "footprint ends one byte past the capacity", prof: []func(*hw.Profile){capacity("FAST", 4095)},
		rules: []int{3}, block: "c", edit: at("c", 2, 4096-64)},
	{name: "rounded footprint ends at the capacity", edit: at("w", 1, 4096-128)}, // size ends at 4000
	{name: "size fits, rounded footprint one byte past the capacity", prof: []func(*hw.Profile){capacity("FAST", 4095)},
		rules: []int{3}, block: "w", edit: at("w", 1, 4096-128)},
	{name: "offset plus footprint overflows", rules: []int{3}, block: "p", edit: at("p", 2, math.MaxInt64-63)},
	{name: "footprint overflows", rules: []int{3}, block: "big",
		prof: []func(*hw.Profile){func(prof *hw.Profile) {
			prof.Levels = append(prof.Levels, hw.Level{Name: "HUGE", Capacity: math.MaxInt64, Alignment: 64,
				In: hw.Link{Latency: 1, Bandwidth: 1}, Out: hw.Link{Latency: 1, Bandwidth: 1}})
		}},
		prog: []func(*workload.Program){func(prog *workload.Program) {
			// No reads: it costs nothing, wherever it is.
			prog.Blocks = append(prog.Blocks, workload.Block{Name: "big", Size: math.MaxInt64 - 10, Kind: workload.Constant, First: 0, Last: 0})
		}},
		edit: func(t testing.TB, pl *plan.Plan) {
			pl.Placements = append(pl.Placements, plan.Placement{Block: "big", From: 0, To: 0, Level: "HUGE", Offset: 0})
		}},

	// Rule 4: no shared addresses but by reuse.
	{name: "two blocks at one address", rules: []int{4}, block: "c", edit: at("c", 2, 320)},
	// In the hand plan s sits at 256, where w's rounded footprint ends.
	{name: "sizes touch, rounded footprints overlap", rules: []int{4}, block: "s",
		edit: at("s", 1, 160)}, // w is [128,160) by size, [128,256) by footprint
	{name: "reuse at another offset", rules: []int{4}, block: "y", edit: at("y", 3, 336)},
	{name: "reuse of a block that is not reusable", rules: []int{4}, block: "y",
		prog: []func(*workload.Program){editBlock("a1", func(b *workload.Block) { b.Reusable = false })}},
	{name: "reuse by a block that did not start then", rules: []int{4}, block: "y",
		prog: []func(*workload.Program){editBlock("y", func(b *workload.Block) { b.First, b.Writes = 2, []int{2} })},
		edit: func(t testing.TB, pl *plan.Plan) {
			// y lives [2,4]: in SLOW at 2, then over a1 from 3 (a1 still ends at 3).
			placementOf(t, pl, "y", 3).From = 3
			pl.Placements = append(pl.Placements, plan.Placement{Block: "y", From: 2, To: 2, Level: "SLOW", Offset: 1024})
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "y", At: 3, Start: 3, FromLevel: "SLOW", FromOffset: 1024, ToLevel: "FAST", ToOffset: 320})
			// write@2 in SLOW (10+128) replaces write@3 in FAST (1+32);
			// the transfer adds 10+128 + 1+32.
			pl.Cost.Final += (10 + 128) - (1 + 32) + (10 + 128) + (1 + 32)
		}},

	// Rule 5: pins.
	{name: "pinned block moved", rules: []int{5, 6}, block: "p",
		edit: func(t testing.TB, pl *plan.Plan) {
			*placementOf(t, pl, "p", 2) = plan.Placement{Block: "p", From: 2, To: 3, Level: "FAST", Offset: 1024}
		}},

	// Rule 6: the cost.
	{name: "cost.final off by 1e-8 relative", rules: []int{6}, edit: scaleFinal(1 + 1e-8)},
	{name: "cost.final off by -1e-8 relative", rules: []int{6}, edit: scaleFinal(1 - 1e-8)},
	{name: "cost.final off by 1e-10 relative", edit: scaleFinal(1 + 1e-10)},
	{name: "cost.final NaN", rules: []int{6}, edit: func(_ testing.TB, pl *plan.Plan) { pl.Cost.Final = math.NaN() }},
	{name: "cost.final under another model", rules: []int{6},
		edit: func(_ testing.TB, pl *plan.Plan) { pl.CostModel = "vela-dma" }},
	{name: "cost.final of another model", rules: []int{6},
		edit: func(_ testing.TB, pl *plan.Plan) { pl.Cost.Final = handFinalVela }},
}

// TestMutations breaks the hand plan one way at a time: each is rejected
// with exactly the rules it breaks, and a violation of the first one names
// the block.
func TestMutations(t *testing.T) {
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			prog, prof := handProgram(t, m.prog...), fastSlow(m.prof...)
			pl := handPlan()
			if m.edit != nil {
				m.edit(t, pl)
			}
			rep := check(t, prog, prof, pl, nil)
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

// TestViolationLines checks what a violation says and its fields.
func TestViolationLines(t *testing.T) {
	prog, prof := handProgram(t), fastSlow()
	pl := handPlan()
	at("s", 1, 160)(t, pl)
	rep := check(t, prog, prof, pl, nil)
	require.Len(t, rep.Violations, 1)
	v := rep.Violations[0]
	assert.Equal(t, verify.Violation{Rule: 4, Block: "s", Timesteps: [2]int{1, 1},
		Message: `blocks "w" and "s" overlap in level FAST at timesteps [1,1], bytes [160,208)`}, v)
	assert.Equal(t, `rule 4: blocks "w" and "s" overlap in level FAST at timesteps [1,1], bytes [160,208)`, v.String())

	pl = handPlan()
	pl.Placements[0].Offset = 8 // x at 8: not a multiple of 16, and over a0 from 64 on
	rep = check(t, prog, prof, pl, nil)
	assert.Equal(t, []string{
		`rule 3: block "x": offset 8 in level FAST during timestep 0 is not a multiple of its alignment 16`,
		`rule 4: blocks "x" and "a0" overlap in level FAST at timesteps [0,0], bytes [64,72)`,
	}, lines(rep))
}

// TestInitialCost checks cost.initial against Options.Initial.
func TestInitialCost(t *testing.T) {
	prog, prof := handProgram(t), fastSlow()
	initial := func(v float64, err error) *verify.Options {
		return &verify.Options{Initial: func() (float64, string, error) { return v, "", err }}
	}
	rep := check(t, prog, prof, handPlan(), initial(handInitial, nil))
	requireValid(t, rep)
	assert.Equal(t, handInitial, rep.InitialCost)

	rep = check(t, prog, prof, handPlan(), initial(handInitial*(1+1e-10), nil))
	requireValid(t, rep)

	rep = check(t, prog, prof, handPlan(), initial(handInitial*(1+1e-8), nil))
	assert.Equal(t, []int{6}, ruleSet(rep))
	assert.Equal(t, []string{"rule 6: cost.initial 304 differs from the cost 304.00000304 of the initializer's plan"}, lines(rep))

	// The caller names the plan it priced.
	rep = check(t, prog, prof, handPlan(), &verify.Options{Initial: func() (float64, string, error) {
		return 305, "the fallback plan (the initializer cannot place block \"y\" at timestep 3)", nil
	}})
	assert.Equal(t, []string{`rule 6: cost.initial 304 differs from the cost 305 of the fallback plan (the initializer cannot place block "y" at timestep 3)`}, lines(rep))

	rep = check(t, prog, prof, handPlan(), initial(0, errors.New("no plan fits")))
	assert.Equal(t, []string{"rule 6: cost.initial 304 cannot be checked: no plan fits"}, lines(rep))
	assert.True(t, math.IsNaN(rep.InitialCost))

	// Without Options.Initial a wrong cost.initial goes unnoticed.
	pl := handPlan()
	pl.Cost.Initial = 1
	requireValid(t, check(t, prog, prof, pl, nil))
}

// TestMaxViolations caps the list and counts the rest.
func TestMaxViolations(t *testing.T) {
	prog, prof := handProgram(t), fastSlow()
	broken := handPlan()
	for i := range broken.Placements {
		broken.Placements[i].Offset += 8 // every offset misaligned: 9 rule-3 violations, and more
	}
	all := check(t, prog, prof, broken, nil)
	n := len(all.Violations)
	require.Greater(t, n, 9)
	require.Zero(t, all.Omitted)

	capped := check(t, prog, prof, broken, &verify.Options{MaxViolations: 4})
	assert.Equal(t, all.Violations[:4], capped.Violations)
	assert.Equal(t, n-4, capped.Omitted)
	assert.False(t, capped.Valid())
}

// TestInputErrors: a plan that cannot be read against the workload and
// profile at all is an *inputerr.Error naming the document, the item and
// what is wrong.
func TestInputErrors(t *testing.T) {
	cases := []struct {
		name string
		prog []func(*workload.Program)
		prof []func(*hw.Profile)
		edit func(*plan.Plan)
		want string
	}{
		{name: "other workload", edit: func(pl *plan.Plan) { pl.Workload = "other" },
			want: `plan "p.json": plan is for workload "other", not "hand"`},
		{name: "other profile", edit: func(pl *plan.Plan) { pl.Hardware = "other" },
			want: `plan "p.json": plan is for hardware profile "other", not "fast-slow"`},
		{name: "other time unit", edit: func(pl *plan.Plan) { pl.TimeUnit = "ns" },
			want: `plan "p.json": time_unit "ns" does not match the profile's "cycle"`},
		{name: "unknown cost model", edit: func(pl *plan.Plan) { pl.CostModel = "magic" },
			want: `plan "p.json": cost_model "magic" is not known (known: seed003, timeline, vela-dma)`},
		{name: "unknown block", edit: func(pl *plan.Plan) { pl.Placements[2].Block = "nope" },
			want: `plan "p.json": placements[2]: block "nope" is not in workload "hand"`},
		{name: "unknown level", edit: func(pl *plan.Plan) { pl.Placements[3].Level = "L9" },
			want: `plan "p.json": placements[3]: level "L9" is not in hardware profile "fast-slow"`},
		{name: "transfer of an unknown block", edit: func(pl *plan.Plan) { pl.Transfers[0].Block = "nope" },
			want: `plan "p.json": transfers[0]: block "nope" is not in workload "hand"`},
		{name: "transfer to an unknown level", edit: func(pl *plan.Plan) { pl.Transfers[0].ToLevel = "L9" },
			want: `plan "p.json": transfers[0]: level "L9" is not in hardware profile "fast-slow"`},
		{name: "transfer from an unknown level", edit: func(pl *plan.Plan) { pl.Transfers[0].FromLevel = "" },
			want: `plan "p.json": transfers[0]: level "" is not in hardware profile "fast-slow"`},
		{name: "workload: two blocks of one name",
			prog: []func(*workload.Program){editBlock("c", func(b *workload.Block) { b.Name = "w" })},
			want: `workload "hand": block "w": block name also used by block 2`},
		{name: "workload: lifetime past the program",
			prog: []func(*workload.Program){editBlock("c", func(b *workload.Block) { b.Last = 5 })},
			want: `workload "hand": block "c": lifetime [2,5]: want 0 <= first <= last < 5 (the number of ops)`},
		{name: "workload: read outside the lifetime",
			prog: []func(*workload.Program){editBlock("c", func(b *workload.Block) { b.Reads = []int{1} })},
			want: `workload "hand": block "c": reads [1] outside lifetime [2,4]`},
		{name: "workload: size 0",
			prog: []func(*workload.Program){editBlock("c", func(b *workload.Block) { b.Size = 0 })},
			want: `workload "hand": block "c": size 0: must be > 0 bytes`},
		{name: "workload: unknown kind",
			prog: []func(*workload.Program){editBlock("c", func(b *workload.Block) { b.Kind = 7 })},
			want: `workload "hand": block "c": unknown kind 7`},
		{name: "workload: pinned to a level the profile lacks",
			prog: []func(*workload.Program){editBlock("c", func(b *workload.Block) { b.Level = "L9" })},
			want: `workload "hand": block "c": pinned to level "L9", which hardware profile "fast-slow" does not have`},
		{name: "profile: two levels of one name",
			prof: []func(*hw.Profile){func(p *hw.Profile) { p.Levels[1].Name = "FAST" }},
			want: `hardware profile "fast-slow": level 1 "FAST": level name also used by level 0`},
		{name: "profile: alignment 0",
			prof: []func(*hw.Profile){func(p *hw.Profile) { p.Levels[0].Alignment = 0 }},
			want: `hardware profile "fast-slow": level 0 "FAST": alignment 0: must be > 0 bytes`},
		{name: "profile: infinite bandwidth",
			prof: []func(*hw.Profile){func(p *hw.Profile) { p.Levels[1].Out.Bandwidth = math.Inf(1) }},
			want: `hardware profile "fast-slow": level 1 "SLOW": out.bandwidth +Inf: must be a finite number > 0`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prog := handProgram(t)
			for _, m := range tc.prog {
				m(prog) // after handProgram's workload.Validate: verify must catch it itself
			}
			prof := fastSlow(tc.prof...)
			pl := handPlan()
			if tc.edit != nil {
				tc.edit(pl)
			}
			rep, err := verify.Check(prog, prof, pl, &verify.Options{Doc: plan.DocName("p.json")})
			require.Error(t, err)
			assert.Nil(t, rep)
			assert.True(t, inputerr.Is(err), "%T is not an input error", err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}
