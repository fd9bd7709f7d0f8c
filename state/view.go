package state

import (
	"slices"
	"sort"
	"sync"
)

// View gives access to the segments of every block. *Layout is a View;
// so is *Overlay, a set of changes on top of a shared Layout, which is how
// the search holds many candidate states without copying whole layouts.
type View interface {
	// BlockSegs returns block b's segments; the slice must not be
	// modified.
	BlockSegs(b int) []Seg
	// SetFirst makes s block b's only segment.
	SetFirst(b int, s Seg)
	// MoveAt records that block b moves to pos at timestep t (at its
	// first timestep: that it is first put there).
	MoveAt(b, t int, pos Pos)
	// Set makes segs, which the view then owns, block b's segments.
	Set(b int, segs []Seg)
}

// BlockSegs implements View.
func (l *Layout) BlockSegs(b int) []Seg { return l.Segs[b] }

var (
	_ View = (*Layout)(nil)
	_ View = (*Overlay)(nil)
)

// SegAt returns the segment of segs that covers timestep t (segs must start
// at or before t).
func SegAt(segs []Seg, t int) Seg {
	i := len(segs) - 1
	for i > 0 && int(segs[i].From) > t {
		i--
	}
	return segs[i]
}

// Overlay is a layout expressed as changes (a patch: block -> segments) to a
// base layout that it shares. Reading a block not in the patch reads the
// base. Writing never touches the base.
//
// A fork (see Fork) also reads through the overlay it was forked from
// before the base: it holds only its own changes, so making one costs
// nothing however large the other's patch is. The search forks its
// state for each candidate and flattens the few that it keeps. Most
// candidates change a handful of blocks, so a patch of up to fewMax
// blocks is a small array inside the overlay, not a map.
type Overlay struct {
	base  *Layout
	under *Overlay // the overlay this one was forked from, or nil
	// The patch while it is small: blocks and their segments, nfew of
	// them; then a map (and nfew is 0).
	fewIDs  [fewMax]int32
	fewSegs [fewMax][]Seg
	nfew    int
	fewMask uint64 // bit b%64 set for every block b of fewIDs (and maybe others): most lookups miss
	patch   map[int32][]Seg
	chunk   []Seg           // where SetFirst takes its one-segment slices from
	spare   map[int32][]Seg // an empty map for the patch to move to (see Recycle)
}

// forks holds recycled overlays for Fork (see Recycle).
var forks = sync.Pool{New: func() any { return new(Overlay) }}

// fewMax is the most blocks a patch holds before it moves to a map. On
// the generated 4,000-op program, 61% of candidates change at most 3
// blocks and 84% at most 16.
const fewMax = 16

// NewOverlay returns an overlay with no changes to base.
func NewOverlay(base *Layout) *Overlay {
	return &Overlay{base: base}
}

// Base returns the layout the overlay changes.
func (o *Overlay) Base() *Layout { return o.base }

// own returns block b's segments in o's own patch.
func (o *Overlay) own(b int32) ([]Seg, bool) {
	if o.patch != nil {
		s, ok := o.patch[b]
		return s, ok
	}
	if o.fewMask&(1<<(uint32(b)&63)) == 0 {
		return nil, false
	}
	for i, id := range o.fewIDs[:o.nfew] {
		if id == b {
			return o.fewSegs[i], true
		}
	}
	return nil, false
}

// put records segs as block b's segments in o's own patch.
func (o *Overlay) put(b int32, segs []Seg) {
	if o.patch != nil {
		o.patch[b] = segs
		return
	}
	for i, id := range o.fewIDs[:o.nfew] {
		if id == b {
			o.fewSegs[i] = segs
			return
		}
	}
	if o.nfew < fewMax {
		o.fewIDs[o.nfew], o.fewSegs[o.nfew] = b, segs
		o.nfew++
		o.fewMask |= 1 << (uint32(b) & 63)
		return
	}
	m := o.spare
	if m == nil {
		m = make(map[int32][]Seg, 4*fewMax)
	}
	o.spare = nil
	o.each(func(b int32, s []Seg) { m[b] = s })
	o.clearFew()
	o.patch = m
	o.patch[b] = segs
}

// drop removes block b from o's own patch.
func (o *Overlay) drop(b int32) {
	if o.patch != nil {
		delete(o.patch, b)
		return
	}
	for i, id := range o.fewIDs[:o.nfew] {
		if id == b {
			o.nfew--
			o.fewIDs[i], o.fewSegs[i] = o.fewIDs[o.nfew], o.fewSegs[o.nfew]
			o.fewSegs[o.nfew] = nil
			return
		}
	}
}

// clearFew empties the small patch.
func (o *Overlay) clearFew() {
	clear(o.fewSegs[:o.nfew])
	o.nfew, o.fewMask = 0, 0
}

