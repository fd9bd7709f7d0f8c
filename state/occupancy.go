package state

import (
	"fmt"
	"slices"
	"sync"
)

// Span is a busy range [Off, End) of a level, held by block Block.
type Span struct {
	Off, End int64
	Block    int32
}

// Gap is a free range [Off, End) of a level. Gaps are always maximal: two
// gaps never touch (adjacent free spaces are merged).
type Gap struct {
	Off, End int64
}

// Size returns the gap's length in bytes.
func (g Gap) Size() int64 { return g.End - g.Off }

// Occupancy is the memory state of one timestep: for each level, the busy
// spans (address order) and the free gaps (smallest first, then lowest
// address), in a slice or in B-trees (see levelOcc).
//
// Clone is O(levels): the slices and trees are copy-on-write, so a clone
// shares them with its original until one of them changes them. This is
// what makes snapshots cheap in the search.
type Occupancy struct {
	p      *Problem
	levels []levelOcc
	t      int // the timestep whose state this is (see Advance)
}

// NewOccupancy returns the state of empty memory: one gap per level.
func NewOccupancy(p *Problem) *Occupancy {
	o := &Occupancy{p: p, levels: make([]levelOcc, p.Levels())}
	for l := range o.levels {
		o.levels[l] = newLevelOcc(p.HW.Levels[l].Capacity)
	}
	return o
}

// Clone returns an independent copy that shares its data copy-on-write
// (see levelOcc). It marks o's data shared too: clones of one occupancy
// must not be made concurrently.
func (o *Occupancy) Clone() *Occupancy {
	c := occupancies.Get().(*Occupancy)
	c.p, c.t = o.p, o.t
	if cap(c.levels) < len(o.levels) {
		c.levels = make([]levelOcc, len(o.levels))
	}
	c.levels = c.levels[:len(o.levels)]
	for l := range o.levels {
		c.levels[l] = o.levels[l].clone()
	}
	return c
}

// Recycle declares that o is not used again: memory it holds for itself
// alone (its lists of pending releases, the span slices of small levels
// that it changed) goes back for reuse by other occupancies. o must not
// be used afterwards; clones of o made before are not affected.
func (o *Occupancy) Recycle() {
	for l := range o.levels {
		o.levels[l].recycle()
	}
	clear(o.levels) // let the shared data go
	o.p = nil
	occupancies.Put(o)
}

// occupancies holds recycled occupancies for Clone (see Recycle).
var occupancies = sync.Pool{New: func() any { return new(Occupancy) }}

// Problem returns the problem the occupancy belongs to.
func (o *Occupancy) Problem() *Problem { return o.p }

// Time returns the timestep whose state o is.
func (o *Occupancy) Time() int { return o.t }

// Advance makes o the state of timestep t, before anything of t is
// released or placed (the walk calls it first thing at each timestep).
// Under the timeline model it drops from the free-since log what can no
// longer hold a copy back: the releases at or before t - Horizon.
func (o *Occupancy) Advance(t int) {
	o.t = t
	if o.p.timeline {
		limit := int32(t - o.p.horizon)
		for l := range o.levels {
			o.levels[l].pruneLog(limit)
		}
	}
}

// Vacate is Release of block b's span at the current timestep (Time) for a
// block that occupied it until the timestep before and leaves it now:
// under the timeline model the free-since log records that the range is
// free only from now on. Release alone removes a span as if it never
// was there (a copy's reservation dropped with its copy).
func (o *Occupancy) Vacate(b int, l int, off int64) int {
	n := o.Release(b, l, off)
	if o.p.timeline {
		o.levels[l].logRelease(release{off, off + o.p.Foot(b, l), int32(o.t)})
	}
	return n
}

// FreeSince returns, under the timeline model, the first timestep from
// which [off, end) of level l has been free without a break, as far as
// the free-since log knows: one after the last timestep any part of it
// was occupied, and at most Time() - Horizon when the log has no release
// of it. The range must be free now. A copy into it may be issued from
// then on (its reservation overlaps nothing).
func (o *Occupancy) FreeSince(l int, off, end int64) int {
	return max(int(o.levels[l].freeSince(off, end)), o.t-o.p.horizon)
}

// enclosingGap returns the free gap that would contain [off, end) if that
// range is free, judging by the busy neighbours.
func (lv *levelOcc) enclosingGap(off int64) Gap {
	g := Gap{0, lv.cap}
	if s, ok := lv.floor(off); ok {
		if s.Off == off {
			g.Off = -1 // a span starts here: nothing is free at off
		} else {
			g.Off = s.End
		}
	}
	if s, ok := lv.ceil(off + 1); ok {
		g.End = s.Off
	}
	return g
}

