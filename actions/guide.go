package actions

import (
	"fmt"
	"slices"

	"github.com/hieropt/hieropt/state"
)

// guide steers the initializer by a plan of levels made elsewhere (the
// whole-program bound's cheapest paths: BoundOrder). Each block has a
// level, its guide; the guide's load is, per level and timestep, the
// footprints of the blocks guided there and alive then (a reusable block
// not at its last timestep, where a block created then may take its
// space): the room the guided plan would take.
//
// A walk of the initializer keeps the load of its own state (guideLoad):
// the guide's load with each block placed elsewhere than its guide moved
// to the level it is in, for the rest of its life (the initializer never
// moves a block). A block goes to the fastest level where it fits and
// where the load, with it, stays within the capacity at every timestep of
// its life: the room later blocks are guided to is kept for them. Where no
// level passes that test, it goes by the guide (its level, then the slower
// ones, then the faster ones) wherever it fits.
type guide struct {
	level []int8
	load  []int64 // at l*T+t
	// before lists per timestep t the blocks made before t whose bytes
	// count at t (at before[at[t]:at[t+1]]): those whose level a walk
	// from t reads from the layout.
	before []int32
	at     []int32
}

// SetGuide guides the initializer by a level per block (see guide); nil
// removes the guide. Under the timeline model there is no guide: it
// panics.
func (in *Initializer) SetGuide(level []int8) {
	p := in.p
	if level == nil {
		in.guide = nil
		return
	}
	if len(level) != p.Blocks() || in.tl != nil {
		panic(fmt.Sprintf("actions: a guide of %d levels for %d blocks (timeline model: %v)", len(level), p.Blocks(), in.tl != nil))
	}
	T := p.Prog.Timesteps()
	g := &guide{level: slices.Clone(level), load: make([]int64, p.Levels()*T)}
	g.at = make([]int32, T+1)
	for b, l := range g.level {
		g.add(p, b, int(l), p.Block(b).First, 1)
		for t := p.Block(b).First + 1; t <= bytesEnd(p, b); t++ {
			g.at[t+1]++
		}
	}
	for t := 0; t < T; t++ {
		g.at[t+1] += g.at[t]
	}
	g.before = make([]int32, g.at[T])
	fill := slices.Clone(g.at[:T])
	for b := range g.level {
		for t := p.Block(b).First + 1; t <= bytesEnd(p, b); t++ {
			g.before[fill[t]] = int32(b)
			fill[t]++
		}
	}
	in.guide = g
}

// add adds sign times block b's footprint in level l to load, from
// timestep from to the end of its bytes.
func (g *guide) add(p *state.Problem, b, l, from int, sign int64) {
	g.addTo(g.load, p, b, l, from, sign)
}

func (g *guide) addTo(load []int64, p *state.Problem, b, l, from int, sign int64) {
	T := p.Prog.Timesteps()
	f := sign * p.Foot(b, l)
	for t := from; t <= bytesEnd(p, b); t++ {
		load[l*T+t] += f
	}
}

// bytesEnd is the last timestep at which block b's bytes count: its last,
// or the one before for a reusable block (the whole-program bound's rule).
func bytesEnd(p *state.Problem, b int) int {
	blk := p.Block(b)
	if blk.Reusable {
		return blk.Last - 1
	}
	return blk.Last
}

// guideLoad is a walk's load (see guide): valid from timestep t on, or
// not made yet if t < 0.
type guideLoad struct {
	t    int
	load []int64
}

// place puts block b, created at t, into occ: Place's rules, unless
// there is a guide (see guide).
func (in *Initializer) place(occ *state.Occupancy, v state.View, b, t int, w *lookback) (state.Pos, bool) {
	g := in.guide
	if g == nil {
		return in.Place(occ, v, b, t)
	}
	p := in.p
	L, T := p.Levels(), p.Prog.Timesteps()
	gl := &w.guide
	if gl.load == nil || gl.t < 0 || gl.t > t {
		// The walk's first placement: the blocks made before t are where v
		// has them at t-1, for the rest of their lives.
		gl.load = append(gl.load[:0], g.load...)
		for _, ai := range g.before[g.at[t]:g.at[t+1]] {
			a := int(ai)
			if l := int(state.SegAt(v.BlockSegs(a), t-1).Level); l != int(g.level[a]) {
				g.addTo(gl.load, p, a, int(g.level[a]), t, -1)
				g.addTo(gl.load, p, a, l, t, 1)
			}
		}
	}
	gl.t = t
	gb := int(g.level[b])
	fits := func(l int) bool {
		need := p.Foot(b, l)
		if l == gb {
			need = 0 // the load holds it already
		}
		c := p.HW.Levels[l].Capacity
		for u := t; u <= bytesEnd(p, b); u++ {
			if gl.load[l*T+u]+need > c {
				return false
			}
		}
		return true
	}
	pos, ok := state.Pos{}, false
	for l := 0; l < L && !ok; l++ {
		if fits(l) {
			pos, ok = in.placeIn(occ, v, b, l, t)
		}
	}
	for k := 0; k < L && !ok; k++ {
		l := gb + k // the guide's level, the slower ones, then the faster
		if l >= L {
			l = gb - 1 - (l - L)
		}
		pos, ok = in.placeIn(occ, v, b, l, t)
	}
	if ok && int(pos.Level) != gb {
		g.addTo(gl.load, p, b, gb, t, -1)
		g.addTo(gl.load, p, b, int(pos.Level), t, 1)
	}
	return pos, ok
}

// Place is Initializer.Place within the walk: with a guide, the walk's
// load decides (see guide).
func (w *Walk) Place(occ *state.Occupancy, v state.View, b, t int) (state.Pos, bool) {
	return w.in.place(occ, v, b, t, &w.win)
}
