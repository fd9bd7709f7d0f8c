package state

import (
	"fmt"
	"slices"
)

// Seg is one placement of a block: from timestep From until the next
// segment's From (exclusive) or the block's last timestep, the block sits in
// level Level at byte Offset. A segment after the first starts with a
// transfer of the block at timestep From.
type Seg struct {
	From   int32
	Level  int32
	Offset int64
}

// Pos returns the segment's position, without its start.
func (s Seg) Pos() Pos { return Pos{Level: s.Level, Offset: s.Offset} }

// Pos is a place in memory: a level and a byte offset in it.
type Pos struct {
	Level  int32
	Offset int64
}

// Layout is a whole plan in compact form: for every block (by ID) its
// segments, sorted by From, the first starting at the block's first
// timestep. A block with no segments is not placed yet.
type Layout struct {
	Segs [][]Seg
}

// NewLayout returns an empty layout for nb blocks.
func NewLayout(nb int) *Layout { return &Layout{Segs: make([][]Seg, nb)} }

// Clone returns a deep copy: no segment slice is shared.
func (l *Layout) Clone() *Layout {
	c := &Layout{Segs: make([][]Seg, len(l.Segs))}
	for b, s := range l.Segs {
		c.Segs[b] = slices.Clone(s)
	}
	return c
}

// At returns the segment of block b that covers timestep t, which must lie
// in the block's lifetime and after its first segment's start.
func (l *Layout) At(b int, t int) Seg {
	segs := l.Segs[b]
	i := len(segs) - 1
	for i > 0 && int(segs[i].From) > t {
		i--
	}
	return segs[i]
}

// SetFirst makes s the only segment of block b (the block is placed once
// for its whole life).
func (l *Layout) SetFirst(b int, s Seg) {
	l.Segs[b] = []Seg{s} // a new slice: overlays may share the old one
}

// MoveAt records that block b moves to pos at timestep t: segments starting
// at or after t are dropped and a new one starts at t. If t is the block's
// first timestep, the block's first placement changes (no transfer).
func (l *Layout) MoveAt(b, t int, pos Pos) {
	segs := slices.Clone(l.Segs[b]) // overlays may share the old slice
	i := len(segs)
	for i > 0 && int(segs[i-1].From) >= t {
		i--
	}
	segs = append(segs[:i], Seg{From: int32(t), Level: pos.Level, Offset: pos.Offset})
	// A move back to where the block already was is no move at all.
	if n := len(segs); n > 1 && segs[n-2].Pos() == segs[n-1].Pos() {
		segs = segs[:n-1]
	}
	l.Segs[b] = segs
}

// Transfers returns the number of transfers in the layout.
func (l *Layout) Transfers() int {
	n := 0
	for _, s := range l.Segs {
		if len(s) > 1 {
			n += len(s) - 1
		}
	}
	return n
}

// Equal reports whether two layouts place every block identically.
func (l *Layout) Equal(o *Layout) bool {
	if len(l.Segs) != len(o.Segs) {
		return false
	}
	for b := range l.Segs {
		if !slices.Equal(l.Segs[b], o.Segs[b]) {
			return false
		}
	}
	return true
}

// CheckComplete returns an error naming the first block of p without a
// placement, or whose segments do not start at its first timestep and
// increase strictly inside its lifetime.
func (l *Layout) CheckComplete(p *Problem) error {
	if len(l.Segs) != p.Blocks() {
		return fmt.Errorf("layout has %d blocks, program %d", len(l.Segs), p.Blocks())
	}
	for b, segs := range l.Segs {
		blk := p.Block(b)
		if len(segs) == 0 {
			return fmt.Errorf("block %q is not placed", blk.Name)
		}
		if int(segs[0].From) != blk.First {
			return fmt.Errorf("block %q: first segment starts at %d, lifetime starts at %d", blk.Name, segs[0].From, blk.First)
		}
		for i := 1; i < len(segs); i++ {
			if segs[i].From <= segs[i-1].From || int(segs[i].From) > blk.Last {
				return fmt.Errorf("block %q: segment %d starts at %d, out of order or past last %d", blk.Name, i, segs[i].From, blk.Last)
			}
			if segs[i].Pos() == segs[i-1].Pos() {
				return fmt.Errorf("block %q: segment %d does not move the block", blk.Name, i)
			}
		}
	}
	return nil
}