// PlaceSpan marks [off, end) of level l busy with block b. The range must be
// free; anything else is a broken invariant and panics.
func (o *Occupancy) PlaceSpan(l int, off, end int64, b int32) {
	lv := &o.levels[l]
	if off < 0 || end > lv.cap || end <= off {
		panic(fmt.Sprintf("state: span [%d,%d) of block %d outside level %d [0,%d)", off, end, b, l, lv.cap))
	}
	g := lv.enclosingGap(off)
	if g.Off < 0 || g.Off > off || g.End < end {
		panic(fmt.Sprintf("state: span [%d,%d) of block %d overlaps a busy span in level %d (free around it: [%d,%d))", off, end, b, l, g.Off, g.End))
	}
	lv.add(Span{off, end, b}, g)
}

func fmtGapMissing(g Gap) string {
	return fmt.Sprintf("state: gap [%d,%d) missing from the free tree", g.Off, g.End)
}

func fmtNoSpan(s Span) string {
	return fmt.Sprintf("state: no busy span at %d to remove", s.Off)
}

// Place marks block b busy at its footprint in level l from off.
func (o *Occupancy) Place(b int, l int, off int64) {
	o.PlaceSpan(l, off, off+o.p.Foot(b, l), int32(b))
}

// Release frees every span of block b inside [off, off+footprint) of level
// l (its whole footprint, or what is left of it after another block took
// part of its space by reuse). It returns the number of spans freed.
func (o *Occupancy) Release(b int, l int, off int64) int {
	lv := &o.levels[l]
	lv.settle()
	return lv.release(int32(b), off, off+o.p.Foot(b, l))
}

// Drop is Release without the count, and lazy in a large level (one held
// in B-trees): there the release is recorded and applied when the level is
// next read or changed. The search re-plans each candidate on its own copy
// of the occupancy, and at almost every re-planned timestep a constant
// dies in the level that holds the weights (thousands of spans); most
// copies are dropped before anything looks at that level again, so most of
// those releases, a third of the search's time when done at once, are
// never done. What any method returns is the same as with Release.
//
// Drop is the walk's release: the block occupied the range until the
// timestep before the current one (Time), and under the timeline model
// the free-since log records it, as Vacate does.
func (o *Occupancy) Drop(b int, l int, off int64) {
	lv := &o.levels[l]
	end := off + o.p.Foot(b, l)
	lv.drop(pendingRelease{int32(b), off, end})
	if o.p.timeline {
		lv.logRelease(release{off, end, int32(o.t)})
	}
}

// release frees block b's spans in [off, end); see Release.
func (lv *levelOcc) release(b int32, off, end int64) int {
	// The common case: b holds its whole footprint.
	if s, ok := lv.get(off); ok && s.Block == b && s.End == end {
		lv.removeSpan(s)
		return 1
	}
	var found [4]Span
	spans := found[:0]
	lv.ascendRange(off, end, func(s Span) bool {
		if s.Block == b {
			spans = append(spans, s)
		}
		return true
	})
	for _, s := range spans {
		lv.removeSpan(s)
	}
	return len(spans)
}

// Reuse hands the space of block a (at off in level l, ending at this
// timestep, holding its whole footprint) over to block b, which starts at
// the same offset at this timestep. The pair's bytes are then attributed
// as PairSpans says. The caller has checked that b fits (see ReuseFits).
func (o *Occupancy) Reuse(a, b int, l int, off int64) {
	lv := &o.levels[l]
	s, ok := lv.get(off)
	if !ok || s.Block != int32(a) {
		panic(fmt.Sprintf("state: block %d does not hold offset %d of level %d", a, off, l))
	}
	lv.removeSpan(s)
	spans, n := o.p.pairSpans(a, b, l, off)
	for _, sp := range spans[:n] {
		o.PlaceSpan(l, sp.Off, sp.End, sp.Block)
	}
}

// PairSpans attributes the bytes of two blocks that share a start address
// at a timestep by reuse (one ends there, the other starts there) in a
// canonical way, whichever took over whose space: a block that lives on
// holds its whole footprint and the other keeps what is left; if both end
// at this timestep, the larger footprint (the lower ID on a tie) holds the
// union. Every span lies inside its owner's footprint, so releasing each
// block's footprint later frees everything.
func (p *Problem) PairSpans(a, b, l int, off int64) []Span {
	spans, n := p.pairSpans(a, b, l, off)
	return slices.Clone(spans[:n])
}

