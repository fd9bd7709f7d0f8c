package state

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/workload"
)

// Plan writes a complete layout as a plan document (FORMATS.md section
// 3): placements by block ID and then time, transfers by time and then
// block ID. The caller fills in the costs, the cost model and the planner.
// Under the timeline model (Problem.Timeline) a transfer's start is its
// segment's Start, and a constant whose first segment is outside its home
// level has a load (at its first timestep, from its home, issued at the
// segment's Start) unless it is resident (FORMATS.md 6.2).
func (l *Layout) Plan(p *Problem) *plan.Plan {
	pl := &plan.Plan{
		Workload: p.Prog.Name,
		Hardware: p.HW.Name,
		TimeUnit: p.HW.TimeUnit,
	}
	levels := p.HW.Levels
	n := 0
	for _, segs := range l.Segs {
		n += len(segs)
	}
	pl.Placements = make([]plan.Placement, 0, n)
	type transfer struct {
		b int
		x plan.Transfer
	}
	var xs []transfer
	for b, segs := range l.Segs {
		blk := p.Block(b)
		for i, s := range segs {
			to := blk.Last
			if i+1 < len(segs) {
				to = int(segs[i+1].From) - 1
			}
			pl.Placements = append(pl.Placements, plan.Placement{
				Block: blk.Name, From: int(s.From), To: to,
				Level: levels[s.Level].Name, Offset: s.Offset,
			})
			if i > 0 {
				prev := segs[i-1]
				xs = append(xs, transfer{b, plan.Transfer{
					Block: blk.Name, At: int(s.From), Start: int(s.Start()),
					FromLevel: levels[prev.Level].Name, FromOffset: prev.Offset,
					ToLevel: levels[s.Level].Name, ToOffset: s.Offset,
				}})
			} else if p.timeline && blk.Kind == workload.Constant && int(s.Level) != p.Home(b) && !s.IsResident() {
				xs = append(xs, transfer{b, plan.Transfer{
					Block: blk.Name, At: int(s.From), Start: int(s.Start()),
					FromLevel: levels[p.Home(b)].Name, Load: true,
					ToLevel: levels[s.Level].Name, ToOffset: s.Offset,
				}})
			}
		}
	}
	slices.SortStableFunc(xs, func(a, b transfer) int { return cmp.Or(cmp.Compare(a.x.At, b.x.At), cmp.Compare(a.b, b.b)) })
	pl.Transfers = make([]plan.Transfer, len(xs))
	for i := range xs {
		pl.Transfers[i] = xs[i].x
	}
	return pl
}

