package state

import (
	"slices"
	"sort"
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
// base. Writing never touches the base. Cloning copies only the patch.
type Overlay struct {
	base  *Layout
	patch map[int32][]Seg
}

// NewOverlay returns an overlay with no changes to base.
func NewOverlay(base *Layout) *Overlay {
	return &Overlay{base: base, patch: map[int32][]Seg{}}
}

// Base returns the layout the overlay changes.
func (o *Overlay) Base() *Layout { return o.base }

// BlockSegs implements View.
func (o *Overlay) BlockSegs(b int) []Seg {
	if s, ok := o.patch[int32(b)]; ok {
		return s
	}
	return o.base.Segs[b]
}

// Set makes segs (which the overlay now owns) block b's segments. Setting
// what the base has removes the block from the patch.
func (o *Overlay) Set(b int, segs []Seg) {
	if slices.Equal(segs, o.base.Segs[b]) {
		delete(o.patch, int32(b))
		return
	}
	o.patch[int32(b)] = segs
}

// SetFirst implements View.
func (o *Overlay) SetFirst(b int, s Seg) {
	if base := o.base.Segs[b]; len(base) == 1 && base[0] == s {
		delete(o.patch, int32(b))
		return
	}
	o.patch[int32(b)] = []Seg{s}
}

// MoveAt records that block b moves to pos at timestep t (see
// Layout.MoveAt).
func (o *Overlay) MoveAt(b, t int, pos Pos) {
	tmp := Layout{Segs: [][]Seg{slices.Clone(o.BlockSegs(b))}}
	tmp.MoveAt(0, t, pos)
	o.Set(b, tmp.Segs[0])
}

// Clone returns an overlay of the same base with a copy of the patch.
func (o *Overlay) Clone() *Overlay {
	c := &Overlay{base: o.base, patch: make(map[int32][]Seg, len(o.patch))}
	for b, s := range o.patch {
		c.patch[b] = s // segment slices are never modified in place
	}
	return c
}

// Len returns the number of patched blocks.
func (o *Overlay) Len() int { return len(o.patch) }

// Patched returns the IDs of the patched blocks, sorted.
func (o *Overlay) Patched() []int {
	ids := make([]int, 0, len(o.patch))
	for b := range o.patch {
		ids = append(ids, int(b))
	}
	sort.Ints(ids)
	return ids
}

// Apply writes the patch into the base layout and empties the patch: the
// base then reads as the overlay did.
func (o *Overlay) Apply() {
	for b, s := range o.patch {
		o.base.Segs[b] = s
	}
	clear(o.patch)
}
