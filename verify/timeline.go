package verify

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/hieropt/hieropt/workload"
)

// This file is what FORMATS.md section 6 (the timeline model) adds: rules
// 7-10 and the timeline cost, transcribed from the text and from the
// settled readings of docs/FORMATS.md 6.4.

// home returns the home level of block b (FORMATS.md 6.1): the level it is
// pinned to, else the profile's last (slowest) level.
func (c *checker) home(b int) int {
	if c.pin[b] >= 0 {
		return c.pin[b]
	}
	return len(c.prof.Levels) - 1
}

// placeAt returns the placement of block b that covers timestep t, or -1.
func (c *checker) placeAt(b, t int) int {
	idx := c.placesOf(b)
	k := sort.Search(len(idx), func(k int) bool { return c.place[idx[k]].from > t }) - 1
	if k < 0 || c.place[idx[k]].to < t {
		return -1
	}
	return idx[k]
}

// loadsOf returns the loads among the transfers of block b, by at.
func (c *checker) loadsOf(b int) []int {
	var out []int
	for _, k := range c.xfersOf(b) {
		if c.xfer[k].load {
			out = append(out, k)
		}
	}
	return out
}

// copiesOf returns the transfers of block b that are not loads, by at:
// those rule 2 matches with the boundaries between placements.
func (c *checker) copiesOf(b int) []int {
	xs := c.xfersOf(b)
	if !slices.ContainsFunc(xs, func(k int) bool { return c.xfer[k].load }) {
		return xs
	}
	return slices.DeleteFunc(slices.Clone(xs), func(k int) bool { return c.xfer[k].load })
}

// findResident marks the resident constants (rule 10), under a model with
// section 6's semantics: a constant with a single placement, outside its
// home level, and no load. Its range stays reserved over the whole run.
func (c *checker) findResident() {
	c.resident = make([]bool, len(c.prog.Blocks))
	if !c.model.timeline {
		return
	}
	for b := range c.prog.Blocks {
		if c.prog.Blocks[b].Kind != workload.Constant {
			continue
		}
		idx := c.placesOf(b)
		if len(idx) != 1 {
			continue
		}
		if p := &c.place[idx[0]]; p.l != c.home(b) && p.from <= p.to && len(c.loadsOf(b)) == 0 {
			c.resident[b] = true
		}
	}
}

// reservations appends to occ the ranges section 6 reserves besides the
// placements: a copy's (or a load's) destination over [start, at-1] (rule
// 9; none when start == at) and a resident constant's range over the
// timesteps of the run outside its placement (rule 10).
func (c *checker) reservations(occ []occupant) []occupant {
	last := len(c.prog.Ops) - 1
	for k := range c.xfer {
		x := &c.xfer[k]
		from, to := max(x.start, 0), min(x.at-1, last)
		if from > to {
			continue
		}
		blk := &c.prog.Blocks[x.b]
		f, _ := footprint(blk.Size, alignment(blk, &c.prof.Levels[x.to]))
		end := int64(math.MaxInt64)
		if x.toOff <= math.MaxInt64-f {
			end = x.toOff + f
		}
		occ = append(occ, occupant{kind: occCopy, src: k, b: x.b, l: x.to, from: from, to: to, off: x.toOff, end: end})
	}
	for b, res := range c.resident {
		if !res {
			continue
		}
		i := c.placesOf(b)[0]
		p := &c.place[i]
		for _, r := range [][2]int{{0, p.from - 1}, {p.to + 1, last}} {
			if r[0] <= r[1] {
				occ = append(occ, occupant{kind: occResident, src: i, b: b, l: p.l, from: r[0], to: r[1], off: p.off, end: p.end()})
			}
		}
	}
	return occ
}

// readOnly is rule 7 (under every model): only constants are placed in a
// read-only level.
func (c *checker) readOnly() {
	for i := range c.place {
		p := &c.place[i]
		lv, blk := &c.prof.Levels[p.l], &c.prog.Blocks[p.b]
		if lv.ReadOnly && blk.Kind != workload.Constant && p.from <= p.to {
			c.add(7, blk.Name, p.from, p.to, "block %q (%s) is placed in read-only level %s during %s: only constants may be",
				blk.Name, kindName(blk.Kind), lv.Name, span(p.from, p.to))
		}
	}
}

