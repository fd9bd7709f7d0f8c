package arena

import (
	"sort"

	"github.com/hieropt/hieropt/state"
)

// byTime returns the intervals' indexes by first timestep, then index.
func byTime(iv []Interval) []int {
	idx := make([]int, len(iv))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return iv[idx[a]].First < iv[idx[b]].First })
	return idx
}

func align(v, a int64) int64 {
	if a <= 1 {
		return v
	}
	return state.AlignUp(v, a)
}

// Seed000 is seed 000's lifetime best-fit arena.
type Seed000 struct{}

// Name implements Planner.
func (Seed000) Name() string { return "seed000" }

// Doc implements Planner.
func (Seed000) Doc() string {
	return "seed 000: walk the ops, free dead blocks, best-fit each new block, grow the arena's last free space by the shortfall"
}

// Offsets implements Planner.
func (Seed000) Offsets(iv []Interval) []int64 {
	off := make([]int64, len(iv))
	var free []state.Gap // sorted by offset, merged
	var end int64        // the arena's size so far
	var live []int       // placed intervals not yet freed
	release := func(i int) {
		g := state.Gap{Off: off[i], End: off[i] + iv[i].Size}
		k := sort.Search(len(free), func(k int) bool { return free[k].Off >= g.Off })
		free = append(free[:k], append([]state.Gap{g}, free[k:]...)...)
		// Merge with the neighbours.
		if k+1 < len(free) && free[k].End == free[k+1].Off {
			free[k].End = free[k+1].End
			free = append(free[:k+1], free[k+2:]...)
		}
		if k > 0 && free[k-1].End == free[k].Off {
			free[k-1].End = free[k].End
			free = append(free[:k], free[k+1:]...)
		}
	}
	for _, i := range byTime(iv) {
		t := iv[i].First
		kept := live[:0]
		for _, j := range live {
			if iv[j].Last < t {
				release(j)
			} else {
				kept = append(kept, j)
			}
		}
		live = kept
		// Best fit: the smallest free space that holds it (at its start,
		// aligned).
		best := -1
		for k, g := range free {
			o := align(g.Off, iv[i].Align)
			if o+iv[i].Size <= g.End && (best < 0 || g.End-g.Off < free[best].End-free[best].Off) {
				best = k
			}
		}
		switch {
		case best >= 0:
			g := free[best]
			o := align(g.Off, iv[i].Align)
			off[i] = o
			free = append(free[:best], free[best+1:]...)
			if o > g.Off {
				release2(&free, state.Gap{Off: g.Off, End: o})
			}
			if o+iv[i].Size < g.End {
				release2(&free, state.Gap{Off: o + iv[i].Size, End: g.End})
			}
		case len(free) > 0 && free[len(free)-1].End == end && align(free[len(free)-1].Off, iv[i].Align) == free[len(free)-1].Off:
			// Grow the free space at the arena's end by the shortfall.
			g := free[len(free)-1]
			free = free[:len(free)-1]
			off[i] = g.Off
			end = g.Off + iv[i].Size
		default:
			off[i] = align(end, iv[i].Align)
			if off[i] > end {
				release2(&free, state.Gap{Off: end, End: off[i]})
			}
			end = off[i] + iv[i].Size
		}
		live = append(live, i)
	}
	return off
}

// release2 inserts a free space that touches no other into the sorted
// list.
func release2(free *[]state.Gap, g state.Gap) {
	k := sort.Search(len(*free), func(k int) bool { return (*free)[k].Off >= g.Off })
	*free = append((*free)[:k], append([]state.Gap{g}, (*free)[k:]...)...)
}

// Seed001 is seed 001's shared block identifiers.
type Seed001 struct{}

// Name implements Planner.
func (Seed001) Name() string { return "seed001" }

// Doc implements Planner.
func (Seed001) Doc() string {
	return "seed 001: blocks share identifiers (slots) taken from an idle list and returned when they die; a slot is as large as its largest block"
}

// Offsets implements Planner.
func (Seed001) Offsets(iv []Interval) []int64 {
	slotOf := make([]int, len(iv))
	var slotSize []int64
	var slotAlign []int64
	var idle []int // idle slots
	var live []int
	for _, i := range byTime(iv) {
		t := iv[i].First
		kept := live[:0]
		for _, j := range live {
			if iv[j].Last < t {
				idle = append(idle, slotOf[j])
			} else {
				kept = append(kept, j)
			}
		}
		live = kept
		sort.Ints(idle)
		// The smallest idle slot large enough, else the largest (it grows).
		pick := -1
		for k, s := range idle {
			if slotSize[s] >= iv[i].Size && (pick < 0 || slotSize[s] < slotSize[idle[pick]]) {
				pick = k
			}
		}
		if pick < 0 {
			for k, s := range idle {
				if pick < 0 || slotSize[s] > slotSize[idle[pick]] {
					pick = k
				}
			}
		}
		if pick >= 0 {
			s := idle[pick]
			idle = append(idle[:pick], idle[pick+1:]...)
			slotOf[i] = s
			slotSize[s] = max(slotSize[s], iv[i].Size)
			slotAlign[s] = max(slotAlign[s], iv[i].Align)
		} else {
			slotOf[i] = len(slotSize)
			slotSize = append(slotSize, iv[i].Size)
			slotAlign = append(slotAlign, iv[i].Align)
		}
		live = append(live, i)
	}
	base := make([]int64, len(slotSize))
	var at int64
	for s := range slotSize {
		at = align(at, slotAlign[s])
		base[s] = at
		at += slotSize[s]
	}
	off := make([]int64, len(iv))
	for i := range iv {
		off[i] = base[slotOf[i]]
	}
	return off
}

// Seed004 is seed 004's greedy by size.
type Seed004 struct{}

// Name implements Planner.
func (Seed004) Name() string { return "seed004" }

// Doc implements Planner.
func (Seed004) Doc() string {
	return "seed 004: largest block first, each into the smallest gap between the placed blocks alive with it, else on top"
}

// Offsets implements Planner.
func (Seed004) Offsets(iv []Interval) []int64 {
	idx := make([]int, len(iv))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return iv[idx[a]].Size > iv[idx[b]].Size })
	off := make([]int64, len(iv))
	var placed []int // sorted by offset
	for _, i := range idx {
		var best int64 = -1
		var bestGap int64
		var prevEnd int64
		top := int64(0)
		for _, j := range placed {
			if iv[j].Last < iv[i].First || iv[j].First > iv[i].Last {
				continue
			}
			o := align(prevEnd, iv[i].Align)
			if gap := off[j] - o; gap >= iv[i].Size && (best < 0 || gap < bestGap) {
				best, bestGap = o, gap
			}
			prevEnd = max(prevEnd, off[j]+iv[j].Size)
			top = max(top, off[j]+iv[j].Size)
		}
		if best < 0 {
			best = align(top, iv[i].Align)
		}
		off[i] = best
		k := sort.Search(len(placed), func(k int) bool { return off[placed[k]] > best })
		placed = append(placed[:k], append([]int{i}, placed[k:]...)...)
	}
	return off
}
