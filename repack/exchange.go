package repack

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/hieropt/hieropt/costmodel"
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
// the walks end with. And often many small candidates together are worth
// one large block's room where none is alone: on resnet50-fp32 on the same
// copy the optimum keeps 172 batch-norm parameters of 256 B to 1 KiB in
// SRAM (each read from flash pays its latency) and sends three 392 KiB
// activations to flash.
//
// exchange (seed model only: the blocks are priced apart) promotes a set
// of candidates at once. The victims are picked greedily: while some
// timestep is over the capacity with the candidates in l, among the
// blocks placed once, for their whole life, in l (or chains of such
// blocks sharing their space in place, which go together and stay in
// place), alive at the timestep most over, the one that loses least per
// byte of the excess it covers (priced in the next slower level it may
// use) goes to the fastest slower level with room for it over its life,
// at the lowest offset free there. If what they lose is less than the candidates
// save, l is packed with the candidates and without them (the packer, as
// for any candidate, under the node budget); the change is kept only if
// the layout's cost falls. It counts as one of the level's packings.

// victim is an item of l that exchange may send down (a block, or a
// chain of blocks that share their space in place): its item k, its loss
// per byte in the next slower level all its blocks may use, and that
// level.
type victim struct {
	k    int
	loss float64
	to   int
}

// victims returns the items of l that exchange may send down: those whose
// blocks are each placed once for their whole life, none among skip.
func (r *repacker) victims(l int, its []item, skip func(b int) bool) []victim {
	p := r.p
	var out []victim
	for k, it := range its {
		ok := true
		for _, rf := range it.refs {
			ok = ok && len(r.lay.Segs[rf.b]) == 1 && !skip(rf.b)
		}
		if !ok {
			continue
		}
		slow := -1
		for m := l + 1; m < p.Levels() && slow < 0; m++ {
			all := true
			for _, rf := range it.refs {
				all = all && p.Allowed(rf.b, m)
			}
			if all {
				slow = m
			}
		}
		if slow < 0 {
			continue
		}
		var loss float64
		for _, rf := range it.refs {
			loss += r.model.BlockCost(p, rf.b, []state.Seg{r.down(rf.b, slow, 0)}) - r.model.BlockCost(p, rf.b, r.lay.Segs[rf.b])
		}
		out = append(out, victim{k: k, loss: loss / float64(it.size), to: slow})
	}
	slices.SortStableFunc(out, func(x, y victim) int { return cmp.Compare(x.loss, y.loss) })
	return out
}

// down is block b's one segment moved to level m at offset off (a first
// segment in its home level has no load).
func (r *repacker) down(b, m int, off int64) state.Seg {
	seg := r.lay.Segs[b][0]
	s := state.Seg{From: seg.From, Level: int32(m), Offset: off, Lead: seg.Lead}
	if m == r.p.Home(b) {
		s.Lead = 0
	}
	return s
}

// cover picks victims, greedily, until over (the bytes above l's capacity
// per timestep from lo on, changed in place) is nowhere positive. It
// returns them and what they lose, or false if some timestep has none
// left to send down or the loss reaches limit.
func (r *repacker) cover(its []item, pool []victim, over []int64, lo int, limit float64) ([]victim, float64, bool) {
	used := make([]bool, len(pool))
	var chosen []victim
	var lost float64
	for {
		worst := 0
		for i := range over {
			if over[i] > over[worst] {
				worst = i
			}
		}
		if len(over) == 0 || over[worst] <= 0 {
			return chosen, lost, true
		}
		t := lo + worst
		// The victim that loses least per byte of the excess at t it
		// covers (a block larger than the excess covers only the excess).
		pick, best := -1, 0.0
		for i, v := range pool {
			if used[i] || its[v.k].from > t || t > its[v.k].to {
				continue
			}
			size := its[v.k].size
			if score := v.loss * float64(size) / float64(min(size, over[worst])); pick < 0 || score < best {
				pick, best = i, score
			}
		}
		if pick < 0 {
			return nil, 0, false // nothing to send down at t
		}
		v := pool[pick]
		it := its[v.k]
		lost += v.loss * float64(it.size)
		if lost >= limit {
			return nil, 0, false
		}
		for u := max(it.from, lo); u <= min(it.to, lo+len(over)-1); u++ {
			over[u-lo] -= it.size
		}
		used[pick] = true
		chosen = append(chosen, v)
	}
}

