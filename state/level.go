package state

import (
	"math"
	"slices"
	"sync"

	"github.com/google/btree"
)

// levelOcc is the memory state of one level: its busy spans and free gaps.
//
// Most levels hold few blocks at a time: on the generated 4,000-op
// program on the H100 profile, 95% of the search's placements go to levels
// holding under 60 spans. Such a level is a plain slice of spans in
// address order (small mode), its gaps derived from the spans when asked:
// a clone shares the slice, and the first change on either side copies it
// whole, one allocation, where B-trees copy a path of nodes per change.
// A level that grows past smallMax spans switches to two copy-on-write
// B-trees (busy spans by address, free gaps smallest first), in which
// every operation is logarithmic; it switches back below smallMin. Both
// modes answer every query the same way.
type levelOcc struct {
	cap int64
	// Small mode (busy == nil): the busy spans in address order, and
	// whether this occupancy may write the slice (false when a clone may
	// share it).
	spans []Span
	owned bool
	// B-tree mode, and the releases recorded but not applied yet (see
	// Occupancy.Drop): every method applies them first (settle).
	busy    *btree.BTreeG[Span]
	free    *btree.BTreeG[Gap]
	pending *pendingList
	// The free-since log, under the timeline model only: the ranges
	// released in the last Horizon timesteps, by since (see the package
	// doc). Clones share it: its capacity is cut to its length in a
	// clone, so that whichever appends first copies it.
	log []release
}

// release is an entry of the free-since log: [off, end) was occupied until
// timestep since-1 and is free from since on (or was taken again, which
// the busy spans say).
type release struct {
	off, end int64
	since    int32
}

// logRelease appends r to the log (whose entries are in since order).
func (lv *levelOcc) logRelease(r release) { lv.log = append(lv.log, r) }

// pruneLog drops the entries with since <= limit: they cannot hold a
// copy's start back past the horizon.
func (lv *levelOcc) pruneLog(limit int32) {
	i := 0
	for i < len(lv.log) && lv.log[i].since <= limit {
		i++
	}
	if i > 0 {
		lv.log = lv.log[i:]
	}
}

// freeSince returns the latest since of the log's entries that overlap
// [off, end), or math.MinInt32 if none does.
func (lv *levelOcc) freeSince(off, end int64) int32 {
	since := int32(math.MinInt32)
	for _, r := range lv.log {
		if r.off < end && off < r.end {
			since = max(since, r.since)
		}
	}
	return since
}

// pendingRelease is a release of block b's spans in [off, end).
type pendingRelease struct {
	b        int32
	off, end int64
}

// pendingList holds a level's pending releases. Lists come from, and go
// back to, pendingLists (see Occupancy.Recycle): the search makes one
// occupancy per candidate, and allocating a list for each was a sixth of
// its allocation.
type pendingList struct{ rs []pendingRelease }

var pendingLists = sync.Pool{New: func() any { return &pendingList{rs: make([]pendingRelease, 0, 32)} }}

// settle applies the pending releases.
func (lv *levelOcc) settle() {
	if lv.pending == nil || len(lv.pending.rs) == 0 {
		return
	}
	pl := lv.pending
	lv.pending = nil // release reads the level: nothing is pending then
	for _, r := range pl.rs {
		lv.release(r.b, r.off, r.end)
	}
	pl.rs = pl.rs[:0]
	lv.pending = pl // the next releases reuse the list
}

// drop records release r in B-tree mode and applies it at once in slice
// mode (see Occupancy.Drop).
func (lv *levelOcc) drop(r pendingRelease) {
	if lv.busy == nil {
		lv.release(r.b, r.off, r.end)
		return
	}
	if lv.pending == nil {
		lv.pending = pendingLists.Get().(*pendingList)
	}
	lv.pending.rs = append(lv.pending.rs, r)
}

// npending returns the number of releases recorded and not applied.
func (lv *levelOcc) npending() int {
	if lv.pending == nil {
		return 0
	}
	return len(lv.pending.rs)
}

// recycle gives the level's span slice (if its own) and pending list back
// for reuse, dropping what is on them: the level is not used again.
func (lv *levelOcc) recycle() {
	if lv.busy == nil && lv.owned {
		putSpans(lv.spans) // owned: no clone shares it
		lv.spans = nil
	}
	if pl := lv.pending; pl != nil {
		lv.pending = nil
		pl.rs = pl.rs[:0]
		pendingLists.Put(pl)
	}
}

const (
	btreeDegree = 8
	smallMax    = 256 // more spans: B-trees
	smallMin    = 128 // fewer spans in B-trees: back to a slice
)

