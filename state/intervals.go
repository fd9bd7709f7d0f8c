package state

import "sort"

// Intervals is a set of byte ranges, kept as sorted, disjoint, non-touching
// [Off, End) ranges. The search uses it for the addresses of a level that
// some block occupies at some timestep.
type Intervals struct {
	r []Gap // reuses Gap for [Off, End)
}

// Add inserts [off, end), merging with what it touches.
func (s *Intervals) Add(off, end int64) {
	if end <= off {
		return
	}
	// First range that ends at or after off.
	i := sort.Search(len(s.r), func(i int) bool { return s.r[i].End >= off })
	j := i
	for j < len(s.r) && s.r[j].Off <= end {
		off = min(off, s.r[j].Off)
		end = max(end, s.r[j].End)
		j++
	}
	s.r = append(s.r[:i], append([]Gap{{off, end}}, s.r[j:]...)...)
}

// Clone returns an independent copy.
func (s *Intervals) Clone() *Intervals { return &Intervals{r: append([]Gap(nil), s.r...)} }

// FirstFree returns the lowest offset >= from, a multiple of align, such
// that [offset, offset+size) overlaps no range of the set and ends at or
// below limit.
func (s *Intervals) FirstFree(from, size, align, limit int64) (int64, bool) {
	off := AlignUp(from, align)
	i := sort.Search(len(s.r), func(i int) bool { return s.r[i].End > off })
	for ; i < len(s.r); i++ {
		if off+size <= s.r[i].Off {
			break
		}
		off = AlignUp(max(off, s.r[i].End), align)
	}
	return off, off+size <= limit
}

// Len returns the number of ranges.
func (s *Intervals) Len() int { return len(s.r) }

// FirstFreeAvoiding is FirstFree that also avoids the ranges in taken.
func (s *Intervals) FirstFreeAvoiding(from, size, align, limit int64, taken []Gap) (int64, bool) {
	for {
		off, ok := s.FirstFree(from, size, align, limit)
		if !ok {
			return off, false
		}
		clash := false
		for _, g := range taken {
			if off < g.End && g.Off < off+size {
				from, clash = max(from, g.End), true
			}
		}
		if !clash {
			return off, true
		}
	}
}
