// Package tlgen makes random timeline plans (FORMATS.md section 6) that
// are valid by construction, for tests: verify's, which check that such
// plans pass every rule and that starts moved before their earliest
// feasible one are rejected, and bounds', which check that no plan costs
// less than the timeline lower bound. It knows nothing of hieropt's
// planner: it builds its plans from the rules alone.
package tlgen

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/workload"
)

// Gen is a random timeline plan, valid by construction: a
// random program and profile, a plan of the default model that places
// every block segment by segment where the space is free over the
// segment's timesteps (busy), and then the timeline's additions: each copy
// an earliest feasible start (Earliest) and a random start from it to at,
// and each constant outside its home a load (with a random feasible start)
// or residency (where its range is free over the whole run).
type Gen struct {
	Prog *workload.Program
	Prof *hw.Profile
	Plan *plan.Plan // cost.final is left 0: the caller states it
	// Earliest is, per transfer of Plan, its earliest feasible start when
	// it was chosen (the one before it was infeasible then and stays so).
	Earliest []int

	rng  *rand.Rand
	busy [][][][2]int64 // per level and timestep, the ranges taken
}

// Options shape a random plan.
type Options struct {
	ConstantsHome bool // constants first placed in their home levels
	SeedOnly      bool // no starts before at, no loads (a plan of the default model)
}

// numLevels is the number of levels of a random profile.
const numLevels = 3

// Random returns a random valid plan, a timeline plan unless o.SeedOnly,
// or false where the random blocks did not fit (the caller draws again).
func Random(rng *rand.Rand, o Options) (*Gen, bool) {
	g := &Gen{rng: rng}
	g.Prof = &hw.Profile{Name: "rnd", TimeUnit: hw.Cycle, DMA: hw.DMA{Channels: rng.IntN(4)}}
	if rng.IntN(2) == 0 {
		g.Prof.Compute = &hw.Compute{MACsPerUnit: 0.5 + 8*rng.Float64()}
		if rng.IntN(2) == 0 {
			g.Prof.Compute.OpOverhead = 20 * rng.Float64()
		}
	}
	for l, caps := range []int64{512, 2048, 1 << 16} {
		lk := func() hw.Link { return hw.Link{Latency: 1 + 30*rng.Float64(), Bandwidth: 0.25 + 8*rng.Float64()} }
		g.Prof.Levels = append(g.Prof.Levels, hw.Level{Name: []string{"L0", "L1", "L2"}[l], Capacity: caps,
			Alignment: []int64{16, 32, 64}[l], In: lk(), Out: lk(), ReadOnly: l == 2 && rng.IntN(2) == 0})
	}
	T := 2 + rng.IntN(7)
	g.Prog = &workload.Program{Name: "rnd"}
	for i := range T {
		op := workload.Op{Name: fmt.Sprintf("op%d", i)}
		if rng.IntN(3) > 0 {
			op.MACs = rng.Int64N(2000)
		}
		g.Prog.Ops = append(g.Prog.Ops, op)
	}
	n := 2 + rng.IntN(11)
	for i := range n {
		b := workload.Block{Name: fmt.Sprintf("b%02d", i), Size: 8 * (1 + rng.Int64N(24)), Kind: workload.Kind(rng.IntN(5))}
		if rng.IntN(5) == 0 {
			b.Align = 64
		}
		b.First = rng.IntN(T)
		b.Last = b.First + rng.IntN(T-b.First)
		switch b.Kind {
		case workload.Output:
			b.Last = T - 1
		case workload.Scratch:
			b.Last = b.First
		}
		for t := b.First; t <= b.Last; t++ {
			if b.Kind != workload.Constant && (t == b.First || rng.IntN(3) == 0) {
				b.Writes = append(b.Writes, t)
			}
			if rng.IntN(2) == 0 {
				b.Reads = append(b.Reads, t)
			}
		}
		if rng.IntN(8) == 0 {
			l := rng.IntN(numLevels)
			if b.Kind == workload.Constant || !g.Prof.Levels[l].ReadOnly {
				b.Level = g.Prof.Levels[l].Name
			}
		}
		g.Prog.Blocks = append(g.Prog.Blocks, b)
	}
	g.Plan = &plan.Plan{Workload: "rnd", Hardware: "rnd", TimeUnit: hw.Cycle, Transfers: []plan.Transfer{}}
	g.busy = make([][][][2]int64, numLevels)
	for l := range g.busy {
		g.busy[l] = make([][][2]int64, T)
	}
	for b := range g.Prog.Blocks {
		if !g.placeBlock(b, o) {
			return nil, false
		}
	}
	if !o.SeedOnly {
		g.Plan.CostModel = "timeline"
		g.timeline()
	}
	return g, true
}

// Foot is block b's footprint in level l: its size rounded up to the
// level's alignment or its own, whichever is larger.
func (g *Gen) Foot(b, l int) int64 {
	a := max(g.Prof.Levels[l].Alignment, g.Prog.Blocks[b].Align)
	return (g.Prog.Blocks[b].Size + a - 1) / a * a
}

// Home is block b's home level (FORMATS.md 6.1): its pinned level, else
// the last.
func (g *Gen) Home(b int) int {
	if name := g.Prog.Blocks[b].Level; name != "" {
		return slices.IndexFunc(g.Prof.Levels, func(l hw.Level) bool { return l.Name == name })
	}
	return numLevels - 1
}

