package state

import (
	"fmt"
	"slices"
	"sort"

	"github.com/hieropt/hieropt/workload"
)

// Seg is one placement of a block: from timestep From until the next
// segment's From (exclusive) or the block's last timestep, the block sits in
// level Level at byte Offset. A segment after the first starts with a
// transfer of the block at timestep From.
//
// Lead says when the copy that fills the segment is issued, in timesteps
// before From: FORMATS.md 6.2's start is From - Lead (Start). It is 0, a
// copy issued at its own timestep, everywhere except under the timeline
// model (Problem.Timeline), where it may be positive:
//
//   - on a segment after the first, a transfer issued before the op that
//     needs it (a prefetch): 0 <= Lead <= From - the previous segment's
//     From, and the block is not written in [Start, From-1];
//   - on the first segment of a constant outside its home level
//     (Problem.Home), the load of its stored bytes, issued at Start
//     (0 <= Start <= From); or Resident: the constant is resident (then it
//     is the block's only segment, and its range is kept over the whole
//     run).
//
// The zero Lead is the seed model's meaning (every copy at its timestep),
// so a Seg written without it is what it always was.
type Seg struct {
	From   int32
	Level  int32
	Offset int64
	Lead   int32
}

// Resident is the Lead of the only segment of a resident constant
// (FORMATS.md rule 10): no load, its range reserved over every timestep of
// the run.
const Resident int32 = -1

// Start returns the timestep at whose beginning the segment's copy is
// issued, From - Lead: From for a segment filled at its own timestep, -1
// for a resident one (it has no copy).
func (s Seg) Start() int32 {
	if s.Lead == Resident {
		return -1
	}
	return s.From - s.Lead
}

// IsResident reports whether s is a resident constant's segment.
func (s Seg) IsResident() bool { return s.Lead == Resident }

// OccStart returns the first timestep at which the segment occupies its
// range (FORMATS.md rules 9 and 10): Start, or 0 for a resident segment.
func (s Seg) OccStart() int32 {
	if s.Lead == Resident {
		return 0
	}
	return s.From - s.Lead
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

// Set makes segs (which the layout now owns) block b's segments.
func (l *Layout) Set(b int, segs []Seg) { l.Segs[b] = segs }

// OccEnd returns the last timestep at which segment i of block b (whose
// segments are segs) occupies its range: the timestep before the next
// segment's From, else the block's last timestep, and for a resident
// segment the program's last (FORMATS.md rule 10).
func OccEnd(p *Problem, b int, segs []Seg, i int) int {
	switch {
	case i+1 < len(segs):
		return int(segs[i+1].From) - 1
	case segs[i].Lead == Resident:
		return p.Prog.Timesteps() - 1
	}
	return p.Block(b).Last
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
		if err := checkLeads(p, b, segs); err != nil {
			return err
		}
	}
	return nil
}

// checkLeads checks the copy starts of block b's segments (see Seg): every
// Lead 0 unless p.Timeline(); under it, a transfer's start in
// [previous From, From] with no write of the block in [start, From-1], a
// positive lead on a first segment only for the load of a constant outside
// its home level, and Resident only on a constant's only segment outside
// its home level.
func checkLeads(p *Problem, b int, segs []Seg) error {
	blk := p.Block(b)
	for i, s := range segs {
		if s.Lead == 0 {
			continue
		}
		if !p.Timeline() {
			return fmt.Errorf("block %q: segment %d has a copy lead of %d (copy starts belong to the timeline model)", blk.Name, i, s.Lead)
		}
		if s.Lead == Resident {
			if i != 0 || len(segs) != 1 || blk.Kind != workload.Constant || int(s.Level) == p.Home(b) {
				return fmt.Errorf("block %q: segment %d is resident, but only a constant's only segment outside its home level may be", blk.Name, i)
			}
			continue
		}
		if s.Lead < 0 {
			return fmt.Errorf("block %q: segment %d has a copy lead of %d", blk.Name, i, s.Lead)
		}
		if i == 0 {
			if blk.Kind != workload.Constant || int(s.Level) == p.Home(b) || s.Start() < 0 {
				return fmt.Errorf("block %q: first segment loaded %d timesteps early, but only a constant outside its home level is loaded, at timestep 0 or later", blk.Name, s.Lead)
			}
			continue
		}
		start := int(s.Start())
		if start < int(segs[i-1].From) {
			return fmt.Errorf("block %q: segment %d's copy starts at %d, before its source segment (from %d)", blk.Name, i, start, segs[i-1].From)
		}
		if w := blk.Writes; sort.SearchInts(w, start) < sort.SearchInts(w, int(s.From)) {
			return fmt.Errorf("block %q: segment %d's copy starts at %d, but the block is written before %d", blk.Name, i, start, s.From)
		}
	}
	return nil
}
