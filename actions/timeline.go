package actions

import (
	"cmp"
	"slices"

	"github.com/hieropt/hieropt/bounds"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// timelineInit is what the initializer knows under the timeline model
// (state.Problem.Timeline): where each constant is streamed from its home
// level, and the least time the ops take whatever the placement.
type timelineInit struct {
	// sp is, per block, the constant's stream point (its first read), or
	// -1 (not a constant, pinned, or never read).
	sp []int32
	// streams holds, per timestep, the constants whose stream point it is
	// after their first timestep, in block order: the initializer decides
	// at that timestep whether to copy them into a faster level.
	streams [][]int32
	// dsum holds the prefix sums of dmin(u) = max(c(u), m*(u)), op u's
	// least duration under any placement (bounds.Timeline's PerOp):
	// dsum[t] is the sum over u < t.
	dsum []float64
	// resident lists the constants the order makes resident (ResidentOrder),
	// with their segments, in block order.
	resident []residentSeg
	// margin is ResidentLevelsOrder's retry: its residents were chosen
	// again with a margin (residentLevels) after the initializer could
	// not place a block with the first choice.
	margin bool
}

// residentSeg is a resident constant and its only segment.
type residentSeg struct {
	b int
	s state.Seg
}

// residents chooses the resident constants of ResidentOrder's pre-pass:
// in the fastest level, the room is its capacity less the most bytes the
// blocks other than constants that may use it have live at one timestep
// (footprints there; in-place reuse not counted), times share. Constants
// that may live there and are not at home there (nor pinned) are taken by
// their saving per byte, the sum over their reads of out(home) - out(L),
// over their footprint in L (highest first, ties by block ID), each while
// the chosen ones' footprints fit the room; they are packed from the top
// of the level down (at their alignment), in that order, so that the
// initializer's best fit sees one free gap below them.
func residents(p *state.Problem, share float64) []residentSeg {
	const l = 0
	T := p.Prog.Timesteps()
	lv := &p.HW.Levels[l]
	delta := make([]int64, T+1)
	for b := range p.Blocks() {
		blk := p.Block(b)
		if blk.Kind != workload.Constant && p.Allowed(b, l) {
			delta[blk.First] += p.Foot(b, l)
			delta[blk.Last+1] -= p.Foot(b, l)
		}
	}
	var live, peak int64
	for t := range T {
		live += delta[t]
		peak = max(peak, live)
	}
	room := int64(float64(lv.Capacity-peak) * share)
	if room <= 0 {
		return nil
	}
	out, _ := packResidents(p, l, room, func(b int) bool { return p.Home(b) != l })
	slices.SortFunc(out, func(x, y residentSeg) int { return cmp.Compare(x.b, y.b) })
	return out
}

// residentLevels chooses the resident constants of ResidentLevelsOrder's
// pre-pass: level by level, fastest first, every writable level. In
// level l the room is its capacity less the most bytes the blocks other
// than constants that may use it need there at one timestep once the
// faster writable levels are full: their live footprints (in l) less
// what the faster levels leave them (each one's capacity less its
// resident constants), at least 0, and, below the fastest writable level,
// with margin less the largest such block's footprint (the faster
// levels' free space may be in gaps too small for it). In the fastest
// level that is ResidentOrder's room. The constants not yet resident, not pinned, read,
// that may live in l and whose home is slower than l are taken by their
// saving per byte there, the sum over their reads of out(home) - out(l),
// over their footprint in l (highest first, ties by block ID), each while
// the chosen ones' footprints fit the room, packed from the top of the
// level down as in residents. Each constant is resident in one level at
// most.
func residentLevels(p *state.Problem, margin bool) []residentSeg {
	T := p.Prog.Timesteps()
	taken := make([]bool, p.Blocks())
	var out []residentSeg
	var left int64  // what the faster writable levels leave the other blocks
	faster := false // a writable level faster than l was seen
	live := make([]int64, T+1)
	for l := range p.Levels() {
		lv := &p.HW.Levels[l]
		if lv.ReadOnly {
			continue
		}
		clear(live)
		var largest int64
		for b := range p.Blocks() {
			blk := p.Block(b)
			if blk.Kind != workload.Constant && p.Allowed(b, l) {
				live[blk.First] += p.Foot(b, l)
				live[blk.Last+1] -= p.Foot(b, l)
				largest = max(largest, p.Foot(b, l))
			}
		}
		var cur, peak int64
		for t := range T {
			cur += live[t]
			peak = max(peak, cur-left)
		}
		room := lv.Capacity - peak
		if faster && margin {
			// What the faster levels were to hold may not fit there
			// for want of one free gap large enough: room for the
			// largest block is kept.
			room -= largest
		}
		faster = true
		chosen, end := packResidents(p, l, room, func(b int) bool { return !taken[b] && p.Home(b) > l })
		for _, r := range chosen {
			taken[r.b] = true
		}
		out = append(out, chosen...)
		left += end
	}
	slices.SortFunc(out, func(x, y residentSeg) int { return cmp.Compare(x.b, y.b) })
	return out
}

// packResidents chooses the resident constants of level l, as residents
// and residentLevels say: among the constants not pinned, read, that may
// live in l and that eligible admits, by their saving per byte in l (the
// sum over their reads of out(home) - out(l), over their footprint in l;
// highest first, ties by block ID), each while the chosen ones fit in
// room, packed from the top of l down. It returns them in the order
// chosen, and the lowest offset they take (l's capacity if none).
func packResidents(p *state.Problem, l int, room int64, eligible func(b int) bool) ([]residentSeg, int64) {
	lv := &p.HW.Levels[l]
	type cand struct {
		b    int
		gain float64
	}
	var cs []cand
	for b := range p.Blocks() {
		blk := p.Block(b)
		if blk.Kind != workload.Constant || p.Pin(b) != state.NoPin || !p.Allowed(b, l) || len(blk.Reads) == 0 || !eligible(b) {
			continue
		}
		home := &p.HW.Levels[p.Home(b)]
		gain := float64(len(blk.Reads)) * (home.Out.Time(blk.Size) - lv.Out.Time(blk.Size))
		if gain > 0 {
			cs = append(cs, cand{b, gain / float64(p.Foot(b, l))})
		}
	}
	slices.SortStableFunc(cs, func(x, y cand) int { return cmp.Or(cmp.Compare(y.gain, x.gain), cmp.Compare(x.b, y.b)) })
	var out []residentSeg
	end := lv.Capacity
	for _, c := range cs {
		off := state.AlignDown(end-p.Foot(c.b, l), p.Align(c.b, l))
		if off < 0 || lv.Capacity-off > room {
			continue
		}
		out = append(out, residentSeg{c.b, state.Seg{From: int32(p.Block(c.b).First), Level: int32(l), Offset: off, Lead: state.Resident}})
		end = off
	}
	return out, end
}

// newTimelineInit precomputes the stream points and dmin of p.
func newTimelineInit(p *state.Problem) *timelineInit {
	T := p.Prog.Timesteps()
	ti := &timelineInit{sp: make([]int32, p.Blocks()), streams: make([][]int32, T), dsum: make([]float64, T+1)}
	for b := range ti.sp {
		ti.sp[b] = -1
		blk := p.Block(b)
		if blk.Kind != workload.Constant || p.Pin(b) != state.NoPin || len(blk.Reads) == 0 {
			continue
		}
		sp := slices.Min(blk.Reads)
		ti.sp[b] = int32(sp)
		if sp > blk.First {
			ti.streams[sp] = append(ti.streams[sp], int32(b))
		}
	}
	perOp := p.Memo(dminKey{}, func() any { return dmin(p) }).([]float64)
	for u := range T {
		ti.dsum[u+1] = ti.dsum[u] + perOp[u]
	}
	return ti
}

// dminKey is the key of dmin's value in state.Problem.Memo: every
// initializer of a problem (the search's starts, the plan's check of
// cost.initial) shares it.
type dminKey struct{}

// dmin returns dmin(u) per op: the timeline bound's per-op term; where its
// linear programs fail, c(u) alone (still a lower bound of the op's
// duration).
func dmin(p *state.Problem) []float64 {
	if tb, err := bounds.Timeline(p); err == nil {
		return tb.PerOp
	}
	perOp := make([]float64, p.Prog.Timesteps())
	for u := range perOp {
		perOp[u] = bounds.ComputeTime(p.HW, &p.Prog.Ops[u])
	}
	return perOp
}

// StreamPoint returns, under the timeline model, the timestep at which
// the initializer decides whether constant b is copied from its home
// into a faster level (its first read), or -1 when it never is (a block
// other than a constant, a pinned constant, one never read, or not the
// timeline model).
func (in *Initializer) StreamPoint(b int) int {
	if in.tl == nil {
		return -1
	}
	return int(in.tl.sp[b])
}

// Streams returns, under the timeline model, the constants whose stream
// point is timestep t, after their first timestep, in block order: those
// Stream decides at t. The slice must not be modified.
func (in *Initializer) Streams(t int) []int32 {
	if in.tl == nil {
		return nil
	}
	return in.tl.streams[t]
}

// placeConstant puts constant b, created at t, under the timeline model:
// at its first timestep a constant is in its home level (no load), unless
// it is read there and loading it into a faster level pays (decide);
// where its home has no room, the levels fastest first, as Place does.
func (in *Initializer) placeConstant(occ *state.Occupancy, v state.View, b, t int, w *lookback) (state.Seg, bool) {
	p := in.p
	home := p.Home(b)
	if int(in.tl.sp[b]) == t {
		if s, ok := in.decide(occ, v, b, t, -1, w); ok {
			return s, true
		}
	}
	if p.Allowed(b, home) {
		if off, ok := BestFit(occ, b, home); ok {
			occ.Place(b, home, off)
			return state.Seg{From: int32(t), Level: int32(home), Offset: off}, true
		}
	}
	pos, ok := in.Place(occ, v, b, t)
	return state.Seg{From: int32(t), Level: pos.Level, Offset: pos.Offset}, ok
}

// decide looks for a copy of constant b from its home into a faster level
// at timestep at (its stream point, or its first timestep for a load),
// the source segment starting at from (-1 for a load, which has none).
// For the levels faster than its home, fastest first, that take a copy
// (Problem.CopyInto), it takes the best fit at at and the earliest start
// the free-since log allows,
//
//	s* = max(FreeSince(range), from, at - Horizon, 0),
//
// and keeps the first whose local estimate pays: the saving, the sum
// over b's reads of out(home) - out(L), exceeds the exposed copy time,
// max(0, x - sum over u in [s*, at-1] of dmin(u)), x = out(home) +
// in(L). The ops' time is counted in dmin (placement-independent: see
// timelineInit.dsum), and the exposed time is what the copy adds to the
// end of op at in a simulation of the 2*Horizon ops before it with the
// copies of v there, queued with them on the DMA channels: a copy issued
// early delays the copies issued after it (see lateness). With no other
// copy, that is exactly the formula above. Then b is placed there in occ (busy from at; its reservation
// [s*, at-1] overlaps nothing, by the log's invariant) and the segment
// returned; occ is unchanged otherwise. w is the walk's lookback, entered
// at at (it holds the copies before at, and the simulation's buffers).
func (in *Initializer) decide(occ *state.Occupancy, v state.View, b, at, from int, w *lookback) (state.Seg, bool) {
	p := in.p
	home := p.Home(b)
	blk := p.Block(b)
	hl := &p.HW.Levels[home]
	var cs []pending
	var base float64
	for l := 0; l < home; l++ {
		if !p.Allowed(b, l) || !p.CopyInto(l) {
			continue
		}
		off, ok := BestFit(occ, b, l)
		if !ok {
			continue
		}
		f := p.Foot(b, l)
		s := max(occ.FreeSince(l, off, off+f), from, at-p.Horizon(), 0)
		lv := &p.HW.Levels[l]
		saving := float64(len(blk.Reads)) * (hl.Out.Time(blk.Size) - lv.Out.Time(blk.Size))
		x := hl.Out.Time(blk.Size) + lv.In.Time(blk.Size)
		lo := max(0, at-2*p.Horizon())
		if cs == nil {
			cs = in.appendCopies(append(w.cs[:0], w.before(in, v)...), v, at)
			w.cs = cs
			slices.SortFunc(cs, pendingOrder(lo))
			base = w.lateness(in, cs, lo, at)
		}
		exposed := w.latenessWith(in, cs, pending{s, at, p.Rank(b), x}, lo, at) - base
		if saving > exposed {
			occ.Place(b, l, off)
			return state.Seg{From: int32(at), Level: int32(l), Offset: off, Lead: int32(at - s)}, true
		}
	}
	return state.Seg{}, false
}

// Stream makes, under the timeline model, the initializer's stream
// decisions of timestep t (Step makes them after placing the blocks
// created at t): each constant whose stream point is t (Streams), in
// block order, still in its home level there, is copied into the
// fastest level where the copy pays (decide), its source released. v
// records the transfer. Nothing happens under the other models.
func (in *Initializer) Stream(occ *state.Occupancy, v state.View, t int) {
	if in.tl == nil {
		return
	}
	in.stream(occ, v, t, &lookback{t: t})
}

// stream is Stream with the walk's lookback w, entered at t.
func (in *Initializer) stream(occ *state.Occupancy, v state.View, t int, w *lookback) {
	p := in.p
	for _, bi := range in.tl.streams[t] {
		b := int(bi)
		segs := v.BlockSegs(b)
		if len(segs) == 0 {
			continue
		}
		n := 0
		for n < len(segs) && int(segs[n].From) < t {
			n++
		}
		src := segs[n-1]
		if int(src.Level) != p.Home(b) || src.IsResident() {
			continue
		}
		if n < len(segs) {
			// An earlier plan's copies from t on (the search re-plans
			// over a parent's plan): dropped, with the reservation the
			// occupancy may hold for the one at t, and decided again.
			if int(segs[n].Start()) < t {
				occ.Release(b, int(segs[n].Level), segs[n].Offset)
			}
			segs = slices.Clone(segs[:n])
			v.Set(b, segs)
		}
		s, ok := in.decide(occ, v, b, t, int(src.From), w)
		if !ok {
			continue
		}
		occ.Drop(b, int(src.Level), src.Offset) // busy until t-1
		v.Set(b, append(slices.Clone(segs), s))
	}
}

// replayTimeline is Replay's part under the timeline model, between the
// releases of the blocks that died at t-1 and the placements of the
// blocks created at t: the reservations that begin at t (a copy's or a
// load's destination from its start; at timestep 0 the resident
// constants). The copies at t are copyAt's.
func (in *Initializer) replayTimeline(occ *state.Occupancy, v state.View, t int) {
	p := in.p
	T := p.Prog.Timesteps()
	if t == 0 {
		for b := range p.Blocks() {
			if segs := v.BlockSegs(b); len(segs) == 1 && segs[0].IsResident() {
				occ.Place(b, int(segs[0].Level), segs[0].Offset)
			}
		}
	}
	for u := t + 1; u < T && u <= t+p.Horizon(); u++ {
		for _, bi := range p.Touched(u) {
			b := int(bi)
			for _, s := range v.BlockSegs(b) {
				if int(s.From) == u && s.Lead > 0 && int(s.Start()) == t {
					occ.Place(b, int(s.Level), s.Offset)
				}
			}
		}
	}
}

// copyAt is Replay's last part under the timeline model: the copies at t
// (a transfer's segment that begins at t): each source is released (it was
// busy until t-1), then each destination not reserved before is placed.
func (in *Initializer) copyAt(occ *state.Occupancy, v state.View, t int) {
	p := in.p
	for _, bi := range p.Touched(t) {
		b := int(bi)
		segs := v.BlockSegs(b)
		for i := 1; i < len(segs); i++ {
			if int(segs[i].From) == t {
				occ.Drop(b, int(segs[i-1].Level), segs[i-1].Offset)
			}
		}
	}
	for _, bi := range p.Touched(t) {
		b := int(bi)
		segs := v.BlockSegs(b)
		for i := 1; i < len(segs); i++ {
			if int(segs[i].From) == t && segs[i].Lead == 0 {
				occ.Place(b, int(segs[i].Level), segs[i].Offset)
			}
		}
	}
}

// pending is a copy as the lateness estimate sees it: its start and
// timestep, its block's rank in name order, its time.
type pending struct {
	start, at, rank int
	x               float64
}

// pendingOrder is the order in which lateness issues copies: by start (lo
// for one issued before), timestep, name. No two copies of a view compare
// equal (a block has one segment per timestep).
func pendingOrder(lo int) func(a, b pending) int {
	return func(a, b pending) int {
		if sa, sb := max(a.start, lo), max(b.start, lo); sa != sb {
			return cmp.Compare(sa, sb)
		}
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.rank, b.rank)
	}
}