// starts is rule 8 (under a model with section 6's semantics; under the
// others every start is at, which rule 10 checks): 0 <= start <= at; a
// copy between two placements starts no earlier than its source placement
// and the block is not written in [start, at-1].
func (c *checker) starts() {
	if !c.model.timeline {
		return
	}
	levels := c.prof.Levels
	for b := range c.prog.Blocks {
		blk := &c.prog.Blocks[b]
		for _, k := range c.xfersOf(b) {
			x := &c.xfer[k]
			what := copyWord(x)
			switch {
			case x.start < 0:
				c.add(8, blk.Name, x.start, x.at, "block %q: %s for timestep %d issued at timestep %d, before the program's first (0)", blk.Name, what, x.at, x.start)
				continue
			case x.start > x.at:
				c.add(8, blk.Name, x.at, x.start, "block %q: %s for timestep %d issued at timestep %d, after it (start <= at)", blk.Name, what, x.at, x.start)
				continue
			}
			if x.load || x.start == x.at {
				continue
			}
			if src := c.placeAt(b, x.at-1); src >= 0 && x.start < c.place[src].from {
				s := &c.place[src]
				c.add(8, blk.Name, x.start, x.at, "block %q: copy for timestep %d issued at timestep %d, before its source placement (%s@%d) begins at timestep %d",
					blk.Name, x.at, x.start, levels[s.l].Name, s.off, s.from)
			}
			lo := sort.SearchInts(blk.Writes, x.start)
			hi := sort.SearchInts(blk.Writes, x.at)
			if lo < hi {
				c.add(8, blk.Name, x.start, x.at-1, "block %q: copy for timestep %d issued at timestep %d would carry stale bytes: the block is written at %s in [%d,%d]",
					blk.Name, x.at, x.start, steps(blk.Writes[lo:hi]), x.start, x.at-1)
			}
		}
	}
}

// reserved is rule 9: a copy's reserved destination shares no address with
// any other placement or reservation (the overlaps rule 4's sweep found).
func (c *checker) reserved() { c.reportHits(9, &c.reservedHits[0], occCopy) }

// loads is rule 10. Under a model with section 6's semantics: a constant
// whose first placement is in its home has no load; any other has exactly
// one, matching its first placement, or is resident (no load, a single
// placement whose range is reserved over the whole run: the overlaps of
// those reservations, found by rule 4's sweep, are reported here too).
// Under the other models: no loads and no start other than at.
func (c *checker) loads() {
	if !c.model.timeline {
		for b := range c.prog.Blocks {
			name := c.prog.Blocks[b].Name
			for _, k := range c.xfersOf(b) {
				switch x := &c.xfer[k]; {
				case x.load:
					c.add(10, name, x.at, x.at, "block %q: a load at timestep %d: loads belong to the %s model, not %s", name, x.at, TimelineModel, c.model.name)
				case x.start != x.at:
					c.add(10, name, min(x.start, x.at), max(x.start, x.at), "block %q: transfer at timestep %d issued at timestep %d: start differs from at only under the %s model, not %s",
						name, x.at, x.start, TimelineModel, c.model.name)
				}
			}
		}
		return
	}
	for b := range c.prog.Blocks {
		c.loadsOfBlock(b)
	}
	c.reportHits(10, &c.reservedHits[1], occResident)
}

