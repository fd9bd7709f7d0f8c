package verify

import (
	"fmt"
	"math"
	"sort"
)

// rule is one rule of the format: its number and what it says (the
// numbers are those of FORMATS.md: 1-6 of section 3, 7-10 of section 6.2).
type rule struct {
	num   int
	doc   string
	check func(*checker)
}

// rules are run in this order. Rule 6 prices the plan only if rule 1 found
// every lifetime tiled (checker.tiled), so rule 1 comes first; rules 9 and
// 10 report the overlaps of reservations that rule 4's sweep found.
var rules = []rule{
	{1, "each block's placements tile its lifetime [first, last] exactly", (*checker).tiling},
	{2, "consecutive placements differ; exactly one matching transfer at each boundary, no other transfers", (*checker).transfers},
	{3, "offsets are non-negative multiples of the effective alignment; offset + footprint <= capacity", (*checker).bounds},
	{4, "placements in one level that share a timestep share no address, except by in-place reuse", (*checker).overlaps},
	{5, "a pinned block stays in its level", (*checker).pins},
	{6, "cost.final is the recomputed cost; cost.initial the initializer's", (*checker).costs},
	{7, "only constants are placed in a read-only level (every model)", (*checker).readOnly},
	{8, "0 <= start <= at; a copy starts no earlier than its source placement, and the block is not written in [start, at-1]", (*checker).starts},
	{9, "a copy's destination is reserved over [start, at-1] and shares no address with anything else", (*checker).reserved},
	{10, "a constant outside its home is loaded once or resident; other models have no loads and start == at", (*checker).loads},
}

// init checks the tables: rules documented, in ascending order of their
// numbers (rule 6 reads what rule 1 found); cost models documented, under
// distinct names.
func init() {
	for i, r := range rules {
		if r.doc == "" || r.check == nil || i > 0 && r.num <= rules[i-1].num {
			panic(fmt.Sprintf("verify: rule table broken at rule %d", r.num))
		}
	}
	for i, m := range models {
		if m.doc == "" || m.cost == nil {
			panic(fmt.Sprintf("verify: cost model %q undocumented", m.name))
		}
		for _, other := range models[:i] {
			if other.name == m.name {
				panic(fmt.Sprintf("verify: cost model %q listed twice", m.name))
			}
		}
	}
}

// tiling is rule 1: a block's placements, sorted by from, tile
// [first, last] exactly: no gap, no overlap, nothing outside.
func (c *checker) tiling() {
	c.tiled = true
	for b := range c.prog.Blocks {
		blk := &c.prog.Blocks[b]
		name := blk.Name
		idx := c.placesOf(b)
		if len(idx) == 0 {
			c.add(1, name, blk.First, blk.Last, "block %q has no placement for its lifetime, %s", name, span(blk.First, blk.Last))
			c.tiled = false
			continue
		}
		next := blk.First // the first timestep not yet covered
		for _, i := range idx {
			p := &c.place[i]
			switch {
			case p.from > p.to:
				c.add(1, name, p.from, p.from, "block %q: placement from timestep %d to %d is empty (from > to)", name, p.from, p.to)
				c.tiled = false
				continue
			case p.from < blk.First:
				c.add(1, name, p.from, p.to, "block %q: placement at %s starts before the lifetime [%d,%d]", name, span(p.from, p.to), blk.First, blk.Last)
				c.tiled = false
			case p.from > next:
				c.add(1, name, next, p.from-1, "block %q: no placement covers %s", name, span(next, p.from-1))
				c.tiled = false
			case p.from < next:
				c.add(1, name, p.from, min(p.to, next-1), "block %q: placements overlap at %s", name, span(p.from, min(p.to, next-1)))
				c.tiled = false
			}
			next = max(next, p.to+1)
		}
		switch {
		case next-1 > blk.Last:
			c.add(1, name, blk.Last+1, next-1, "block %q: placements reach timestep %d, past the lifetime's end %d", name, next-1, blk.Last)
			c.tiled = false
		case next-1 < blk.Last:
			c.add(1, name, next, blk.Last, "block %q: no placement covers %s", name, span(next, blk.Last))
			c.tiled = false
		}
	}
}