// LayoutOf returns the layout of pl, a plan of p: each block's placements,
// sorted by from, become its segments. Call it only on a plan that
// verify.Check found valid: it checks only what it needs to build a
// complete layout (the blocks and levels named exist, every block's
// placements tile its lifetime, consecutive placements differ, the
// copies' starts fit their segments) and returns an error, never a panic,
// where that fails; a plan that breaks another rule (an overlap, an offset
// out of bounds, a wrong cost) gives a layout that breaks it too.
//
// Under the timeline model (Problem.Timeline) a transfer's start becomes
// its segment's Lead, a load the Lead of its block's first segment, and a
// constant with one placement outside its home level and no load is
// resident (FORMATS.md 6.2, rule 10). Under another model a layout has
// no copy start and no load: a plan with a transfer whose start is not its
// at, or with a load, is an error rather than a layout that drops them.
func LayoutOf(p *Problem, pl *plan.Plan) (*Layout, error) {
	if pl.Workload != p.Prog.Name || pl.Hardware != p.HW.Name {
		return nil, fmt.Errorf("plan of %q on %q is not for %q on %q", pl.Workload, pl.Hardware, p.Prog.Name, p.HW.Name)
	}
	if !p.timeline {
		for i, x := range pl.Transfers {
			switch {
			case x.Load:
				return nil, fmt.Errorf("transfers[%d]: block %q: a load (the timeline model's) is not representable in a layout", i, x.Block)
			case x.Start != x.At:
				return nil, fmt.Errorf("transfers[%d]: block %q: a copy issued at timestep %d for timestep %d (the timeline model's) is not representable in a layout", i, x.Block, x.Start, x.At)
			}
		}
	}
	levels := make(map[string]int32, len(p.HW.Levels))
	for l := range p.HW.Levels {
		levels[p.HW.Levels[l].Name] = int32(l)
	}
	type placed struct {
		seg Seg
		to  int
	}
	byBlock := make([][]placed, p.Blocks())
	for i, pp := range pl.Placements {
		b, ok := p.BlockID(pp.Block)
		if !ok {
			return nil, fmt.Errorf("placements[%d]: block %q is not in workload %q", i, pp.Block, p.Prog.Name)
		}
		l, ok := levels[pp.Level]
		if !ok {
			return nil, fmt.Errorf("placements[%d]: level %q is not in hardware profile %q", i, pp.Level, p.HW.Name)
		}
		if blk := p.Block(b); pp.From < blk.First || pp.From > pp.To || pp.To > blk.Last {
			return nil, fmt.Errorf("placements[%d]: block %q: timesteps [%d,%d] are not a placement in the lifetime [%d,%d]",
				i, pp.Block, pp.From, pp.To, blk.First, blk.Last)
		}
		byBlock[b] = append(byBlock[b], placed{Seg{From: int32(pp.From), Level: l, Offset: pp.Offset}, pp.To})
	}
	lay := NewLayout(p.Blocks())
	for b, ps := range byBlock {
		slices.SortStableFunc(ps, func(x, y placed) int { return cmp.Compare(x.seg.From, y.seg.From) })
		blk := p.Block(b)
		next := blk.First
		for _, x := range ps {
			if int(x.seg.From) != next {
				return nil, fmt.Errorf("block %q: the placements do not tile the lifetime [%d,%d] (timestep %d)", blk.Name, blk.First, blk.Last, next)
			}
			next = x.to + 1
		}
		if next != blk.Last+1 {
			return nil, fmt.Errorf("block %q: the placements do not tile the lifetime [%d,%d] (timestep %d)", blk.Name, blk.First, blk.Last, next)
		}
		lay.Segs[b] = make([]Seg, len(ps))
		for i := range ps {
			lay.Segs[b][i] = ps[i].seg
		}
	}
	if p.timeline {
		if err := setLeads(p, pl, lay); err != nil {
			return nil, err
		}
	}
	if err := lay.CheckComplete(p); err != nil {
		return nil, err
	}
	return lay, nil
}

// setLeads sets the segments' leads from pl's transfers and loads, and
// marks the resident constants (see LayoutOf).
func setLeads(p *Problem, pl *plan.Plan, lay *Layout) error {
	loaded := make([]bool, p.Blocks())
	for i, x := range pl.Transfers {
		b, ok := p.BlockID(x.Block)
		if !ok {
			return fmt.Errorf("transfers[%d]: block %q is not in workload %q", i, x.Block, p.Prog.Name)
		}
		segs := lay.Segs[b]
		k := len(segs) - 1
		for k > 0 && int(segs[k].From) > x.At {
			k--
		}
		switch {
		case int(segs[k].From) != x.At || (k == 0) != x.Load:
			return fmt.Errorf("transfers[%d]: block %q: no placement begins with a %s at timestep %d", i, x.Block, map[bool]string{true: "load", false: "transfer"}[x.Load], x.At)
		case x.Start > x.At || x.Start < 0 || k > 0 && x.Start < int(segs[k-1].From):
			return fmt.Errorf("transfers[%d]: block %q: start %d does not fit the placements around timestep %d", i, x.Block, x.Start, x.At)
		}
		segs[k].Lead = int32(x.At - x.Start)
		loaded[b] = loaded[b] || x.Load
	}
	for b, segs := range lay.Segs {
		if p.Block(b).Kind == workload.Constant && len(segs) == 1 && int(segs[0].Level) != p.Home(b) && !loaded[b] {
			segs[0].Lead = Resident
		}
	}
	return nil
}