// appendCopies appends to cs the copies v has at timestep u (the
// initializer's streams and loads, the search's transfers and prefetches).
func (in *Initializer) appendCopies(cs []pending, v state.View, u int) []pending {
	p := in.p
	levels := p.HW.Levels
	for _, bi := range p.Touched(u) {
		b := int(bi)
		segs := v.BlockSegs(b)
		blk := p.Block(b)
		for i, s := range segs {
			if int(s.From) != u {
				continue
			}
			switch {
			case i > 0:
				cs = append(cs, pending{int(s.Start()), u, p.Rank(b), levels[segs[i-1].Level].Out.Time(blk.Size) + levels[s.Level].In.Time(blk.Size)})
			case blk.Kind == workload.Constant && int(s.Level) != p.Home(b) && !s.IsResident():
				cs = append(cs, pending{int(s.Start()), u, p.Rank(b), levels[p.Home(b)].Out.Time(blk.Size) + levels[s.Level].In.Time(blk.Size)})
			}
		}
	}
	return cs
}

// A Walk runs the initializer's Steps over the timesteps of one
// occupancy and view in turn (Run's loop, the search's re-planning). Under
// the timeline model it keeps, from one Step to the next, the copies of
// the timesteps that decide's estimate looks back at, where Step alone
// collects them again at each decision; the decisions are the same. The
// view's segments that begin before a Step's timestep must not change
// between the walk's Steps but by them (a Step changes only segments
// that begin at its timestep or later); a Step at another timestep than
// the one after the last collects them afresh. A Walk is for one
// goroutine at a time.
type Walk struct {
	in  *Initializer
	win lookback
}

