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
	type cand struct {
		b    int
		gain float64
	}
	var cs []cand
	for b := range p.Blocks() {
		blk := p.Block(b)
		if blk.Kind != workload.Constant || p.Pin(b) != state.NoPin || !p.Allowed(b, l) || p.Home(b) == l || len(blk.Reads) == 0 {
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
		out = append(out, residentSeg{c.b, state.Seg{From: int32(p.Block(c.b).First), Level: l, Offset: off, Lead: state.Resident}})
		end = off
	}
	slices.SortFunc(out, func(x, y residentSeg) int { return cmp.Compare(x.b, y.b) })
	return out
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
	// dmin: the timeline bound's per-op term; where its linear programs
	// fail, c(u) alone (still a lower bound of the op's duration).
	var perOp []float64
	if tb, err := bounds.Timeline(p); err == nil {
		perOp = tb.PerOp
	} else {
		perOp = make([]float64, T)
		for u := range T {
			perOp[u] = bounds.ComputeTime(p.HW, &p.Prog.Ops[u])
		}
	}
	for u := range T {
		ti.dsum[u+1] = ti.dsum[u] + perOp[u]
	}
	return ti
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
func (in *Initializer) placeConstant(occ *state.Occupancy, v state.View, b, t int) (state.Seg, bool) {
	p := in.p
	home := p.Home(b)
	if int(in.tl.sp[b]) == t {
		if s, ok := in.decide(occ, v, b, t, -1); ok {
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
// returned; occ is unchanged otherwise.
func (in *Initializer) decide(occ *state.Occupancy, v state.View, b, at, from int) (state.Seg, bool) {
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
			cs = in.recent(v, lo, at)
			base = in.lateness(cs, nil, lo, at)
		}
		exposed := in.lateness(cs, &pending{s, at, p.Rank(b), x}, lo, at) - base
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
		s, ok := in.decide(occ, v, b, t, int(src.From))
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

// recent returns the copies v has whose timestep lies in [from, to] (the
// initializer's streams and loads, the search's transfers and prefetches).
func (in *Initializer) recent(v state.View, from, to int) []pending {
	p := in.p
	levels := p.HW.Levels
	var cs []pending
	for u := max(0, from); u <= to; u++ {
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
	}
	return cs
}

// lateness simulates FORMATS.md 6.3's timeline over ops lo .. at with
// every op taking dmin and the copies cs (and extra, if not nil): issued
// at their start (lo for one issued before) in the order (start,
// timestep, name) on the channel free first, each op waiting for the
// copies of its timestep. It returns when op at ends. With one copy alone
// the difference it makes is max(0, x - the sum of dmin over [start,
// at-1]). cs is reordered.
func (in *Initializer) lateness(cs []pending, extra *pending, lo, at int) float64 {
	if extra != nil {
		cs = append(cs[:len(cs):len(cs)], *extra)
	}
	slices.SortFunc(cs, func(a, b pending) int {
		return cmp.Or(cmp.Compare(max(a.start, lo), max(b.start, lo)), cmp.Compare(a.at, b.at), cmp.Compare(a.rank, b.rank))
	})
	free := make([]float64, in.p.HW.Channels())
	ends := make([]float64, len(cs))
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
			ends[k] = free[j]
		}
		ready := r
		for i := range k {
			if cs[i].at == u {
				ready = max(ready, ends[i])
			}
		}
		r = ready + in.tl.dsum[u+1] - in.tl.dsum[u]
	}
	return r
}