// loadsOfBlock checks rule 10 for block b under the timeline model.
func (c *checker) loadsOfBlock(b int) {
	levels := c.prof.Levels
	blk := &c.prog.Blocks[b]
	name := blk.Name
	loads := c.loadsOf(b)
	if blk.Kind != workload.Constant {
		for _, k := range loads {
			x := &c.xfer[k]
			c.add(10, name, x.at, x.at, "block %q (%s) has a load at timestep %d: only constants are loaded", name, kindName(blk.Kind), x.at)
		}
		return
	}
	home := c.home(b)
	for _, k := range c.xfersOf(b) {
		if x := &c.xfer[k]; !x.load && x.at == blk.First && x.from == home {
			c.add(10, name, x.at, x.at, "block %q: transfer at its first timestep %d from its home %s has a from_offset (%d): a load has none",
				name, x.at, levels[home].Name, x.fromOff)
		}
	}
	idx := c.placesOf(b)
	if len(idx) == 0 {
		return // rule 1's
	}
	p0 := &c.place[idx[0]]
	for _, k := range loads {
		x := &c.xfer[k]
		if x.at != blk.First {
			c.add(10, name, x.at, x.at, "block %q: load at timestep %d, not at its first timestep %d", name, x.at, blk.First)
		}
		if x.from != home {
			c.add(10, name, x.at, x.at, "block %q: load at timestep %d from level %s, not from its home %s", name, x.at, levels[x.from].Name, levels[home].Name)
		}
		if p0.l != home && (x.to != p0.l || x.toOff != p0.off) {
			c.add(10, name, x.at, x.at, "block %q: load at timestep %d into %s@%d, but its first placement is %s@%d",
				name, x.at, levels[x.to].Name, x.toOff, levels[p0.l].Name, p0.off)
		}
	}
	switch {
	case p0.l == home && len(loads) > 0:
		at := c.xfer[loads[0]].at
		c.add(10, name, min(p0.from, at), max(p0.from, at), "block %q: first placed in its home %s at timestep %d, yet loaded at timestep %d: a constant in its home has no load",
			name, levels[home].Name, p0.from, at)
	case p0.l != home && len(loads) > 1:
		c.add(10, name, blk.First, blk.First, "block %q: %d loads for its first timestep %d, want one", name, len(loads), blk.First)
	case p0.l != home && len(loads) == 0 && len(idx) > 1:
		c.add(10, name, blk.First, blk.Last, "block %q: first placed in %s at timestep %d, not in its home %s, with no load and %d placements during %s (a resident constant has one)",
			name, levels[p0.l].Name, p0.from, levels[home].Name, len(idx), span(blk.First, blk.Last))
	}
}

// reportHits reports the overlaps h the sweep found under rule: each names
// the occupant of kind subject (the later-placed if both are) and what it
// overlaps, at which timesteps.
func (c *checker) reportHits(rule int, h *hits, subject occKind) {
	for _, pr := range h.pairs {
		a, b := &c.occ[pr[0]], &c.occ[pr[1]]
		if b.kind != subject {
			a, b = b, a
		}
		from, to := max(a.from, b.from), min(a.to, b.to)
		name := c.prog.Blocks[b.b].Name
		c.add(rule, name, from, to, "block %q: %s overlaps %s at %s", name, c.describe(b, true), c.describeOther(a, b), span(from, to))
	}
	c.rep.Omitted += h.more
}

// describe says what occupant o is, for a message: as the subject (which
// names its block) or as the other party.
func (c *checker) describe(o *occupant, subject bool) string {
	lv := c.prof.Levels[o.l].Name
	rng := fmt.Sprintf("[%d,%s)", o.off, endOf(o.end))
	switch o.kind {
	case occCopy:
		word := copyWord(&c.xfer[o.src])
		if subject {
			return fmt.Sprintf("%s into %s %s reserved over %s", word, lv, rng, span(o.from, o.to))
		}
		return fmt.Sprintf("the %s of block %q into %s %s reserved over %s", word, c.prog.Blocks[o.b].Name, lv, rng, span(o.from, o.to))
	case occResident:
		if subject {
			return fmt.Sprintf("resident range %s %s reserved over %s", lv, rng, span(o.from, o.to))
		}
		return fmt.Sprintf("the resident range of block %q %s %s reserved over %s", c.prog.Blocks[o.b].Name, lv, rng, span(o.from, o.to))
	}
	return fmt.Sprintf("block %q %s", c.prog.Blocks[o.b].Name, rng)
}

// describeOther describes other, which overlaps subject: "its own
// placement" where it is the subject's block's.
func (c *checker) describeOther(other, subject *occupant) string {
	if other.kind == occPlace && other.b == subject.b {
		return fmt.Sprintf("its own placement %s [%d,%s)", c.prof.Levels[other.l].Name, other.off, endOf(other.end))
	}
	return c.describe(other, false)
}

