package state

import (
	"cmp"
	"fmt"
	"slices"
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

// ReusePair reports whether blocks a and b may share a start address at
// timestep t by reuse, in either direction: one ends at t, the other starts
// at t, and the kind rule lets the first's space go to the second.
func ReusePair(p *Problem, a, b, t int) bool {
	ba, bb := p.Block(a), p.Block(b)
	return ba.Last == t && bb.First == t && workload.CanReuse(ba, bb) ||
		bb.Last == t && ba.First == t && workload.CanReuse(bb, ba)
}

// OccupancyAt builds the memory state of timestep t from a layout: every
// block alive at t, at its position at t. Two blocks that start at the same
// address must be a reuse pair (ReusePair); their bytes are attributed by
// PairSpans. Any other overlap is an error.
//
// Under the timeline model (Problem.Timeline) a segment occupies its range
// from its OccStart to its OccEnd, so the state also holds the ranges
// reserved at t: a copy's destination from its start (the source stays
// busy until the copy's timestep), a load's from its start, a resident
// constant's over the whole run. A reservation is never a reuse partner.
// The occupancy's free-since log is rebuilt from the segments that ended
// in the Horizon timesteps before t (see the package doc).
func OccupancyAt(p *Problem, lay *Layout, t int) (*Occupancy, error) {
	o := NewOccupancy(p)
	o.t = t
	type entry struct {
		b   int
		pos Pos
		res bool // a reservation: not a placement at t
	}
	var live []entry
	for b := range lay.Segs {
		blk := p.Block(b)
		if !p.timeline {
			if blk.First > t || blk.Last < t {
				continue
			}
			if len(lay.Segs[b]) == 0 {
				return nil, fmt.Errorf("block %q is alive at %d but not placed", blk.Name, t)
			}
			live = append(live, entry{b, lay.At(b, t).Pos(), false})
			continue
		}
		segs := lay.Segs[b]
		if len(segs) == 0 {
			if blk.First <= t && t <= blk.Last {
				return nil, fmt.Errorf("block %q is alive at %d but not placed", blk.Name, t)
			}
			continue
		}
		for i, s := range segs {
			end := OccEnd(p, b, segs, i)
			if int(s.OccStart()) <= t && t <= end {
				inLife := int(s.From) <= t && t <= blk.Last
				live = append(live, entry{b, s.Pos(), !inLife})
			}
			if since := end + 1; since <= t && since > t-p.horizon {
				l := int(s.Level)
				o.levels[l].logRelease(release{s.Offset, s.Offset + p.Foot(b, l), int32(since)})
			}
		}
	}
	if p.timeline {
		for l := range o.levels {
			lv := &o.levels[l]
			slices.SortStableFunc(lv.log, func(a, b release) int { return cmp.Compare(a.since, b.since) })
		}
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
	// Blocks sharing a start address must be a reuse pair at t: one ends
	// at t, the other starts there, and the kind rule allows it. Their
	// bytes are attributed by PairSpans.
	for i := 0; i < len(live); {
		j := i
		for j < len(live) && live[j].pos == live[i].pos {
			j++
		}
		e := live[i]
		l := int(e.pos.Level)
		switch j - i {
		case 1:
			if err := o.tryPlace(e.b, l, e.pos.Offset, e.pos.Offset+p.Foot(e.b, l), t); err != nil {
				return nil, err
			}
		case 2:
			a, b := live[i].b, live[i+1].b
			if live[i].res || live[i+1].res || !ReusePair(p, a, b, t) {
				return nil, fmt.Errorf("timestep %d: blocks %q and %q share offset %d of level %q but neither may take over the other's space",
					t, p.Block(a).Name, p.Block(b).Name, e.pos.Offset, p.HW.Levels[l].Name)
			}
			for _, sp := range p.PairSpans(a, b, l, e.pos.Offset) {
				if err := o.tryPlace(int(sp.Block), l, sp.Off, sp.End, t); err != nil {
					return nil, err
				}
			}
		default:
			return nil, fmt.Errorf("timestep %d: %d blocks share offset %d of level %q (a reuse pair is at most two)",
				t, j-i, e.pos.Offset, p.HW.Levels[l].Name)
		}
		i = j
	}
	return o, nil
}

func (o *Occupancy) tryPlace(b, l int, off, end int64, t int) error {
	if !o.Free(l, off, end) {
		who := "another block"
		if s, ok := o.levels[l].floor(end - 1); ok && s.End > off {
			who = fmt.Sprintf("block %q", o.p.Block(int(s.Block)).Name)
		}
		if end > o.levels[l].cap || off < 0 {
			who = "the level's end"
		}
		return fmt.Errorf("timestep %d: block %q at [%d,%d) of level %q overlaps %s",
			t, o.p.Block(b).Name, off, end, o.p.HW.Levels[l].Name, who)
	}
	o.PlaceSpan(l, off, end, int32(b))
	return nil
}