// transfers is rule 2: two consecutive placements of a block differ in
// level or offset, and at the boundary t = next.from there is exactly one
// transfer of the block with at == t, from the first placement's level and
// offset to the second's. There are no other transfers, loads aside (they
// are not between placements: rule 10 judges them).
func (c *checker) transfers() {
	levels := c.prof.Levels
	used := make([]bool, len(c.xfer))
	for b := range c.prog.Blocks {
		name := c.prog.Blocks[b].Name
		idx, xs := c.placesOf(b), c.copiesOf(b) // loads are rule 10's
		for k := 1; k < len(idx); k++ {
			prev, cur := &c.place[idx[k-1]], &c.place[idx[k]]
			t := cur.from
			if prev.l == cur.l && prev.off == cur.off {
				c.add(2, name, t, t, "block %q: placements starting at timesteps %d and %d are at the same place (%s, offset %d): no move between them",
					name, prev.from, cur.from, levels[cur.l].Name, cur.off)
			}
			lo := sort.Search(len(xs), func(j int) bool { return c.xfer[xs[j]].at >= t })
			hi := sort.Search(len(xs), func(j int) bool { return c.xfer[xs[j]].at > t })
			switch hi - lo {
			case 0:
				c.add(2, name, t, t, "block %q: no transfer at timestep %d, where it moves from %s@%d to %s@%d",
					name, t, levels[prev.l].Name, prev.off, levels[cur.l].Name, cur.off)
			case 1:
				x := &c.xfer[xs[lo]]
				if x.from != prev.l || x.fromOff != prev.off || x.to != cur.l || x.toOff != cur.off {
					c.add(2, name, t, t, "block %q: transfer at timestep %d says %s@%d -> %s@%d, the placements say %s@%d -> %s@%d",
						name, t, levels[x.from].Name, x.fromOff, levels[x.to].Name, x.toOff,
						levels[prev.l].Name, prev.off, levels[cur.l].Name, cur.off)
				}
			default:
				c.add(2, name, t, t, "block %q: %d transfers at timestep %d, want exactly one", name, hi-lo, t)
			}
			for j := lo; j < hi; j++ {
				used[xs[j]] = true
			}
		}
		for _, j := range xs {
			if !used[j] {
				at := c.xfer[j].at
				c.add(2, name, at, at, "block %q: transfer at timestep %d is not at a boundary between two of its placements", name, at)
			}
		}
	}
}

// bounds is rule 3: offset is a non-negative multiple of the effective
// alignment, and offset + footprint <= capacity.
func (c *checker) bounds() {
	for i := range c.place {
		p := &c.place[i]
		name, lv := c.prog.Blocks[p.b].Name, &c.prof.Levels[p.l]
		if p.off < 0 {
			c.add(3, name, p.from, p.to, "block %q: offset %d in level %s during %s is negative", name, p.off, lv.Name, span(p.from, p.to))
			continue
		}
		if p.off%p.align != 0 {
			c.add(3, name, p.from, p.to, "block %q: offset %d in level %s during %s is not a multiple of its alignment %d",
				name, p.off, lv.Name, span(p.from, p.to), p.align)
		}
		switch {
		case !p.footOK:
			c.add(3, name, p.from, p.to, "block %q: size %d rounded up to the alignment %d of level %s overflows (placed there during %s)",
				name, c.prog.Blocks[p.b].Size, p.align, lv.Name, span(p.from, p.to))
		case p.off > lv.Capacity-p.foot:
			c.add(3, name, p.from, p.to, "block %q: [%d,%s) during %s ends past the capacity %d of level %s (footprint %d)",
				name, p.off, endString(p.off, p.foot), span(p.from, p.to), lv.Capacity, lv.Name, p.foot)
		}
	}
}

// endString formats off+foot, or "overflow".
func endString(off, foot int64) string {
	if off > math.MaxInt64-foot {
		return "overflow"
	}
	return fmt.Sprint(off + foot)
}

// pins is rule 5: a pinned block stays in its level.
func (c *checker) pins() {
	for i := range c.place {
		p := &c.place[i]
		if pin := c.pin[p.b]; pin >= 0 && pin != p.l {
			name := c.prog.Blocks[p.b].Name
			c.add(5, name, p.from, p.to, "block %q is pinned to level %s but placed in %s during %s",
				name, c.prof.Levels[pin].Name, c.prof.Levels[p.l].Name, span(p.from, p.to))
		}
	}
}
