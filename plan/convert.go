package plan

import (
	"sort"

	"github.com/hieropt/hieropt/state"
)

// FromLayout writes a complete layout as a plan: placements by block ID and
// then time, transfers by time and then block ID. The caller fills in the
// costs and the planner.
func FromLayout(p *state.Problem, lay *state.Layout) *Plan {
	pl := &Plan{
		Workload: p.Prog.Name,
		Hardware: p.HW.Name,
		TimeUnit: p.HW.TimeUnit,
	}
	levels := p.HW.Levels
	n := 0
	for _, segs := range lay.Segs {
		n += len(segs)
	}
	pl.Placements = make([]Placement, 0, n)
	for b, segs := range lay.Segs {
		blk := p.Block(b)
		for i, s := range segs {
			to := blk.Last
			if i+1 < len(segs) {
				to = int(segs[i+1].From) - 1
			}
			pl.Placements = append(pl.Placements, Placement{
				Block: blk.Name, From: int(s.From), To: to,
				Level: levels[s.Level].Name, Offset: s.Offset,
			})
			if i > 0 {
				prev := segs[i-1]
				pl.Transfers = append(pl.Transfers, Transfer{
					Block: blk.Name, At: int(s.From),
					FromLevel: levels[prev.Level].Name, FromOffset: prev.Offset,
					ToLevel: levels[s.Level].Name, ToOffset: s.Offset,
				})
			}
		}
	}
	ids := make(map[string]int, len(lay.Segs))
	for b := range lay.Segs {
		ids[p.Block(b).Name] = b
	}
	sort.SliceStable(pl.Transfers, func(i, j int) bool {
		a, b := pl.Transfers[i], pl.Transfers[j]
		if a.At != b.At {
			return a.At < b.At
		}
		return ids[a.Block] < ids[b.Block]
	})
	if pl.Transfers == nil {
		pl.Transfers = []Transfer{}
	}
	return pl
}