// each calls fn for every entry of o's own patch.
func (o *Overlay) each(fn func(b int32, segs []Seg)) {
	if o.patch != nil {
		for b, s := range o.patch {
			fn(b, s)
		}
		return
	}
	for i, id := range o.fewIDs[:o.nfew] {
		fn(id, o.fewSegs[i])
	}
}

// size returns the number of entries of o's own patch.
func (o *Overlay) size() int {
	if o.patch != nil {
		return len(o.patch)
	}
	return o.nfew
}

// BlockSegs implements View.
func (o *Overlay) BlockSegs(b int) []Seg {
	if s, ok := o.own(int32(b)); ok {
		return s
	}
	return o.below(b)
}

// below returns block b's segments as they read without o's own patch.
func (o *Overlay) below(b int) []Seg {
	if o.under != nil {
		if s, ok := o.under.own(int32(b)); ok {
			return s
		}
	}
	return o.base.Segs[b]
}

// Set makes segs (which the overlay now owns) block b's segments. Setting
// what the base has removes the block from the patch.
func (o *Overlay) Set(b int, segs []Seg) {
	if slices.Equal(segs, o.below(b)) {
		o.drop(int32(b))
		return
	}
	o.put(int32(b), segs)
}

// SetFirst implements View.
func (o *Overlay) SetFirst(b int, s Seg) {
	if below := o.below(b); len(below) == 1 && below[0] == s {
		o.drop(int32(b))
		return
	}
	// One-segment slices are cut from a chunk (capped, so that nobody
	// appends into the next one): the first chunk is small, as most
	// overlays set few blocks.
	if len(o.chunk) == cap(o.chunk) {
		o.chunk = make([]Seg, 0, min(32, 4+4*cap(o.chunk)))
	}
	o.chunk = append(o.chunk, s)
	n := len(o.chunk)
	o.put(int32(b), o.chunk[n-1:n:n])
}

// MoveAt records that block b moves to pos at timestep t (see
// Layout.MoveAt).
func (o *Overlay) MoveAt(b, t int, pos Pos) {
	tmp := Layout{Segs: [][]Seg{slices.Clone(o.BlockSegs(b))}}
	tmp.MoveAt(0, t, pos)
	o.Set(b, tmp.Segs[0])
}

// Clone returns an independent overlay of the same base that reads as o.
func (o *Overlay) Clone() *Overlay {
	return &Overlay{base: o.base, patch: o.flat()}
}

// Fork returns an overlay that reads as o does and records its own
// changes, reading through to o's: o must not change while the fork is
// in use, unless the fork is flattened first. Forking a fork makes a
// flat copy (Clone).
func (o *Overlay) Fork() *Overlay {
	if o.under != nil {
		return o.Clone()
	}
	f := forks.Get().(*Overlay)
	f.base, f.under = o.base, o
	return f
}

// Recycle declares that o, a fork that was not cloned, forked or
// flattened, is not used again, nor are the segment slices it returned:
// its memory goes to later forks. The search makes a fork per candidate
// and keeps a few.
func (o *Overlay) Recycle() {
	if o.under == nil {
		return // flat: its slices may be shared (Flatten, Apply)
	}
	o.clearFew()
	if o.patch != nil {
		clear(o.patch)
		o.spare, o.patch = o.patch, nil
	}
	o.base, o.under, o.chunk = nil, nil, o.chunk[:0]
	forks.Put(o)
}

// Flatten makes o read through to the base only: the patch of the overlay
// it was forked from is merged into its own.
func (o *Overlay) Flatten() {
	if o.under != nil {
		m := o.flat()
		o.clearFew()
		o.under, o.patch = nil, m
	}
}

// flat returns a new patch that reads over the base as o does.
func (o *Overlay) flat() map[int32][]Seg {
	n := o.size()
	if o.under != nil {
		n += o.under.size()
	}
	m := make(map[int32][]Seg, n)
	if o.under != nil {
		o.under.each(func(b int32, s []Seg) { m[b] = s }) // segment slices are never modified in place
	}
	o.each(func(b int32, s []Seg) {
		if o.under != nil && slices.Equal(s, o.base.Segs[b]) {
			delete(m, b) // o's entry hid the other's change
			return
		}
		m[b] = s
	})
	return m
}

// Len returns the number of patched blocks.
func (o *Overlay) Len() int {
	if o.under == nil {
		return o.size()
	}
	return len(o.flat())
}

// Patched returns the IDs of the patched blocks, sorted.
func (o *Overlay) Patched() []int {
	var ids []int
	add := func(b int32, _ []Seg) { ids = append(ids, int(b)) }
	if o.under == nil {
		o.each(add)
	} else {
		for b, s := range o.flat() {
			add(b, s)
		}
	}
	sort.Ints(ids)
	return ids
}

// Apply writes the patch into the base layout and empties the patch: the
// base then reads as the overlay did.
func (o *Overlay) Apply() {
	o.Flatten()
	o.each(func(b int32, s []Seg) { o.base.Segs[b] = s })
	o.clearFew()
	o.patch = nil
}