// NewWalk returns a walk of in.
func (in *Initializer) NewWalk() *Walk {
	return &Walk{in: in, win: lookback{t: -1}}
}

// Step is Initializer.Step within the walk.
func (w *Walk) Step(occ *state.Occupancy, v state.View, t int) error {
	return w.in.step(occ, v, t, &w.win)
}

// lookback is what decide looks back at during a walk at timestep t: the
// copies the view has at timesteps [max(0, t - 2*Horizon), t-1] (once
// collected), and the lateness simulation's buffers.
type lookback struct {
	guide guideLoad // the guide's load in this walk (see guide)
	t     int
	valid bool      // past holds the copies before t
	past  []pending // in timestep order
	cs    []pending // decide's copies, sorted
	buf   []pending // those and the candidate
	free  []float64 // per DMA channel, when it is free
	ready []float64 // per op from lo, when its copies are done
}

// enter moves w to timestep t of v: when it held the copies before t-1,
// those of t-1 join them and those before t - 2*Horizon leave; otherwise
// they are collected when first needed (before).
func (w *lookback) enter(in *Initializer, v state.View, t int) {
	if w.valid && w.t == t-1 {
		w.past = in.appendCopies(w.past, v, t-1)
		lo := max(0, t-2*in.p.Horizon())
		i := 0
		for i < len(w.past) && w.past[i].at < lo {
			i++
		}
		w.past = w.past[:copy(w.past, w.past[i:])]
	} else {
		w.valid = false
	}
	w.t = t
}

