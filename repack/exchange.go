package repack

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/hieropt/hieropt/pack"
	"github.com/hieropt/hieropt/state"
)

// # Exchange
//
// A candidate the max-live screen rules out has no room in level l at
// some timesteps of its run however l is packed; it may still pay to make
// room: send some of the blocks that sit in l over those timesteps down to
// a slower level, if they lose less there than the candidate saves. The
// whole-program optimum often does exactly this where the search cannot
// (one action moves one block): on mobilenet_v2-int8 on the Ethos-U55's
// seed-model copy the 1.28 MB classifier weight belongs in SRAM and
// 0.87 MB of other weights in flash, the other way round from the plan
// the walks end with.
//
// exchange (seed model only: the blocks are priced apart) picks the
// victims greedily: while some timestep of the run is over the capacity
// with the candidate in l, among the blocks placed once, for their whole
// life, in l, alone (no reuse chain), alive at the timestep most over,
// the one that loses least per byte goes to the fastest slower level with
// room for it over its life (as the layout is; else a slower one), at the
// lowest offset free there. If what they lose is
// less than the candidate saves, l is packed with the candidate and
// without them (the packer, as for any candidate, under the node
// budget); the change is kept only if the layout's cost falls. It counts
// as one of the level's packings.

// exchange tries to put candidate c (a run from slower levels) into l by
// sending blocks of l down; it reports whether it changed the layout.
func (r *repacker) exchange(ctx context.Context, l int, c candidate, its []item) bool {
	p := r.p
	if r.pr != nil || r.runInLevel(l, c) {
		return false
	}
	f := p.Foot(c.b, l)
	capacity := p.HW.Levels[l].Capacity
	// over[t-c.from]: the bytes live in l at t with the candidate, less the
	// capacity.
	over := make([]int64, c.to-c.from+1)
	for i := range over {
		over[i] = f - capacity
	}
	type victim struct {
		k    int // its item
		b    int
		loss float64 // per byte
		to   int     // the level it goes to
	}
	var cands []victim
	for k, it := range its {
		lo, hi := max(it.from, c.from), min(it.to, c.to)
		for t := lo; t <= hi; t++ {
			over[t-c.from] += it.size
		}
		if hi < lo || len(it.refs) != 1 || len(r.lay.Segs[it.refs[0].b]) != 1 {
			continue
		}
		b := it.refs[0].b
		if b == c.b {
			continue
		}
		// The fastest slower level with room for it over its life, as the
		// layout is (the slowest it may use at worst).
		seg := r.lay.Segs[b][0]
		slow, loss := -1, 0.0
		for m := l + 1; m < p.Levels(); m++ {
			if !p.Allowed(b, m) {
				continue
			}
			if _, ok := r.freeAt(m, p.Block(b).First, r.segEnd(b, 0), p.Foot(b, m), p.Align(b, m), nil); ok || slow < 0 {
				slow = m
				down := state.Seg{From: seg.From, Level: int32(m), Lead: seg.Lead}
				if m == p.Home(b) {
					down.Lead = 0
				}
				loss = r.model.BlockCost(p, b, []state.Seg{down}) - r.model.BlockCost(p, b, r.lay.Segs[b])
				if ok {
					break
				}
			}
		}
		if slow < 0 {
			continue
		}
		cands = append(cands, victim{k: k, b: b, loss: loss / float64(it.size), to: slow})
	}
	slices.SortStableFunc(cands, func(x, y victim) int { return cmp.Compare(x.loss, y.loss) })
	var chosen []victim
	var lost float64
	for {
		worst := 0
		for i := range over {
			if over[i] > over[worst] {
				worst = i
			}
		}
		if over[worst] <= 0 {
			break
		}
		t := c.from + worst
		// The victim that loses least per byte of the excess at t it
		// covers (a block larger than the excess covers only the excess).
		pick, best := -1, 0.0
		for i, v := range cands {
			if v.k < 0 || its[v.k].from > t || t > its[v.k].to {
				continue
			}
			size := its[v.k].size
			if score := v.loss * float64(size) / float64(min(size, over[worst])); pick < 0 || score < best {
				pick, best = i, score
			}
		}
		if pick < 0 {
			return false // nothing to send down at t
		}
		v := cands[pick]
		it := its[v.k]
		lost += v.loss * float64(it.size)
		if lost >= c.saving {
			return false
		}
		for u := max(it.from, c.from); u <= min(it.to, c.to); u++ {
			over[u-c.from] -= it.size
		}
		chosen = append(chosen, v)
		cands[pick].k = -1
	}
	if len(chosen) == 0 {
		return false
	}
	// The victims' places in the slower levels, one after another.
	changed := map[int][]state.Seg{}
	for _, v := range chosen {
		seg := r.lay.Segs[v.b][0]
		placed := false
		for m := v.to; m < p.Levels() && !placed; m++ {
			if !p.Allowed(v.b, m) {
				continue
			}
			off, ok := r.freeAt(m, p.Block(v.b).First, r.segEnd(v.b, 0), p.Foot(v.b, m), p.Align(v.b, m), changed)
			if !ok {
				continue
			}
			down := state.Seg{From: seg.From, Level: int32(m), Offset: off, Lead: seg.Lead}
			if m == p.Home(v.b) {
				down.Lead = 0
			}
			changed[v.b] = []state.Seg{down}
			placed = true
		}
		if !placed {
			return false
		}
	}
	// l packed without them, with the candidate.
	gone := map[int]bool{}
	for _, v := range chosen {
		gone[v.k] = true
	}
	var rest []item
	for k, it := range its {
		if !gone[k] {
			rest = append(rest, it)
		}
	}
	pp := &pack.Problem{Capacity: capacity, Buffers: make([]pack.Buffer, 0, len(rest)+1)}
	for _, it := range rest {
		pp.Buffers = append(pp.Buffers, pack.Buffer{Lower: int64(it.from), Upper: int64(it.to) + 1, Size: it.size, Align: it.align})
	}
	pp.Buffers = append(pp.Buffers, pack.Buffer{Lower: int64(c.from), Upper: int64(c.to) + 1, Size: f, Align: p.Align(c.b, l)})
	r.stats.Packings++
	sol, err := pack.Solve(ctx, pp, &pack.Options{NodeLimit: r.cfg.NodeLimit})
	if err != nil {
		panic(fmt.Sprintf("repack: packing level %s: %v", p.HW.Levels[l].Name, err))
	}
	r.stats.Nodes += sol.Stats.Nodes
	if !sol.Solved {
		return false
	}
	if err := pack.Check(pp, sol); err != nil {
		panic(fmt.Sprintf("repack: the packer's solution for level %s: %v", p.HW.Levels[l].Name, err))
	}
	segsOf := func(b int) []state.Seg {
		s, ok := changed[b]
		if !ok {
			s = slices.Clone(r.lay.Segs[b])
			changed[b] = s
		}
		return s
	}
	for k, it := range rest {
		for _, rf := range it.refs {
			segsOf(rf.b)[rf.i].Offset = sol.Offsets[k]
		}
	}
	cs := segsOf(c.b)
	changed[c.b] = replaceRun(nil, cs, c.i, c.j, r.runSeg(c.b, cs, c.i, l, sol.Offsets[len(rest)]))
	ids := make([]int, 0, len(changed))
	for b := range changed {
		ids = append(ids, b)
	}
	slices.Sort(ids) // a fixed order: the sum below must not depend on map order
	var delta float64
	merged := 0
	for _, b := range ids {
		segs, n := mergeSame(changed[b])
		changed[b] = segs
		merged += n
		delta += r.model.BlockCost(p, b, segs) - r.model.BlockCost(p, b, r.lay.Segs[b])
	}
	if !(delta < 0) {
		return false
	}
	for _, b := range ids {
		r.lay.Segs[b] = changed[b]
	}
	r.cost += delta
	r.stats.Promoted++
	r.stats.Exchanged += len(chosen)
	r.stats.Merged += merged
	return true
}

// freeAt returns the lowest offset of level m, aligned to a, where f bytes
// are free over timesteps [from, to] in the layout with the blocks of
// changed at their segments there.
func (r *repacker) freeAt(m, from, to int, f, a int64, changed map[int][]state.Seg) (int64, bool) {
	var busy []state.Gap
	for b, segs := range r.lay.Segs {
		if s, ok := changed[b]; ok {
			segs = s
		}
		for i, s := range segs {
			if int(s.Level) != m {
				continue
			}
			end := state.OccEnd(r.p, b, segs, i)
			if end < from || int(s.OccStart()) > to {
				continue
			}
			busy = append(busy, state.Gap{Off: s.Offset, End: s.Offset + r.p.Foot(b, m)})
		}
	}
	slices.SortFunc(busy, func(x, y state.Gap) int { return cmp.Compare(x.Off, y.Off) })
	var off int64
	for _, g := range busy {
		if off+f <= g.Off {
			break
		}
		off = max(off, state.AlignUp(g.End, a))
	}
	return off, off+f <= r.p.HW.Levels[m].Capacity
}
