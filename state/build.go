package state

import (
	"fmt"
	"sort"

	"github.com/hieropt/hieropt/workload"
)

// Free reports whether [off, end) of level l is free.
func (o *Occupancy) Free(l int, off, end int64) bool {
	lv := &o.levels[l]
	if off < 0 || end > lv.cap || end <= off {
		return false
	}
	g := lv.enclosingGap(off)
	return g.Off >= 0 && g.Off <= off && end <= g.End
}

// OccupancyAt builds the memory state of timestep t from a layout: every
// block alive at t, at its position at t. Where a block b created at t sits
// at the offset of a block a that ends at t and may hand its space to b
// (workload.CanReuse), b holds its footprint and a keeps only the tail that
// b does not cover. Any other overlap is an error.
func OccupancyAt(p *Problem, lay *Layout, t int) (*Occupancy, error) {
	o := NewOccupancy(p)
	type entry struct {
		b   int
		pos Pos
	}
	var live []entry
	for b := range lay.Segs {
		blk := p.Block(b)
		if blk.First > t || blk.Last < t {
			continue
		}
		if len(lay.Segs[b]) == 0 {
			return nil, fmt.Errorf("block %q is alive at %d but not placed", blk.Name, t)
		}
		live = append(live, entry{b, lay.At(b, t).Pos()})
	}
	sort.SliceStable(live, func(i, j int) bool {
		if live[i].pos != live[j].pos {
			if live[i].pos.Level != live[j].pos.Level {
				return live[i].pos.Level < live[j].pos.Level
			}
			return live[i].pos.Offset < live[j].pos.Offset
		}
		return live[i].b < live[j].b
	})
	// Find reuse pairs among blocks sharing a start address.
	takenBy := map[int]int{} // a -> b
	for i := 0; i < len(live); {
		j := i
		for j < len(live) && live[j].pos == live[i].pos {
			j++
		}
		for x := i; x < j; x++ {
			for y := i; y < j; y++ {
				a, b := live[x].b, live[y].b
				if x == y || p.Block(a).Last != t || p.Block(b).First != t {
					continue
				}
				if _, done := takenBy[a]; done {
					continue
				}
				if workload.CanReuse(p.Block(a), p.Block(b)) {
					takenBy[a] = b
				}
			}
		}
		i = j
	}
	var tails []entry
	for _, e := range live {
		if _, taken := takenBy[e.b]; taken {
			tails = append(tails, e)
			continue
		}
		if err := o.tryPlace(e.b, int(e.pos.Level), e.pos.Offset, e.pos.Offset+p.Foot(e.b, int(e.pos.Level)), t); err != nil {
			return nil, err
		}
	}
	for _, e := range tails {
		l := int(e.pos.Level)
		start := e.pos.Offset + p.Foot(takenBy[e.b], l)
		end := e.pos.Offset + p.Foot(e.b, l)
		if start < end {
			if err := o.tryPlace(e.b, l, start, end, t); err != nil {
				return nil, err
			}
		}
	}
	return o, nil
}

func (o *Occupancy) tryPlace(b, l int, off, end int64, t int) error {
	if !o.Free(l, off, end) {
		who := "another block"
		o.levels[l].busy.DescendLessOrEqual(Span{Off: end - 1}, func(s Span) bool {
			if s.End > off {
				who = fmt.Sprintf("block %q", o.p.Block(int(s.Block)).Name)
			}
			return false
		})
		if end > o.levels[l].cap || off < 0 {
			who = "the level's end"
		}
		return fmt.Errorf("timestep %d: block %q at [%d,%d) of level %q overlaps %s",
			t, o.p.Block(b).Name, off, end, o.p.HW.Levels[l].Name, who)
	}
	o.PlaceSpan(l, off, end, int32(b))
	return nil
}