// pairSpans is PairSpans without an allocation: the first n of the spans.
func (p *Problem) pairSpans(a, b, l int, off int64) (spans [2]Span, n int) {
	fa, fb := p.Foot(a, l), p.Foot(b, l)
	la, lb := p.Block(a).Last, p.Block(b).Last
	switch {
	case la > lb: // a lives on
		return tailSpans(a, fa, b, fb, off)
	case lb > la:
		return tailSpans(b, fb, a, fa, off)
	case fa > fb || fa == fb && a < b:
		return [2]Span{{off, off + fa, int32(a)}}, 1
	default:
		return [2]Span{{off, off + fb, int32(b)}}, 1
	}
}

func tailSpans(keep int, fk int64, other int, fo int64, off int64) ([2]Span, int) {
	out := [2]Span{{off, off + fk, int32(keep)}}
	if fo > fk {
		out[1] = Span{off + fk, off + fo, int32(other)}
		return out, 2
	}
	return out, 1
}

// ReuseFits reports whether block b can take over block a's space at off in
// level l: a holds the span that starts at off (nobody took it yet), off
// suits b's alignment, and b's footprint ends inside a's span or inside the
// free gap right after it. (That a does not itself sit over another
// block's space is for the caller to check: see actions.Partner.)
func (o *Occupancy) ReuseFits(a, b int, l int, off int64) bool {
	lv := &o.levels[l]
	s, ok := lv.get(off)
	if !ok || s.Block != int32(a) || off%o.p.Align(b, l) != 0 {
		return false
	}
	foot := o.p.Foot(b, l)
	if foot > lv.cap-off { // off+foot could overflow near math.MaxInt64
		return false
	}
	end := off + foot
	if end <= s.End {
		return true
	}
	free := lv.cap // where the free space after a ends
	if n, ok := lv.ceil(s.End); ok {
		free = n.Off
	}
	return end <= free
}

// SpanAt returns the busy span that starts at off in level l.
func (o *Occupancy) SpanAt(l int, off int64) (Span, bool) {
	return o.levels[l].get(off)
}

// SpanEndingAt returns the busy span of level l that ends at end.
func (o *Occupancy) SpanEndingAt(l int, end int64) (Span, bool) {
	s, ok := o.levels[l].floor(end - 1)
	return s, ok && s.End == end
}

// FitGaps calls fn for the free gaps of level l of at least size bytes,
// smallest first (then lowest address), until fn returns false.
func (o *Occupancy) FitGaps(l int, size int64, fn func(Gap) bool) {
	o.levels[l].fitGaps(size, fn)
}

// Gaps calls fn for every free gap of level l, smallest first.
func (o *Occupancy) Gaps(l int, fn func(Gap) bool) { o.levels[l].fitGaps(0, fn) }

// Spans calls fn for every busy span of level l in address order.
func (o *Occupancy) Spans(l int, fn func(Span) bool) { o.levels[l].ascend(fn) }

// Largest returns the size of the largest free gap of level l.
func (o *Occupancy) Largest(l int) int64 {
	lv := &o.levels[l]
	lv.settle()
	var n int64
	if lv.busy != nil {
		lv.free.Descend(func(g Gap) bool { n = g.Size(); return false })
		return n
	}
	lv.eachGap(func(g Gap) { n = max(n, g.Size()) })
	return n
}

// Busy returns the number of busy bytes of level l.
func (o *Occupancy) Busy(l int) int64 {
	var n int64
	o.levels[l].ascend(func(s Span) bool { n += s.End - s.Off; return true })
	return n
}

// Check verifies the invariants: spans inside the level, disjoint and in
// order; gaps exactly the complement of the spans, maximal (never
// touching). It is for tests and checking mode.
func (o *Occupancy) Check() error {
	for l := range o.levels {
		lv := &o.levels[l]
		lv.settle()
		var want []Gap
		pos := int64(0)
		var err error
		lv.ascend(func(s Span) bool {
			if s.Off < pos || s.End <= s.Off || s.End > lv.cap {
				err = fmt.Errorf("level %d: span [%d,%d) of block %d overlaps or leaves the level", l, s.Off, s.End, s.Block)
				return false
			}
			if s.Off > pos {
				want = append(want, Gap{pos, s.Off})
			}
			pos = s.End
			return true
		})
		if err != nil {
			return err
		}
		if pos < lv.cap {
			want = append(want, Gap{pos, lv.cap})
		}
		if lv.busy == nil {
			if len(lv.spans) > smallMax {
				return fmt.Errorf("level %d: %d spans in a slice, more than %d", l, len(lv.spans), smallMax)
			}
			continue // the gaps are derived from the spans
		}
		if lv.free.Len() != len(want) {
			return fmt.Errorf("level %d: %d free gaps, the spans leave %d", l, lv.free.Len(), len(want))
		}
		for _, g := range want {
			if !lv.free.Has(g) {
				return fmt.Errorf("level %d: free gap [%d,%d) missing", l, g.Off, g.End)
			}
		}
	}
	return nil
}
