package costmodel

import (
	"fmt"
	"slices"

	"github.com/hieropt/hieropt/costmodel/timeline"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Timeline is the timeline model of FORMATS.md section 6: op t computes
// for c(t) (op_overhead + macs/macs_per_unit, 0 without a compute
// section) and accesses its blocks for m(t) (section 4's reads and writes
// at their levels at t), and lasts d(t) = max(c(t), m(t)); every transfer
// and load is a copy of x = out(from) + in(to) (a load reads the home
// level) issued at its start on the least busy of dma.channels channels,
// and op at waits for it. The cost is the time the last op ends (package
// costmodel/timeline simulates it). Bind the problem with
// state.Semantics{Timeline: true}: segments then carry the copies' starts
// (state.Seg.Lead), and a constant outside its home level is loaded or
// resident.
//
// Its BlockCost and Charges are a block's work, its accesses and copies
// priced as section 4 prices them (a load as a copy from the home level):
// what the timeline overlaps, not a share of the cost.
type Timeline struct{}

var _ Model = Timeline{}

// Name implements Model.
func (Timeline) Name() string { return "timeline" }

// Doc implements Model.
func (Timeline) Doc() string {
	return "FORMATS.md section 6: ops on one compute unit, each max(compute, its accesses), copies and loads on dma.channels channels from their start; the cost is when the last op ends"
}

// Timeline implements Model.
func (Timeline) Timeline() bool { return true }

// BlockCost implements Model: block b's work (see Timeline).
func (Timeline) BlockCost(p *state.Problem, b int, segs []state.Seg) float64 {
	c := accessCost(p, b, segs) + transfersCost(p, b, segs, seed003Transfer)
	if home, ok := loaded(p, b, segs); ok {
		c += seed003Transfer(&p.HW.Levels[home], &p.HW.Levels[segs[0].Level], p.Block(b).Size)
	}
	return c
}

// Charges implements Model: block b's load first, if it has one (charged
// out of its home level and into its first level at its first timestep),
// then its accesses and transfers as seed003 charges them.
func (Timeline) Charges(p *state.Problem, b int, segs []state.Seg, emit func(Charge)) {
	if home, ok := loaded(p, b, segs); ok {
		d := p.Block(b).Size
		to := &p.HW.Levels[segs[0].Level]
		emit(Charge{Timestep: int(segs[0].From), Level: home, Kind: TransferOut, Bytes: d, Time: p.HW.Levels[home].Out.Time(d)})
		emit(Charge{Timestep: int(segs[0].From), Level: int(segs[0].Level), Kind: TransferIn, Bytes: d, Time: to.In.Time(d)})
	}
	Seed003{}.Charges(p, b, segs, emit)
}

// loaded reports whether block b, placed by segs, has a load under p's
// semantics (FORMATS.md 6.2: a constant whose first segment is outside
// its home level and not resident), and from which level.
func loaded(p *state.Problem, b int, segs []state.Seg) (home int, ok bool) {
	if !p.Timeline() || len(segs) == 0 || p.Block(b).Kind != workload.Constant {
		return 0, false
	}
	home = p.Home(b)
	return home, int(segs[0].Level) != home && !segs[0].IsResident()
}

// computeTime is c(t) of FORMATS.md 6.3 as settled in 6.4.
func computeTime(prof *hw.Profile, t int, ops []workload.Op) float64 {
	cu := prof.Compute
	if cu == nil {
		return 0
	}
	return cu.OpOverhead + float64(ops[t].MACs)/cu.MACsPerUnit
}

// copiesOf appends the copies of block b placed by segs (its transfers,
// and its load) to cs, in segment order.
func copiesOf(cs []timeline.Copy, p *state.Problem, b int, segs []state.Seg) []timeline.Copy {
	levels := p.HW.Levels
	d := p.Block(b).Size
	rank := int64(p.Rank(b))
	if home, ok := loaded(p, b, segs); ok {
		cs = append(cs, timeline.Copy{Start: int(segs[0].Start()), At: int(segs[0].From), Rank: rank,
			Time: seed003Transfer(&levels[home], &levels[segs[0].Level], d)})
	}
	for i := 1; i < len(segs); i++ {
		cs = append(cs, timeline.Copy{Start: int(segs[i].Start()), At: int(segs[i].From), Rank: rank,
			Time: seed003Transfer(&levels[segs[i-1].Level], &levels[segs[i].Level], d)})
	}
	return cs
}

// program builds the timeline program of layout v (see Timeline); where
// copyOf is not nil, it records for each copy its block.
func program(p *state.Problem, v state.View, copyOf *[]int) *timeline.Program {
	n := p.Prog.Timesteps()
	levels := p.HW.Levels
	prog := &timeline.Program{Compute: make([]float64, n), Memory: make([]float64, n), Channels: p.HW.Channels()}
	for t := range n {
		prog.Compute[t] = computeTime(p.HW, t, p.Prog.Ops)
	}
	// m(t): blocks in ID order, a block's read before its write at t, as
	// memoryAt adds them.
	mem := prog.Memory
	for b := range p.Blocks() {
		segs := v.BlockSegs(b)
		blk := p.Block(b)
		ri, wi, i := 0, 0, 0
		for ri < len(blk.Reads) || wi < len(blk.Writes) {
			var t int
			if wi >= len(blk.Writes) || ri < len(blk.Reads) && blk.Reads[ri] <= blk.Writes[wi] {
				t = blk.Reads[ri]
			} else {
				t = blk.Writes[wi]
			}
			for i+1 < len(segs) && int(segs[i+1].From) <= t {
				i++
			}
			lv := &levels[segs[i].Level]
			if ri < len(blk.Reads) && blk.Reads[ri] == t {
				mem[t] += lv.Out.Time(blk.Size)
				ri++
			}
			if wi < len(blk.Writes) && blk.Writes[wi] == t {
				mem[t] += lv.In.Time(blk.Size)
				wi++
			}
		}
		k := len(prog.Copies)
		prog.Copies = copiesOf(prog.Copies, p, b, segs)
		if copyOf != nil {
			for range len(prog.Copies) - k {
				*copyOf = append(*copyOf, b)
			}
		}
	}
	return prog
}

// Price implements Model: the program of v simulated once, with the
// checkpoints that re-price changes (timeline.NewBase).
func (Timeline) Price(p *state.Problem, v state.View) Pricer {
	prog := program(p, v, nil)
	prog.SortCopies()
	base, err := timeline.NewBase(prog)
	if err != nil {
		// A complete layout gives a valid program: times >= 0, copies
		// within their ops, one copy per block and timestep.
		panic(fmt.Sprintf("costmodel: timeline program of a layout: %v", err))
	}
	return &timelinePricer{p: p, v: v, base: base}
}

// timelinePricer is the timeline model's Pricer: a timeline.Base of the
// layout's program, and the layout (for the ops a change retimes).
type timelinePricer struct {
	p    *state.Problem
	v    state.View
	base *timeline.Base
}

func (tp *timelinePricer) Cost() float64     { return tp.base.Cost() }
func (tp *timelinePricer) Dur(t int) float64 { return tp.base.Dur(t) }

func (tp *timelinePricer) Reprice(ch []BlockChange, sc *Scratch) float64 {
	if sc == nil {
		sc = new(Scratch)
	}
	return tp.base.Reprice(tp.change(ch, sc), &sc.tl)
}

func (tp *timelinePricer) Derive(v state.View, ch []BlockChange) Pricer {
	var sc Scratch
	nb, err := tp.base.Derive(tp.change(ch, &sc))
	if err != nil {
		panic(fmt.Sprintf("costmodel: timeline change: %v", err))
	}
	return &timelinePricer{p: tp.p, v: v, base: nb}
}

// change writes ch as a change of the base's program into sc: the ops
// whose blocks a changed block's accesses moved to another level, with
// m(t) summed again, and the copies that differ.
func (tp *timelinePricer) change(ch []BlockChange, sc *Scratch) *timeline.Change {
	p := tp.p
	sc.ts = sc.ts[:0]
	for _, c := range ch {
		sc.ts = movedAccesses(sc.ts, p.Block(c.Block), c.Old, c.New)
	}
	slices.Sort(sc.ts)
	sc.ts = slices.Compact(sc.ts)
	segs := func(b int) []state.Seg {
		for i := range ch {
			if ch[i].Block == b {
				return ch[i].New
			}
		}
		return tp.v.BlockSegs(b)
	}
	x := &sc.change
	x.Ops, x.Removed, x.Added = x.Ops[:0], x.Removed[:0], x.Added[:0]
	for _, t := range sc.ts {
		x.Ops = append(x.Ops, timeline.OpChange{T: t, Compute: computeTime(p.HW, t, p.Prog.Ops), Memory: memoryAt(p, t, segs)})
	}
	for _, c := range ch {
		sc.olds = copiesOf(sc.olds[:0], p, c.Block, c.Old)
		sc.news = copiesOf(sc.news[:0], p, c.Block, c.New)
		for _, o := range sc.olds {
			if !slices.Contains(sc.news, o) {
				x.Removed = append(x.Removed, o.Key())
			}
		}
		for _, n := range sc.news {
			if !slices.Contains(sc.olds, n) {
				x.Added = append(x.Added, n)
			}
		}
	}
	return x
}

// movedAccesses appends the timesteps at which blk is read or written in
// another level under segs b than under segs a.
func movedAccesses(ts []int, blk *workload.Block, a, b []state.Seg) []int {
	if len(a) == 0 || len(b) == 0 {
		ts = append(ts, blk.Reads...)
		return append(ts, blk.Writes...)
	}
	for _, steps := range [2][]int{blk.Reads, blk.Writes} {
		i, j := 0, 0
		for _, t := range steps {
			for i+1 < len(a) && int(a[i+1].From) <= t {
				i++
			}
			for j+1 < len(b) && int(b[j+1].From) <= t {
				j++
			}
			if a[i].Level != b[j].Level {
				ts = append(ts, t)
			}
		}
	}
	return ts
}
