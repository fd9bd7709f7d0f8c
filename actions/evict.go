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
// constant placed once (no transfers), not read before t, and not pinned.
func Evictable(p *state.Problem, v state.View, c, t int) bool {
	blk := p.Block(c)
	if blk.Kind != workload.Constant || p.Pin(c) != state.NoPin {
		return false
	}
	if len(v.BlockSegs(c)) != 1 || blk.Last < t {
		return false
	}
	return len(blk.Reads) == 0 || blk.Reads[0] >= t
}

type window struct {
	off     int64
	cost    float64
	evicted []int
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
	cur := state.SegAt(v.BlockSegs(b), t).Pos()
	// target returns where constant c evicted from level l would go,
	// avoiding taken (per level), or ok = false.
	target := func(c, l int, taken [][]state.Gap) (state.Pos, bool) {
		for to := l + 1; to < p.Levels(); to++ {
			if !p.Allowed(c, to) {
				continue
			}
			if off, ok := space(to, p.Foot(c, to), p.Align(c, to), taken[to]); ok {
				return state.Pos{Level: int32(to), Offset: off}, true
			}
		}
		return state.Pos{}, false
	}
	noneTaken := make([][]state.Gap, p.Levels())
	for l := 0; l < int(cur.Level); l++ {
		if !p.Allowed(b, l) {
			continue
		}
		f, a := p.Foot(b, l), p.Align(b, l)
		// The level in address order: busy spans (evictable or not) and
		// the gaps between them.
		type piece struct {
			off, end int64
			block    int // -1 for a gap
			evict    bool
		}
		var pieces []piece
		pos := int64(0)
		capacity := p.HW.Levels[l].Capacity
		occ.Spans(l, func(s state.Span) bool {
			if s.Off > pos {
				pieces = append(pieces, piece{pos, s.Off, -1, false})
			}
			c := int(s.Block)
			evict := c != b && Evictable(p, v, c, t) && (o.Horizon <= 0 || p.Block(c).Last <= t+o.Horizon)
			if evict {
				_, evict = target(c, l, noneTaken)
			}
			pieces = append(pieces, piece{s.Off, s.End, c, evict})
			pos = s.End
			return true
		})
		if pos < capacity {
			pieces = append(pieces, piece{pos, capacity, -1, false})
		}
		var found []window
		for i := range pieces {
			if pieces[i].block >= 0 && !pieces[i].evict {
				continue
			}
			start := state.AlignUp(pieces[i].off, a)
			var cost float64
			var ev []int
			for j := i; j < len(pieces); j++ {
				pc := pieces[j]
				if pc.block >= 0 && !pc.evict {
					break
				}
				if pc.evict && pc.end > start { // the window covers it
					to, _ := target(pc.block, l, noneTaken)
					cost += price(pc.block, int(to.Level))
					ev = append(ev, pc.block)
				}
				if pc.end >= start+f {
					if len(ev) > 0 {
						found = append(found, window{start, cost, ev})
					}
					break
				}
			}
		}
		slices.SortStableFunc(found, func(x, y window) int {
			return cmp.Or(cmp.Compare(x.cost, y.cost), cmp.Compare(x.off, y.off))
		})
		n := 0
		for _, w := range found {
			c := Candidate{Kind: Evict, Block: b, At: t, From: cur, To: state.Pos{Level: int32(l), Offset: w.off}, Reused: -1}
			taken := make([][]state.Gap, p.Levels())
			ok := true
			for _, e := range w.evicted {
				to, fits := target(e, l, taken)
				if !fits {
					ok = false
					break
				}
				c.Evicted = append(c.Evicted, Eviction{Block: e, To: to})
				lt := int(to.Level)
				taken[lt] = append(taken[lt], state.Gap{Off: to.Offset, End: to.Offset + p.Foot(e, lt)})
			}
			if !ok {
				continue
			}
			emit(c)
			n++
			if o.Max > 0 && n >= o.Max {
				break
			}
		}
	}
}
