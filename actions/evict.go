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
//
// Under the timeline model (FORMATS.md section 6) a first placement
// outside a constant's home is a load, so evict sends constants home (no
// load); and an activation idle at t in the window (IdleEvictable: not
// read or written at t, created before and alive after it, a residual or
// a KV cache) is copied out of the way: a transfer at t to the fastest
// slower level that takes a copy, at a position free at t, whose copy is
// issued early, at the earliest start the rules allow (after its last
// write, its source segment's start and the destination range's last use,
// within the horizon: prefetchLeads) or at the start that just hides it
// behind the ops before t, so that it runs while they compute instead of
// stalling op t (FORMATS.md rules 8 and 9). Its later reads come from the
// slower level until a later action (prefetch at its next read) brings it
// back; the search re-plans until it dies.

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

// IdleEvictable reports whether block a can be copied out of the way at
// timestep t, under the timeline model only: an idle activation, that is
// a block other than a constant, not pinned, created before t and alive
// after it, neither read nor written at t, whose segment at t is its last
// and began before t (no copy of it at t or later).
func IdleEvictable(p *state.Problem, v state.View, a, t int) bool {
	blk := p.Block(a)
	if !p.Timeline() || blk.Kind == workload.Constant || p.Pin(a) != state.NoPin || blk.First >= t || blk.Last <= t {
		return false
	}
	if _, read := slices.BinarySearch(blk.Reads, t); read {
		return false
	}
	if _, written := slices.BinarySearch(blk.Writes, t); written {
		return false
	}
	segs := v.BlockSegs(a)
	return len(segs) > 0 && int(segs[len(segs)-1].From) < t
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
	to       int // the level an evictable block goes to, nothing else evicted
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
// blocks. Each constant goes, for its whole life, to the fastest slower
// level with room for it at every timestep; each idle activation (timeline
// model) is copied at t to the fastest slower level with room for it at t
// (outTarget), issued early. price(c, l) is what sending block c to level
// l adds to the plan's cost (a constant for its whole life, an activation
// from t on); windows are ranked by the sum, then by address. occ is the
// state of t with b detached; it is only read.
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
			pieces = append(pieces, piece{pos, s.Off, -1, false, 0})
		}
		c := int(s.Block)
		var evict bool
		var to state.Pos
		if c != e.b && (e.o.Horizon <= 0 || e.p.Block(c).Last <= e.t+e.o.Horizon) {
			switch {
			case Evictable(e.p, e.v, c, e.t):
				to, evict = e.target(c, l, e.noneTaken)
			case IdleEvictable(e.p, e.v, c, e.t):
				to, _, evict = e.outTarget(c, l, e.noneTaken)
			}
		}
		pieces = append(pieces, piece{s.Off, s.End, c, evict, int(to.Level)})
		pos = s.End
		return true
	})
	if pos < capacity {
		pieces = append(pieces, piece{pos, capacity, -1, false, 0})
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
		if pc.evict && pc.end > w.off && !slices.Contains(w.evicted, pc.block) { // the window covers it
			w.cost += e.price(pc.block, pc.to)
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
		cs := e.candidates(cur, l, w)
		if len(cs) == 0 {
			continue
		}
		for _, c := range cs {
			emit(c)
		}
		n++
		if e.o.Max > 0 && n >= e.o.Max {
			return
		}
	}
}

// candidates returns the evict candidates of window w of level l: b goes
// to the window, each constant it covers to the fastest slower level with
// room for it beside those evicted before it, each idle activation it
// covers copied out at t to a slower level (outTarget), its copy issued
// at the earliest feasible start; and, if some copy has a later start
// that still hides it, a second candidate with those starts. None if a
// block finds no room.
func (e *evictor) candidates(cur state.Pos, l int, w window) []Candidate {
	c := Candidate{Kind: Evict, Block: e.b, At: e.t, From: cur, To: state.Pos{Level: int32(l), Offset: w.off}, Reused: -1}
	taken := make([][]state.Gap, e.p.Levels())
	var hiding []Eviction
	for _, ev := range w.evicted {
		var to state.Pos
		var leads []int32
		var fits bool
		if e.p.Block(ev).Kind == workload.Constant {
			to, fits = e.target(ev, l, taken)
		} else {
			to, leads, fits = e.outTarget(ev, l, taken)
		}
		if !fits {
			return nil
		}
		x := Eviction{Block: ev, To: to}
		if e.p.Block(ev).Kind != workload.Constant {
			x.Copy = true
			if len(leads) > 0 {
				x.Lead = leads[0]
			}
		}
		c.Evicted = append(c.Evicted, x)
		if len(leads) > 1 {
			if hiding == nil {
				hiding = slices.Clone(c.Evicted[:len(c.Evicted)-1])
			}
			x.Lead = leads[1]
		}
		if hiding != nil {
			hiding = append(hiding, x)
		}
		lt := int(to.Level)
		taken[lt] = append(taken[lt], state.Gap{Off: to.Offset, End: to.Offset + e.p.Foot(ev, lt)})
	}
	if hiding == nil {
		return []Candidate{c}
	}
	h := c
	h.Evicted = hiding
	return []Candidate{c, h}
}

// maxOutGaps is how many free gaps of a level outTarget looks at for a
// destination whose copy can start before t.
const maxOutGaps = 8

// outTarget returns where idle activation a, in level l at timestep t,
// is copied out to, avoiding taken (per level): the fastest slower level
// that takes a copy (MayEnter: never a read-only one) and has room for it
// at t, at the lowest offset beside taken of the first of its free gaps
// that hold it, smallest first, whose copy can start before t (of the
// first maxOutGaps; else the first gap); and the leads the copy may have
// there (prefetchLeads: the earliest feasible start, after the range is
// free since, the source segment began and the block was last written,
// within the horizon; and the start that just hides the copy behind the
// ops before t). No leads: the copy is issued at t. The range is free at
// t in e.occ, so the search's re-planning from t+1 keeps it for the rest
// of a's life.
func (e *evictor) outTarget(a, l int, taken [][]state.Gap) (state.Pos, []int32, bool) {
	p := e.p
	for to := l + 1; to < p.Levels(); to++ {
		if !p.Allowed(a, to) || !MayEnter(p, a, to, e.t) {
			continue
		}
		f, al := p.Foot(a, to), p.Align(a, to)
		var pos state.Pos
		var leads []int32
		found, tries := false, 0
		e.occ.FitGaps(to, f, func(g state.Gap) bool {
			off, fits := fitAvoiding(g, f, al, taken[to])
			if !fits {
				return true
			}
			q := state.Pos{Level: int32(to), Offset: off}
			ls := prefetchLeads(e.occ, e.v, a, e.t, q, e.o.Dur)
			if !found || len(ls) > 0 {
				pos, leads, found = q, ls, true
			}
			tries++
			return len(ls) == 0 && tries < maxOutGaps
		})
		if found {
			return pos, leads, true
		}
	}
	return state.Pos{}, nil, false
}

// fitAvoiding returns the lowest offset, aligned to a, at which f bytes
// fit in gap g without overlapping any range of taken.
func fitAvoiding(g state.Gap, f, a int64, taken []state.Gap) (int64, bool) {
	off := state.AlignUp(g.Off, a)
	for off+f <= g.End {
		moved := false
		for _, tk := range taken {
			if tk.Off < off+f && off < tk.End {
				off, moved = state.AlignUp(tk.End, a), true
			}
		}
		if !moved {
			return off, true
		}
	}
	return 0, false
}