// exchange tries to put candidate c (a run from slower levels) into l by
// sending blocks of l down; it reports whether it changed the layout.
func (r *repacker) exchange(ctx context.Context, l int, c candidate, its []item) bool {
	p := r.p
	if r.pr != nil || r.runInLevel(l, c) {
		return false
	}
	// over[t-c.from]: the bytes live in l at t with the candidate, less the
	// capacity.
	over := make([]int64, c.to-c.from+1)
	for i := range over {
		over[i] = p.Foot(c.b, l) - p.HW.Levels[l].Capacity
	}
	for _, it := range its {
		for t := max(it.from, c.from); t <= min(it.to, c.to); t++ {
			over[t-c.from] += it.size
		}
	}
	for i := range over {
		// Above the candidate's footprint only where in-place pairs of
		// different footprints count twice: full, not over.
		over[i] = min(over[i], p.Foot(c.b, l))
	}
	pool := r.victims(l, its, func(b int) bool { return b == c.b })
	chosen, _, ok := r.cover(its, pool, over, c.from, c.saving)
	if !ok || len(chosen) == 0 {
		return false
	}
	return r.swapIn(ctx, l, []candidate{c}, chosen, its)
}

// groupTries is how many candidates groupExchange adds, at most.
const groupTries = 256

// groupExchange promotes a set of screened candidates at once: the
// candidates of l (runs from slower levels that save something and have
// no room), densest saving per byte and timestep first, join one by one
// (those for which no room can be made with the others stay out); after
// each the victims that make room for all of them are picked afresh
// (cover), and the first ones joined whose savings beat their victims'
// losses by the most are tried (swapIn). With smallFirst the smallest
// join first (ties: densest): a dense candidate whose victims lose more
// than it saves stays in the group once joined and can leave no room for
// the many small ones that would pay together (resnet50-int8 on the
// Ethos-U65 copy: 121 batch-norm parameters into SRAM for one 144 KiB
// weight sent to DRAM, 0.5% less). It reports whether it changed the
// layout.
func (r *repacker) groupExchange(ctx context.Context, l int, cands []candidate, ls *levelState, smallFirst bool) bool {
	p := r.p
	if r.pr != nil {
		return false
	}
	var group []candidate
	for _, c := range cands {
		if !r.runInLevel(l, c) && !ls.room(c.from, c.to, p.Foot(c.b, l)) {
			group = append(group, c)
		}
	}
	if len(group) < 2 {
		return false
	}
	density := func(c candidate) float64 {
		return c.saving / float64(p.Foot(c.b, l)) / float64(c.to-c.from+1)
	}
	slices.SortStableFunc(group, func(x, y candidate) int { return cmp.Compare(density(y), density(x)) })
	if smallFirst {
		slices.SortStableFunc(group, func(x, y candidate) int { return cmp.Compare(p.Foot(x.b, l), p.Foot(y.b, l)) })
	}
	group = group[:min(len(group), groupTries)]
	T := p.Prog.Timesteps()
	base := make([]int64, T)
	for t := range base {
		base[t] = -p.HW.Levels[l].Capacity
	}
	for _, it := range ls.its {
		for t := it.from; t <= it.to; t++ {
			base[t] += it.size
		}
	}
	for t := range base {
		// Above the capacity only where in-place pairs of different
		// footprints count twice: full, not over.
		base[t] = min(base[t], 0)
	}
	pool := r.victims(l, ls.its, func(int) bool { return false }) // candidates are not in l
	var joined []candidate
	var bestChosen []victim
	bestN, bestNet, saving := 0, 0.0, 0.0
	in := map[int]bool{}
	added := make([]int64, T)
	over := make([]int64, T)
	for _, c := range group {
		if ctx.Err() != nil {
			return false
		}
		if in[c.b] {
			continue // one run per block at a time
		}
		for t := c.from; t <= c.to; t++ {
			added[t] += p.Foot(c.b, l)
		}
		for t := range over {
			over[t] = base[t] + added[t]
		}
		chosen, lost, ok := r.cover(ls.its, pool, over, 0, math.Inf(1))
		if !ok {
			// No room can be made for it with the others: it stays out.
			for t := c.from; t <= c.to; t++ {
				added[t] -= p.Foot(c.b, l)
			}
			continue
		}
		in[c.b] = true
		saving += c.saving
		joined = append(joined, c)
		if saving-lost > bestNet {
			bestN, bestNet, bestChosen = len(joined), saving-lost, chosen
		}
	}
	promote := joined[:bestN]
	if len(promote) < 2 || len(bestChosen) == 0 {
		return false // one candidate alone is exchange's; none sent down: insertion's
	}
	return r.swapIn(ctx, l, promote, bestChosen, ls.its)
}