func spanLess(a, b Span) bool { return a.Off < b.Off }

func gapLess(a, b Gap) bool {
	if sa, sb := a.Size(), b.Size(); sa != sb {
		return sa < sb
	}
	return a.Off < b.Off
}

func newLevelOcc(capacity int64) levelOcc {
	return levelOcc{cap: capacity, owned: true}
}

// clone returns a copy sharing the spans (small mode) or the tree nodes
// copy-on-write. It changes lv too (its slice becomes shared), so clones
// of one level must not be made concurrently.
func (lv *levelOcc) clone() levelOcc {
	lv.settle()
	log := lv.log[:len(lv.log):len(lv.log)]
	if lv.busy == nil {
		lv.owned = false
		return levelOcc{cap: lv.cap, spans: lv.spans, log: log}
	}
	return levelOcc{cap: lv.cap, busy: lv.busy.Clone(), free: lv.free.Clone(), log: log}
}

// search returns the index of the first span at or after off (small mode).
// (A plain loop: slices.BinarySearchFunc calls its comparison through a
// function value, and this search was a tenth of the search's work.)
func (lv *levelOcc) search(off int64) int {
	spans := lv.spans
	lo, hi := 0, len(spans)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if spans[m].Off < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// get returns the span that starts at off.
func (lv *levelOcc) get(off int64) (Span, bool) {
	lv.settle()
	if lv.busy != nil {
		return lv.busy.Get(Span{Off: off})
	}
	if i := lv.search(off); i < len(lv.spans) && lv.spans[i].Off == off {
		return lv.spans[i], true
	}
	return Span{}, false
}

// floor returns the last span starting at or before off.
func (lv *levelOcc) floor(off int64) (Span, bool) {
	lv.settle()
	if lv.busy != nil {
		var r Span
		ok := false
		lv.busy.DescendLessOrEqual(Span{Off: off}, func(s Span) bool { r, ok = s, true; return false })
		return r, ok
	}
	i := lv.search(off + 1) // the first span after off
	if i == 0 {
		return Span{}, false
	}
	return lv.spans[i-1], true
}

// ceil returns the first span starting at or after off.
func (lv *levelOcc) ceil(off int64) (Span, bool) {
	lv.settle()
	if lv.busy != nil {
		var r Span
		ok := false
		lv.busy.AscendGreaterOrEqual(Span{Off: off}, func(s Span) bool { r, ok = s, true; return false })
		return r, ok
	}
	if i := lv.search(off); i < len(lv.spans) {
		return lv.spans[i], true
	}
	return Span{}, false
}

// ascendRange calls fn for the spans starting in [lo, hi), in address
// order, until fn returns false.
func (lv *levelOcc) ascendRange(lo, hi int64, fn func(Span) bool) {
	lv.settle()
	if lv.busy != nil {
		lv.busy.AscendRange(Span{Off: lo}, Span{Off: hi}, fn)
		return
	}
	for _, s := range lv.spans[lv.search(lo):] {
		if s.Off >= hi || !fn(s) {
			return
		}
	}
}

// ascend calls fn for every span in address order until fn returns false.
func (lv *levelOcc) ascend(fn func(Span) bool) {
	lv.settle()
	if lv.busy != nil {
		lv.busy.Ascend(fn)
		return
	}
	for _, s := range lv.spans {
		if !fn(s) {
			return
		}
	}
}

// count returns the number of busy spans.
func (lv *levelOcc) count() int {
	lv.settle()
	if lv.busy != nil {
		return lv.busy.Len()
	}
	return len(lv.spans)
}

// write makes the slice this occupancy's own before a change.
func (lv *levelOcc) write(extra int) {
	if !lv.owned {
		s := getSpans(len(lv.spans) + max(extra, 4))[:len(lv.spans)]
		copy(s, lv.spans)
		lv.spans, lv.owned = s, true
	}
}

// Span slices of a few capacities are recycled (see Occupancy.Recycle):
// the search copies a small level's slice in every candidate that
// changes it, a tenth of its allocation when each copy was new.
const (
	spansS = 16
	spansM = 64
	spansL = smallMax + 16
)

var (
	poolS = sync.Pool{New: func() any { return new([spansS]Span) }}
	poolM = sync.Pool{New: func() any { return new([spansM]Span) }}
	poolL = sync.Pool{New: func() any { return new([spansL]Span) }}
)

// getSpans returns an empty slice of at least n capacity.
func getSpans(n int) []Span {
	switch {
	case n <= spansS:
		return poolS.Get().(*[spansS]Span)[:0]
	case n <= spansM:
		return poolM.Get().(*[spansM]Span)[:0]
	case n <= spansL:
		return poolL.Get().(*[spansL]Span)[:0]
	}
	return make([]Span, 0, n)
}

// putSpans recycles s, which nothing else refers to.
func putSpans(s []Span) {
	switch cap(s) {
	case spansS:
		poolS.Put((*[spansS]Span)(s[:spansS]))
	case spansM:
		poolM.Put((*[spansM]Span)(s[:spansM]))
	case spansL:
		poolL.Put((*[spansL]Span)(s[:spansL]))
	}
}

// add inserts a busy span that the caller has checked to lie inside the
// free gap g, splitting g.
func (lv *levelOcc) add(s Span, g Gap) {
	lv.settle()
	if lv.busy == nil {
		lv.write(1)
		lv.spans = slices.Insert(lv.spans, lv.search(s.Off), s)
		if len(lv.spans) > smallMax {
			lv.toTrees()
		}
		return
	}
	if _, ok := lv.free.Delete(g); !ok {
		panic(fmtGapMissing(g))
	}
	if g.Off < s.Off {
		lv.free.ReplaceOrInsert(Gap{g.Off, s.Off})
	}
	if s.End < g.End {
		lv.free.ReplaceOrInsert(Gap{s.End, g.End})
	}
	lv.busy.ReplaceOrInsert(s)
}

// removeSpan frees a busy span, merging the gaps on both sides.
func (lv *levelOcc) removeSpan(s Span) {
	lv.settle()
	if lv.busy == nil {
		i := lv.search(s.Off)
		if i == len(lv.spans) || lv.spans[i] != s {
			panic(fmtNoSpan(s))
		}
		lv.write(0)
		lv.spans = slices.Delete(lv.spans, i, i+1)
		return
	}
	if _, ok := lv.busy.Delete(s); !ok {
		panic(fmtNoSpan(s))
	}
	g := Gap{s.Off, s.End}
	// The gap ending at s.Off, if any: its start is the end of the span
	// before it.
	left := int64(0)
	if p, ok := lv.floor(s.Off); ok {
		left = p.End
	}
	if left < s.Off {
		lv.free.Delete(Gap{left, s.Off})
		g.Off = left
	}
	right := lv.cap
	if n, ok := lv.ceil(s.End); ok {
		right = n.Off
	}
	if right > s.End {
		lv.free.Delete(Gap{s.End, right})
		g.End = right
	}
	lv.free.ReplaceOrInsert(g)
	if lv.busy.Len() < smallMin {
		lv.toSlice()
	}
}

// toTrees switches a small level to B-trees.
func (lv *levelOcc) toTrees() {
	lv.busy = btree.NewG(btreeDegree, spanLess)
	lv.free = btree.NewG(btreeDegree, gapLess)
	for _, s := range lv.spans {
		lv.busy.ReplaceOrInsert(s)
	}
	lv.eachGap(func(g Gap) { lv.free.ReplaceOrInsert(g) })
	lv.spans, lv.owned = nil, true
}

// toSlice switches a level in B-trees back to a slice.
func (lv *levelOcc) toSlice() {
	spans := make([]Span, 0, smallMax+1)
	lv.busy.Ascend(func(s Span) bool { spans = append(spans, s); return true })
	lv.spans, lv.owned, lv.busy, lv.free = spans, true, nil, nil
}

// eachGap calls fn for every free gap in address order (small mode).
func (lv *levelOcc) eachGap(fn func(Gap)) {
	pos := int64(0)
	for _, s := range lv.spans {
		if s.Off > pos {
			fn(Gap{pos, s.Off})
		}
		pos = s.End
	}
	if pos < lv.cap {
		fn(Gap{pos, lv.cap})
	}
}

// fitGaps calls fn for the free gaps of at least size bytes, smallest
// first (then lowest address), until fn returns false. In small mode each
// step selects the next gap with one pass over the spans: callers take
// the first gap or a few (best fit, a few candidates per level), and a
// small level has few spans.
func (lv *levelOcc) fitGaps(size int64, fn func(Gap) bool) {
	lv.settle()
	if lv.busy != nil {
		lv.free.AscendGreaterOrEqual(Gap{0, size}, fn)
		return
	}
	last := Gap{-1, -1}
	first := true
	for {
		var best Gap
		found := false
		lv.eachGap(func(g Gap) {
			if g.Size() < size || !first && !gapLess(last, g) {
				return
			}
			if !found || gapLess(g, best) {
				best, found = g, true
			}
		})
		if !found || !fn(best) {
			return
		}
		last, first = best, false
	}
}
