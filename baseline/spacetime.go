package baseline

import (
	"math"
	"slices"
	"sort"
)

// rect is a block's range of one level over an inclusive span of
// timesteps: [off, end) busy from t0 to t1.
type rect struct {
	t0, t1   int
	off, end int64
}

// spaceTime is the space-time occupancy of one level, the heap of XLA's
// memory-space assignment in the small: the rectangles given out so far,
// sorted by offset (as seed 004's greedy arena keeps them), and a
// best-fit search for a free chunk over a span of timesteps, one pass
// over them.
type spaceTime struct {
	capacity int64
	rects    []rect // by off, then in the order taken
}

// overlaps reports whether two inclusive spans share a timestep.
func overlaps(a0, a1, b0, b1 int) bool { return a0 <= b1 && b0 <= a1 }

// fit returns the offset of the best-fitting free chunk of foot bytes,
// aligned to align, over the timesteps [t0, t1]: the smallest free gap
// (over that span) that holds it, the lower on a tie, the block against
// the gap's low end.
func (st *spaceTime) fit(t0, t1 int, foot, align int64) (int64, bool) {
	best, bestGap, found := int64(0), int64(0), false
	try := func(lo, hi int64) {
		o, ok := alignUp(lo, align)
		if !ok || o > hi || foot > hi-o {
			return
		}
		if gap := hi - lo; !found || gap < bestGap {
			best, bestGap, found = o, gap, true
		}
	}
	var cur int64
	for _, r := range st.rects {
		if !overlaps(r.t0, r.t1, t0, t1) {
			continue
		}
		if r.off > cur {
			try(cur, r.off)
		}
		cur = max(cur, r.end)
	}
	if cur < st.capacity {
		try(cur, st.capacity)
	}
	return best, found
}

// free reports whether [off, off+foot) is free over [t0, t1] and inside
// the level.
func (st *spaceTime) free(t0, t1 int, off, foot int64) bool {
	if off < 0 || off > st.capacity || foot > st.capacity-off {
		return false
	}
	for _, r := range st.rects {
		if overlaps(r.t0, r.t1, t0, t1) && r.off < off+foot && off < r.end {
			return false
		}
	}
	return true
}

// take records [off, off+foot) busy over [t0, t1].
func (st *spaceTime) take(t0, t1 int, off, foot int64) {
	k := sort.Search(len(st.rects), func(k int) bool { return st.rects[k].off > off })
	st.rects = slices.Insert(st.rects, k, rect{t0: t0, t1: t1, off: off, end: off + foot})
}

// alignUp rounds v >= 0 up to a multiple of a, reporting overflow.
func alignUp(v, a int64) (int64, bool) {
	r := v % a
	if r == 0 {
		return v, true
	}
	if v > math.MaxInt64-(a-r) {
		return 0, false
	}
	return v + a - r, true
}

// satAdd adds two non-negative sizes, saturating at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
