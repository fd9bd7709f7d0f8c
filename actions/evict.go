package actions

import (
	"cmp"
	"slices"

	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// The evict action is hieropt's addition to the seed's action set. The
// initializer loads constants into the fast levels at timestep 0 (their
// first placement is free: they are loaded before the program runs), and
// there they sit until their use, often long after. A large activation or
// scratch block created later then finds the fast level full and goes to a
// slow one, and no single move, swap or reuse at its timestep can help:
// the constants in the way are not blocks of that timestep. Evict places
// the block in a faster level over a window of free space and constants,
// and sends those constants to the slowest level for their whole life, as
// if they had been loaded there: to the fastest slower level with an
// address range that no block uses at any timestep. Their earlier timesteps only lose a
// block, so nothing committed before is disturbed; the cost model charges
// their reads from the slower level.

// EvictSpace finds room for evicted constants: in level l, the lowest
// offset, aligned to align, of size bytes, that is free at every timestep
// of the plan and overlaps none of the ranges in taken.
type EvictSpace func(l int, size, align int64, taken []state.Gap) (int64, bool)

// Evictable reports whether constant c can be evicted at timestep t: a
// constant placed once (no transfers; under the timeline model, neither
// loaded before its first timestep nor resident), not read before t, and
// not pinned.
func Evictable(p *state.Problem, v state.View, c, t int) bool {
	blk := p.Block(c)
	if blk.Kind != workload.Constant || p.Pin(c) != state.NoPin {
		return false
	}
	segs := v.BlockSegs(c)
	if len(segs) != 1 || segs[0].Lead != 0 || blk.Last < t {
		return false // under the timeline model: not loaded early, not resident
	}
	return len(blk.Reads) == 0 || blk.Reads[0] >= t
}

type window struct {
	off     int64
	cost    float64
	evicted []int
}

// piece is a stretch of a level in address order: a busy span (evictable
// or not) or a gap.
type piece struct {
	off, end int64
	block    int // -1 for a gap
	evict    bool
}

// free reports whether a window may cover the piece: a gap, or a constant
// it can evict.
func (pc piece) free() bool { return pc.block < 0 || pc.evict }

// evictor is one call of EnumerateEvict: block b at timestep t.
type evictor struct {
	p     *state.Problem
	occ   *state.Occupancy
	v     state.View
	b, t  int
	o     Options
	price func(c, l int) float64
	space EvictSpace
	// noneTaken is a per-level list of taken ranges, all empty.
	noneTaken [][]state.Gap
}

// EnumerateEvict calls emit for the cheapest ways (at most o.Max per level;
// zero or negative: no cap) to put block b, at timestep t, into a level
// faster than its current one over a window of free gaps and evictable
// constants. Each constant goes, for its whole life, to the fastest slower
// level with room for it at every timestep. price(c, l) is what sending
// constant c to level l adds to the plan's cost; windows are ranked by
// the sum, then by address. occ is the state of t with b detached; it is
// only read.
func EnumerateEvict(occ *state.Occupancy, v state.View, b, t int, o Options, price func(c, l int) float64, space EvictSpace, emit func(Candidate)) {
	p := occ.Problem()
	e := &evictor{p: p, occ: occ, v: v, b: b, t: t, o: o, price: price, space: space, noneTaken: make([][]state.Gap, p.Levels())}
	cur := state.SegAt(v.BlockSegs(b), t).Pos()
	for l := 0; l < int(cur.Level); l++ {
		if p.Allowed(b, l) && MayEnter(p, b, l, t) {
			e.emitLevel(cur, l, e.windows(l, e.pieces(l)), emit)
		}
	}
}

// target returns where constant c evicted from level l would go, avoiding
// taken (per level), or ok = false.
func (e *evictor) target(c, l int, taken [][]state.Gap) (state.Pos, bool) {
	p := e.p
	for to := l + 1; to < p.Levels(); to++ {
		if !p.Allowed(c, to) || !MayEnter(p, c, to, p.Block(c).First) {
			continue // its whole life there: a first placement
		}
		if p.Timeline() && to != p.Home(c) {
			continue // under the timeline model a constant goes back home (no load)
		}
		if off, ok := e.space(to, p.Foot(c, to), p.Align(c, to), taken[to]); ok {
			return state.Pos{Level: int32(to), Offset: off}, true
		}
	}
	return state.Pos{}, false
}

// pieces returns level l in address order: its busy spans, each marked
// evictable or not (a constant that can go to a slower level, within the
// horizon), and the gaps between them.
func (e *evictor) pieces(l int) []piece {
	var pieces []piece
	pos := int64(0)
	capacity := e.p.HW.Levels[l].Capacity
	e.occ.Spans(l, func(s state.Span) bool {
		if s.Off > pos {
			pieces = append(pieces, piece{pos, s.Off, -1, false})
		}
		c := int(s.Block)
		evict := c != e.b && Evictable(e.p, e.v, c, e.t) && (e.o.Horizon <= 0 || e.p.Block(c).Last <= e.t+e.o.Horizon)
		if evict {
			_, evict = e.target(c, l, e.noneTaken)
		}
		pieces = append(pieces, piece{s.Off, s.End, c, evict})
		pos = s.End
		return true
	})
	if pos < capacity {
		pieces = append(pieces, piece{pos, capacity, -1, false})
	}
	return pieces
}

// windows returns the windows of level l that hold block b and evict
// something, one from each free piece, cheapest first (then by address).
func (e *evictor) windows(l int, pieces []piece) []window {
	var found []window
	f, a := e.p.Foot(e.b, l), e.p.Align(e.b, l)
	for i := range pieces {
		if w, ok := e.windowAt(l, f, a, pieces, i); ok {
			found = append(found, w)
		}
	}
	slices.SortStableFunc(found, func(x, y window) int {
		return cmp.Or(cmp.Compare(x.cost, y.cost), cmp.Compare(x.off, y.off))
	})
	return found
}

// windowAt returns the window of level l that starts in pieces[i] (at its
// offset aligned to a) and covers free pieces up to b's footprint f, with
// the constants it evicts and their price; false if the piece is busy, the
// window meets a busy piece, or it evicts nothing.
func (e *evictor) windowAt(l int, f, a int64, pieces []piece, i int) (window, bool) {
	if !pieces[i].free() {
		return window{}, false
	}
	w := window{off: state.AlignUp(pieces[i].off, a)}
	for _, pc := range pieces[i:] {
		if !pc.free() {
			return window{}, false
		}
		if pc.evict && pc.end > w.off { // the window covers it
			to, _ := e.target(pc.block, l, e.noneTaken)
			w.cost += e.price(pc.block, int(to.Level))
			w.evicted = append(w.evicted, pc.block)
		}
		if pc.end >= w.off+f {
			return w, len(w.evicted) > 0
		}
	}
	return window{}, false
}

// emitLevel emits the candidates of level l's windows, cheapest first, up
// to o.Max; a window whose constants do not all find room together is
// left out.
func (e *evictor) emitLevel(cur state.Pos, l int, found []window, emit func(Candidate)) {
	n := 0
	for _, w := range found {
		c, ok := e.candidate(cur, l, w)
		if !ok {
			continue
		}
		emit(c)
		n++
		if e.o.Max > 0 && n >= e.o.Max {
			return
		}
	}
}

// candidate returns the evict candidate of window w of level l: b goes to
// the window, each constant it covers to the fastest slower level with
// room for it beside those evicted before it; false if one finds none.
func (e *evictor) candidate(cur state.Pos, l int, w window) (Candidate, bool) {
	c := Candidate{Kind: Evict, Block: e.b, At: e.t, From: cur, To: state.Pos{Level: int32(l), Offset: w.off}, Reused: -1}
	taken := make([][]state.Gap, e.p.Levels())
	for _, ev := range w.evicted {
		to, fits := e.target(ev, l, taken)
		if !fits {
			return Candidate{}, false
		}
		c.Evicted = append(c.Evicted, Eviction{Block: ev, To: to})
		lt := int(to.Level)
		taken[lt] = append(taken[lt], state.Gap{Off: to.Offset, End: to.Offset + e.p.Foot(ev, lt)})
	}
	return c, true
}