// free reports whether [off, off+f) of level l is free over timesteps
// [from, to].
func (g *Gen) free(l int, off, f int64, from, to int) bool {
	for t := from; t <= to; t++ {
		for _, r := range g.busy[l][t] {
			if off < r[1] && r[0] < off+f {
				return false
			}
		}
	}
	return true
}

func (g *Gen) take(l int, off, f int64, from, to int) {
	for t := from; t <= to; t++ {
		g.busy[l][t] = append(g.busy[l][t], [2]int64{off, off + f})
	}
}

// placeBlock splits block b's life into up to three segments and places
// each at a random free range of a random allowed level.
func (g *Gen) placeBlock(b int, o Options) bool {
	blk := &g.Prog.Blocks[b]
	cuts := []int{blk.First}
	for t := blk.First + 1; t <= blk.Last && len(cuts) < 3; t++ {
		if g.rng.IntN(3) == 0 {
			cuts = append(cuts, t)
		}
	}
	prevL, prevOff := -1, int64(-1)
	for i, from := range cuts {
		to := blk.Last
		if i+1 < len(cuts) {
			to = cuts[i+1] - 1
		}
		var levels []int
		for l := range numLevels {
			switch {
			case blk.Level != "" && g.Prof.Levels[l].Name != blk.Level:
			case blk.Kind != workload.Constant && g.Prof.Levels[l].ReadOnly:
			case i == 0 && blk.Kind == workload.Constant && o.ConstantsHome && l != g.Home(b):
			default:
				levels = append(levels, l)
			}
		}
		if len(levels) == 0 {
			return false
		}
		l := levels[g.rng.IntN(len(levels))]
		f, align := g.Foot(b, l), max(g.Prof.Levels[l].Alignment, blk.Align)
		slots := (g.Prof.Levels[l].Capacity - f) / align
		off := int64(-1)
		for try := 0; try < 40 && off < 0; try++ {
			c := align * g.rng.Int64N(slots+1)
			if g.free(l, c, f, from, to) && (l != prevL || c != prevOff) {
				off = c
			}
		}
		if off < 0 {
			return false
		}
		g.take(l, off, f, from, to)
		g.Plan.Placements = append(g.Plan.Placements, plan.Placement{Block: blk.Name, From: from, To: to, Level: g.Prof.Levels[l].Name, Offset: off})
		if i > 0 {
			g.Plan.Transfers = append(g.Plan.Transfers, plan.Transfer{Block: blk.Name, At: from, Start: from,
				FromLevel: g.Prof.Levels[prevL].Name, FromOffset: prevOff, ToLevel: g.Prof.Levels[l].Name, ToOffset: off})
		}
		prevL, prevOff = l, off
	}
	return true
}

// timeline gives the plan its starts, loads and resident constants, in a
// random order of the blocks, each reservation made where the space is
// free then.
func (g *Gen) timeline() {
	T := len(g.Prog.Ops)
	level := func(name string) int {
		return slices.IndexFunc(g.Prof.Levels, func(l hw.Level) bool { return l.Name == name })
	}
	byBlock := map[string][]int{}
	for i, p := range g.Plan.Placements {
		byBlock[p.Block] = append(byBlock[p.Block], i)
	}
	g.Earliest = make([]int, len(g.Plan.Transfers))
	for b, blk := range g.Prog.Blocks {
		ps := byBlock[blk.Name]
		first := g.Plan.Placements[ps[0]]
		l0 := level(first.Level)
		if blk.Kind != workload.Constant || l0 == g.Home(b) {
			continue
		}
		f := g.Foot(b, l0)
		if len(ps) == 1 && g.rng.IntN(2) == 0 && (blk.First == 0 || g.free(l0, first.Offset, f, 0, blk.First-1)) &&
			(blk.Last == T-1 || g.free(l0, first.Offset, f, blk.Last+1, T-1)) {
			if blk.First > 0 {
				g.take(l0, first.Offset, f, 0, blk.First-1)
			}
			if blk.Last < T-1 {
				g.take(l0, first.Offset, f, blk.Last+1, T-1)
			}
			continue // resident
		}
		g.Plan.Transfers = append(g.Plan.Transfers, plan.Transfer{Block: blk.Name, At: blk.First, Start: blk.First,
			FromLevel: g.Prof.Levels[g.Home(b)].Name, ToLevel: first.Level, ToOffset: first.Offset, Load: true})
		g.Earliest = append(g.Earliest, blk.First)
	}
	for _, k := range g.rng.Perm(len(g.Plan.Transfers)) {
		x := &g.Plan.Transfers[k]
		b := slices.IndexFunc(g.Prog.Blocks, func(blk workload.Block) bool { return blk.Name == x.Block })
		blk := &g.Prog.Blocks[b]
		lo := 0 // the bounds of rule 8
		if !x.Load {
			for _, i := range byBlock[blk.Name] {
				if p := g.Plan.Placements[i]; p.To == x.At-1 {
					lo = p.From
				}
			}
			for _, w := range blk.Writes {
				if w < x.At {
					lo = max(lo, w+1)
				}
			}
		}
		l, f := level(x.ToLevel), g.Foot(b, level(x.ToLevel))
		s := x.At
		for s > lo && g.free(l, x.ToOffset, f, s-1, s-1) {
			s--
		}
		g.Earliest[k] = s
		x.Start = s + g.rng.IntN(x.At-s+1)
		if x.Start < x.At {
			g.take(l, x.ToOffset, f, x.Start, x.At-1)
		}
	}
}