// copyWord is "load" for a load, "copy" for any other transfer.
func copyWord(x *xfer) string {
	if x.load {
		return "load"
	}
	return "copy"
}

// endOf formats the end of a range, "overflow" where it does not fit.
func endOf(end int64) string {
	if end == math.MaxInt64 {
		return "overflow"
	}
	return fmt.Sprint(end)
}

// steps formats timesteps: "timestep 3", "timesteps 3, 5".
func steps(ts []int) string {
	if len(ts) == 1 {
		return fmt.Sprintf("timestep %d", ts[0])
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprint(t)
	}
	return "timesteps " + strings.Join(parts, ", ")
}

// timelineCost is the cost of FORMATS.md 6.3, transcribed: op t computes
// for c(t) (0 without a compute section; op_overhead + macs/macs_per_unit
// with one) and accesses its blocks for m(t), and takes d(t) = max(c, m);
// transfer k (copy or load) takes x(k) = out(from) + in(to). At each t the
// transfers issued at t (by at, then block name bytewise) take the channel
// with the least finishing time (the lowest index on ties) and begin at
// max(R, its finishing time); the op waits for the transfers due at t,
// then runs. The cost is when the last op ends.
//
// The rules make a valid plan's starts lie in [0, at]; for the cost of an
// invalid one (reported, not trusted) a start is clamped into [0, at] and
// the program.
func (c *checker) timelineCost() float64 {
	n := len(c.prog.Ops)
	levels := c.prof.Levels
	m := make([]neumaier, n)
	for b := range c.prog.Blocks {
		blk := &c.prog.Blocks[b]
		for _, t := range blk.Reads {
			m[t].add(out(&levels[c.levelAt(b, t)], blk.Size))
		}
		for _, t := range blk.Writes {
			m[t].add(in(&levels[c.levelAt(b, t)], blk.Size))
		}
	}
	issue := func(k int) int { return max(0, min(c.xfer[k].start, c.xfer[k].at, n-1)) }
	order := make([]int, len(c.xfer))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(i, j int) int {
		return cmp.Or(cmp.Compare(issue(i), issue(j)), cmp.Compare(c.xfer[i].at, c.xfer[j].at),
			strings.Compare(c.prog.Blocks[c.xfer[i].b].Name, c.prog.Blocks[c.xfer[j].b].Name), cmp.Compare(i, j))
	})
	free := make([]float64, max(1, c.prof.DMA.Channels)) // F[1..C]: when each channel finishes
	due := make([]float64, n)                            // the latest end of the transfers with at == t
	r := 0.0                                             // R: when the previous op ended
	next := 0
	for t := 0; t < n; t++ {
		for ; next < len(order) && issue(order[next]) == t; next++ {
			x := &c.xfer[order[next]]
			d := c.prog.Blocks[x.b].Size
			j := 0
			for i := range free {
				if free[i] < free[j] {
					j = i
				}
			}
			end := max(r, free[j]) + out(&levels[x.from], d) + in(&levels[x.to], d)
			free[j] = end
			if x.at >= 0 && x.at < n {
				due[x.at] = max(due[x.at], end)
			}
		}
		r = max(r, due[t]) + max(c.compute(t), m[t].total())
	}
	return r
}

// compute is c(t) of FORMATS.md 6.3 as settled in 6.4: 0 without a compute
// section, else op_overhead + macs / macs_per_unit (op_overhead also for an
// op without macs).
func (c *checker) compute(t int) float64 {
	cu := c.prof.Compute
	if cu == nil {
		return 0
	}
	return cu.OpOverhead + float64(c.prog.Ops[t].MACs)/cu.MACsPerUnit
}

// kindNames name the block kinds in messages (FORMATS.md section 1).
var kindNames = [numKinds]string{
	workload.Input: "input", workload.Output: "output", workload.Activation: "activation",
	workload.Scratch: "scratch", workload.Constant: "constant",
}

func kindName(k workload.Kind) string {
	if int(k) < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", k)
}
