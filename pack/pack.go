package pack

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Buffer is one buffer to place: alive on [Lower, Upper) (half-open), Size
// bytes, optional Align (0 = 1): its offset must be a multiple of Align.
type Buffer struct {
	ID                        string
	Lower, Upper, Size, Align int64
}

// Problem is a set of buffers and a capacity.
type Problem struct {
	Buffers  []Buffer
	Capacity int64
}

// Options steer Solve. The zero value (or a nil *Options) asks for any
// packing within Problem.Capacity, with no time limit.
type Options struct {
	// Deadline, if not zero, stops the search when it passes; Solve then
	// returns the best packing found (Solution.Solved is false if none fits).
	// Where it falls depends on the machine's speed: use NodeLimit when the
	// result must be reproducible.
	Deadline time.Time
	// Ctx, if not nil, stops the search like Deadline when it is done.
	Ctx context.Context
	// NodeLimit, if positive, stops the search like Deadline once the
	// branch-and-bound has explored that many nodes in total (over all
	// probes of Minimize; Stats.Nodes never exceeds it). Unlike a deadline
	// it is deterministic: the same problem and options give the same
	// result on any machine. Zero: no limit. The greedy portfolio runs
	// first whatever the limit.
	NodeLimit int64
	// Minimize asks for the smallest peak instead of any fit within
	// Capacity. Capacity, if positive, still bounds the peak; zero means
	// unbounded.
	Minimize bool
	// Seed is for randomized parts. The solver is deterministic: the same
	// problem, options and seed give the same offsets.
	Seed uint64
}

// Stats describe the work Solve did.
type Stats struct {
	Greedy   int           // greedy packings tried
	Nodes    int64         // branch-and-bound nodes explored
	Restarts int           // branch-and-bound restarts (strategy or limit changes)
	Nogoods  int64         // searches cut by the table of failed states
	Probes   int           // capacities tried by Minimize
	Time     time.Duration // wall time of Solve
	Exact    bool          // whether the branch-and-bound ran
	// Limited is true when Options.NodeLimit stopped the search before it
	// finished (the result is the best found within the limit).
	Limited bool
}

// Solution is the result of Solve.
type Solution struct {
	// Offsets has one offset per buffer, in input order.
	Offsets []int64
	// Peak is max(offset+size) over all buffers (0 for no buffers).
	Peak int64
	// Solved is true when every buffer is placed within Capacity (with
	// Minimize: a packing was found whose peak is within Capacity, if set).
	// When false, Offsets still hold a valid packing without overlaps, the
	// lowest-peak one found (by the greedy), whose peak exceeds the capacity.
	Solved bool
	// Optimal is true when Peak is proven smallest: Peak equals the
	// max-live lower bound, or (with Minimize) the search proved that no
	// smaller peak fits.
	Optimal bool
	Stats   Stats
}

// validate reports the first invalid buffer or capacity.
func validate(p *Problem) error {
	if p == nil {
		return fmt.Errorf("pack: nil problem")
	}
	if p.Capacity < 0 {
		return fmt.Errorf("pack: capacity %d is negative", p.Capacity)
	}
	for i, b := range p.Buffers {
		name := fmt.Sprintf("buffer %d (%q)", i, b.ID)
		switch {
		case b.Lower < 0:
			return fmt.Errorf("pack: %s: lower %d is negative", name, b.Lower)
		case b.Lower >= b.Upper:
			return fmt.Errorf("pack: %s: lower %d >= upper %d", name, b.Lower, b.Upper)
		case b.Size <= 0:
			return fmt.Errorf("pack: %s: size %d is not positive", name, b.Size)
		case b.Align < 0:
			return fmt.Errorf("pack: %s: align %d is negative", name, b.Align)
		}
	}
	return nil
}

// MaxLive returns the max-live lower bound: the largest total size of the
// buffers alive at one time. A buffer that ends at t and one that starts at
// t are not alive together.
func MaxLive(p *Problem) int64 {
	type ev struct {
		t, d int64
	}
	evs := make([]ev, 0, 2*len(p.Buffers))
	for _, b := range p.Buffers {
		evs = append(evs, ev{b.Lower, b.Size}, ev{b.Upper, -b.Size})
	}
	// Ends (negative deltas) before starts at equal times.
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].t != evs[j].t {
			return evs[i].t < evs[j].t
		}
		return evs[i].d < evs[j].d
	})
	var live, best int64
	for _, e := range evs {
		live += e.d
		if live > best {
			best = live
		}
	}
	return best
}

// Check verifies a solution independently of the solver: one offset per
// buffer, offsets aligned and non-negative, every buffer within the capacity
// (if Capacity > 0), the reported peak right, and no two buffers that are
// alive at the same time overlapping in memory.
func Check(p *Problem, s *Solution) error {
	if s == nil {
		return fmt.Errorf("check: nil solution")
	}
	if len(s.Offsets) != len(p.Buffers) {
		return fmt.Errorf("check: %d offsets for %d buffers", len(s.Offsets), len(p.Buffers))
	}
	var peak int64
	for i, b := range p.Buffers {
		o := s.Offsets[i]
		if o < 0 {
			return fmt.Errorf("check: buffer %q: offset %d is negative", b.ID, o)
		}
		if b.Align > 1 && o%b.Align != 0 {
			return fmt.Errorf("check: buffer %q: offset %d is not a multiple of align %d", b.ID, o, b.Align)
		}
		if p.Capacity > 0 && o+b.Size > p.Capacity {
			return fmt.Errorf("check: buffer %q: [%d,%d) exceeds capacity %d", b.ID, o, o+b.Size, p.Capacity)
		}
		peak = max(peak, o+b.Size)
	}
	if peak != s.Peak {
		return fmt.Errorf("check: peak is %d, solution says %d", peak, s.Peak)
	}
	// Sweep over time: buffers sorted by lower; an active list of those
	// still alive. Quadratic in the worst case, which is fine for a checker.
	idx := make([]int, len(p.Buffers))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return p.Buffers[idx[a]].Lower < p.Buffers[idx[b]].Lower })
	var active []int
	for _, i := range idx {
		bi := p.Buffers[i]
		keep := active[:0]
		for _, j := range active {
			if p.Buffers[j].Upper > bi.Lower {
				keep = append(keep, j)
			}
		}
		active = keep
		for _, j := range active {
			bj := p.Buffers[j]
			oi, oj := s.Offsets[i], s.Offsets[j]
			if oi < oj+bj.Size && oj < oi+bi.Size {
				return fmt.Errorf("check: buffers %q [%d,%d)@%d and %q [%d,%d)@%d overlap in time and memory",
					bi.ID, bi.Lower, bi.Upper, oi, bj.ID, bj.Lower, bj.Upper, oj)
			}
		}
		active = append(active, i)
	}
	return nil
}

// peakOf returns max(offset+size).
func peakOf(p *Problem, offs []int64) int64 {
	var peak int64
	for i, b := range p.Buffers {
		peak = max(peak, offs[i]+b.Size)
	}
	return peak
}
