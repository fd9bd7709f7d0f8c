package repack

import (
	"context"

	"github.com/hieropt/hieropt/state"
)

// # Detour
//
// A candidate that finds no room in level l over its whole run may find
// room over most of it: where l is full for a few timesteps (a large
// activation passing through) a faster level may have room, if only
// there. The block then takes l up to the full stretch, goes up to the
// faster level over it, and comes back down to l after it: two transfers
// between fast levels, cheap beside what staying in a slow level costs
// at every access. On the K210 seed copy the 4.6 MiB activations of
// mobilenet_v2-fp32's early blocks fill SRAM for a few ops while AISRAM
// is nearly empty there; the weights read late have to span those ops to
// sit in SRAM at all (a constant lives from timestep 0), and the optimum
// the MILP tool finds lets a dozen of them wait out the peak in AISRAM.
//
// detour (seed model only: the blocks are priced apart) tries, for a
// candidate that is one block placed once, for its whole life, in a level
// slower than l, the largest head [from, h] of its run that the free
// space of l as it is packed now holds at one offset, the largest tail
// [s, to] likewise, and the stretch between them in the free space of a
// faster level, the fastest with room; the block's segments become the
// head in l, the stretch in the faster level and the tail in l (an empty
// head or tail is left out). The change is kept if it saves (the
// transfers priced by the cost model, as any segment change). Nothing
// else moves: the three segments go into free space, so the layout stays
// valid. Detours are tried last in a level, after exchanges, each
// candidate once (l and the faster levels only get fuller), for at most
// detourTries candidates per level.

// detourTries is how many candidates a level tries detours for, at most:
// a try scans the layout's segments a few dozen times (a long program's
// level has thousands of candidates without room, and no level with more
// than Settings.MaxBuffers buffers tries any).
const detourTries = 256

// detours tries a detour for the candidates of l in their order (see
// detour), skipping those in tried and adding to it those it tries, and
// stops at the first accepted. It reports whether it changed the layout.
func (r *repacker) detours(ctx context.Context, l int, cands []candidate, tried map[candKey]bool) bool {
	for _, c := range cands {
		if ctx.Err() != nil || len(tried) >= detourTries {
			return false
		}
		k := candKey{c.b, c.from, c.to}
		if tried[k] || c.split != 0 || len(r.lay.Segs[c.b]) != 1 || int(r.lay.Segs[c.b][0].Level) <= l {
			continue
		}
		tried[k] = true
		if r.detour(l, c) {
			return true
		}
	}
	return false
}

// detour tries to put candidate c (block c.b, placed once in a level
// slower than l) into l around a stretch in a faster level; it reports
// whether it changed the layout.
func (r *repacker) detour(l int, c candidate) bool {
	p := r.p
	b := c.b
	if !p.CopyInto(l) {
		return false // the tail, if any, is a copy into l
	}
	fl, al := p.Foot(b, l), p.Align(b, l)
	busy := r.busyIn(l, c.from, c.to, nil)
	at := func(from, to int) (int64, bool) { return r.firstFit(busy, from, to, fl, al, l) }
	fits := func(from, to int) bool {
		_, ok := at(from, to)
		return from > to || ok
	}
	// The largest head [c.from, h] and the smallest tail start s whose
	// runs fit l as it is (fitting is monotone: a shorter run fits where a
	// longer one does).
	lo, hi := c.from-1, c.to // fits(c.from, lo) holds; find the largest h
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if fits(c.from, mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	h := lo
	if h == c.to {
		return false // the whole run fits: insertion's
	}
	lo, hi = h+1, c.to+1 // fits(hi, c.to) holds; find the smallest s
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fits(mid, c.to) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	s := lo
	if s == h+1 {
		// Head and tail fit apart but not together: the stretch is the
		// tail's first timestep.
		s++
	}
	if h < c.from && s > c.to {
		return false // nothing of the run in l: the faster level's pass tried it
	}
	old := r.lay.Segs[b]
	before := r.model.BlockCost(p, b, old)
	var best []state.Seg
	bestDelta := 0.0
	for f := 0; f < l; f++ {
		if !p.Allowed(b, f) || !p.CopyInto(f) && h >= c.from {
			continue
		}
		off, ok := r.freeAt(f, h+1, s-1, p.Foot(b, f), p.Align(b, f), nil)
		if !ok {
			continue
		}
		var segs []state.Seg
		if h >= c.from {
			hoff, _ := at(c.from, h)
			segs = append(segs, r.runSeg(b, old, 0, l, hoff))
		}
		segs = append(segs, state.Seg{From: int32(h + 1), Level: int32(f), Offset: off})
		if len(segs) == 1 {
			segs[0] = r.runSeg(b, old, 0, f, off)
		}
		if s <= c.to {
			toff, _ := at(s, c.to)
			segs = append(segs, state.Seg{From: int32(s), Level: int32(l), Offset: toff})
		}
		if d := r.model.BlockCost(p, b, segs) - before; d < bestDelta {
			best, bestDelta = segs, d
		}
	}
	if best == nil {
		return false
	}
	r.lay.Segs[b] = best
	r.cost += bestDelta
	r.stats.Promoted++
	r.stats.Detoured++
	return true
}