// swapIn sends the victims down (each to the fastest slower level with
// room for it, from the one cover priced it in, the room the candidates
// leave there counted: a victim may take a candidate's place; on the 82
// seed-model pairs 6 plans cheaper, resnet50-fp32 on the TPU v4 copy by
// 0.13%, one costlier by 0.02%) and packs l with the
// candidates promote and without the victims; it keeps the change if it
// packs and the layout's cost falls (repriced in full under a model that
// is not Separable). With no victims and one candidate it is a plain
// packing (try). The packer stops when ctx ends (its node budget aside),
// with the best packing it found, which is accepted on the same terms.
func (r *repacker) swapIn(ctx context.Context, l int, promote []candidate, chosen []victim, its []item) bool {
	p := r.p
	changed := map[int][]state.Seg{}
	// view is the layout the victims are placed in: the candidates out of
	// their old places (in l, where the victims are not placed), the
	// victims placed so far in theirs.
	view := map[int][]state.Seg{}
	for _, c := range promote {
		view[c.b] = r.promoted(c, r.lay.Segs[c.b], l, 0)
	}
	for _, v := range chosen {
		it := its[v.k]
		placed := false
		for m := v.to; m < p.Levels() && !placed; m++ {
			var f, a int64
			all := true
			for _, rf := range it.refs {
				all = all && p.Allowed(rf.b, m)
				f, a = max(f, p.Foot(rf.b, m)), max(a, p.Align(rf.b, m))
			}
			if !all {
				continue
			}
			off, ok := r.freeAt(m, it.from, it.to, f, a, view)
			if !ok {
				continue
			}
			// A chain's blocks keep one offset: in place there as here.
			for _, rf := range it.refs {
				changed[rf.b] = []state.Seg{r.down(rf.b, m, off)}
				view[rf.b] = changed[rf.b]
			}
			placed = true
		}
		if !placed {
			return false
		}
	}
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
	pp := &pack.Problem{Capacity: p.HW.Levels[l].Capacity, Buffers: make([]pack.Buffer, 0, len(rest)+len(promote))}
	for _, it := range rest {
		pp.Buffers = append(pp.Buffers, pack.Buffer{Lower: int64(it.from), Upper: int64(it.to) + 1, Size: it.size, Align: it.align})
	}
	for _, c := range promote {
		pp.Buffers = append(pp.Buffers, pack.Buffer{Lower: int64(c.from), Upper: int64(c.to) + 1, Size: p.Foot(c.b, l), Align: p.Align(c.b, l)})
	}
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
	for x, c := range promote {
		cs := segsOf(c.b)
		changed[c.b] = r.promoted(c, cs, l, sol.Offsets[len(rest)+x])
	}
	ids := make([]int, 0, len(changed))
	for b := range changed {
		ids = append(ids, b)
	}
	slices.Sort(ids) // a fixed order: the sum below must not depend on map order
	var delta float64
	var ch []costmodel.BlockChange
	merged := 0
	for _, b := range ids {
		segs, n := mergeSame(changed[b])
		changed[b] = segs
		merged += n
		if r.pr == nil {
			delta += r.model.BlockCost(p, b, segs) - r.model.BlockCost(p, b, r.lay.Segs[b])
		} else {
			ch = append(ch, costmodel.BlockChange{Block: b, Old: r.lay.Segs[b], New: segs})
		}
	}
	if r.pr != nil {
		delta = r.reprice(ch) - r.cost
	}
	if !(delta < 0) {
		return false
	}
	for _, b := range ids {
		r.lay.Segs[b] = changed[b]
	}
	r.cost += delta
	r.changed(ch)
	r.stats.Promoted += len(promote)
	r.stats.Exchanged += len(chosen)
	r.stats.Merged += merged
	return true
}

// freeAt returns the lowest offset of level m, aligned to a, where f bytes
// are free over timesteps [from, to] in the layout with the blocks of
// changed at their segments there.
func (r *repacker) freeAt(m, from, to int, f, a int64, changed map[int][]state.Seg) (int64, bool) {
	return r.firstFit(r.busyIn(m, from, to, changed), from, to, f, a, m)
}

// busyIn returns the spans of level m that overlap timesteps [from, to]
// in the layout with the blocks of changed at their segments there, by
// offset.
func (r *repacker) busyIn(m, from, to int, changed map[int][]state.Seg) []span {
	var busy []span
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
			busy = append(busy, span{from: int(s.OccStart()), to: end, off: s.Offset, size: r.p.Foot(b, m)})
		}
	}
	slices.SortFunc(busy, func(x, y span) int { return cmp.Compare(x.off, y.off) })
	return busy
}

// firstFit returns the lowest offset of level m, aligned to a, where f
// bytes overlap none of the spans busy (by offset) alive in [from, to].
func (r *repacker) firstFit(busy []span, from, to int, f, a int64, m int) (int64, bool) {
	var off int64
	for _, g := range busy {
		if g.to < from || g.from > to {
			continue
		}
		if off+f <= g.off {
			break
		}
		off = max(off, state.AlignUp(g.off+g.size, a))
	}
	return off, off+f <= r.p.HW.Levels[m].Capacity
}