// before returns the copies v has at timesteps [max(0, t - 2*Horizon),
// t-1], t the lookback's timestep.
func (w *lookback) before(in *Initializer, v state.View) []pending {
	if !w.valid {
		w.past = w.past[:0]
		for u := max(0, w.t-2*in.p.Horizon()); u < w.t; u++ {
			w.past = in.appendCopies(w.past, v, u)
		}
		w.valid = true
	}
	return w.past
}

// latenessWith is lateness with the copy e among cs (sorted by
// pendingOrder(lo)): inserted at its place, or, where it compares equal
// to one of them (a stale copy of its own block at its timestep, which a
// re-planned view may still hold), appended and the whole sorted again,
// so that the two come in the order that sort gives them.
func (w *lookback) latenessWith(in *Initializer, cs []pending, e pending, lo, at int) float64 {
	ord := pendingOrder(lo)
	i, found := slices.BinarySearchFunc(cs, e, ord)
	buf := append(w.buf[:0], cs...)
	if found {
		buf = append(buf, e)
		slices.SortFunc(buf, ord)
	} else {
		buf = slices.Insert(buf, i, e)
	}
	w.buf = buf
	return w.lateness(in, buf, lo, at)
}

// lateness simulates FORMATS.md 6.3's timeline over ops lo .. at with
// every op taking dmin and the copies cs (sorted by pendingOrder(lo)):
// issued at their start (lo for one issued before) in that order on the
// channel free first, each op waiting for the copies of its timestep. It
// returns when op at ends. With one copy alone the difference it makes is
// max(0, x - the sum of dmin over [start, at-1]).
func (w *lookback) lateness(in *Initializer, cs []pending, lo, at int) float64 {
	free := w.free[:0]
	for range in.p.HW.Channels() {
		free = append(free, 0)
	}
	w.free = free
	ready := w.ready[:0]
	for range at - lo + 1 {
		ready = append(ready, 0)
	}
	w.ready = ready
	dsum := in.tl.dsum
	r := 0.0
	k := 0
	for u := lo; u <= at; u++ {
		for ; k < len(cs) && max(cs[k].start, lo) == u; k++ {
			j := 0
			for c := range free {
				if free[c] < free[j] {
					j = c
				}
			}
			free[j] = max(r, free[j]) + cs[k].x
			ready[cs[k].at-lo] = max(ready[cs[k].at-lo], free[j])
		}
		r = max(r, ready[u-lo]) + dsum[u+1] - dsum[u]
	}
	return r
}
