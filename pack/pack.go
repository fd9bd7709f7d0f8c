package pack

import (
	"cmp"
	"fmt"
	"slices"
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
// packing within Problem.Capacity, with no time limit. Solve's context
// stops it like Deadline when it is done (a deadline of the context counts
// too).
type Options struct {
	// Deadline, if not zero, is when Solve must return: every phase asks
	// for it often (every 256 buffers placed, 4096 compiled, and 1 to
	// 1024 nodes searched, fewer on larger problems), and Solve returns
	// the best packing found so
	// far (Solution.Solved is false if none fits; Stats.Cut names the
	// phase it stopped). A packing always exists: the first phase, a
	// greedy pass in start order, stacks the buffers it has not reached
	// above the others when the deadline passes, so even a deadline
	// already past gets a valid packing, at once. Where it falls depends
	// on the machine's speed: use NodeLimit when the result must be
	// reproducible. Zero: no deadline.
	Deadline time.Time
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
	// MemoryLimit bounds, in bytes, the memory the branch and bound may
	// take: its cover lists (the buffers alive in each section, as many
	// entries as the buffers' section counts add up to: 193 million on
	// idealloc's Y_1) and its per-section and per-buffer state, which
	// Solve estimates before allocating any (Stats.SearchBytes). Above the
	// limit the branch and bound over the whole instance does not run:
	// Solve returns the best packing before it (the greedy's, or on large
	// instances a hard-core search's: each core's search is held to the
	// limit alike), with Stats.OverMemory set. Zero:
	// DefaultMemoryLimit; negative: an error.
	MemoryLimit int64
	// Seed is for randomized parts. The solver is deterministic: the same
	// problem, options and seed give the same offsets.
	Seed uint64

	// stopHook, if not nil, is asked with the current phase wherever the
	// deadline is, and stops Solve like it when it returns true: tests cut
	// each phase with it, deterministically.
	stopHook func(Phase) bool
}

// DefaultMemoryLimit is Options.MemoryLimit's default: 1 GiB.
const DefaultMemoryLimit int64 = 1 << 30

// Stats describe the work Solve did.
type Stats struct {
	Greedy   int           // greedy packings tried
	Nodes    int64         // branch-and-bound nodes explored
	Restarts int           // branch-and-bound restarts (strategy or limit changes)
	Nogoods  int64         // searches cut by the table of failed states
	Probes   int           // capacities tried by Minimize
	Cores    int           // hard-core searches that lowered the peak (large instances: see doc.go)
	Time     time.Duration // wall time of Solve
	Exact    bool          // whether the branch-and-bound ran on the whole instance
	// SearchBytes is the memory the branch and bound needs by Solve's
	// estimate (see Options.MemoryLimit), 0 if the greedy packings made it
	// needless.
	SearchBytes int64
	// OverMemory is true when SearchBytes was above Options.MemoryLimit,
	// so that the branch and bound over the whole instance did not run:
	// the packing is the best greedy or hard-core one.
	OverMemory bool
	// Limited is true when Options.NodeLimit stopped the search before it
	// finished (the result is the best found within the limit).
	Limited bool
	// Split is true when the packing came from splitting a zero-waste
	// instance in time and space (see the package documentation).
	Split bool
	// Backjumps counts the failures the branch and bound passed up past
	// a decision that played no part in them (its siblings left untried).
	Backjumps int64
	// Phases is the time of each phase; the four add up to Time.
	Phases PhaseTimes
	// Cut is the phase that Options.Deadline or Solve's context stopped
	// (PhaseNone if neither did): the phases after it did not run.
	Cut Phase
}

// Phase names one phase of Solve, in the order they run.
type Phase int

const (
	PhaseNone   Phase = iota
	PhaseFirst        // the greedy pass in start order, which needs no index
	PhaseIndex        // compiling the problem: sections, the buffers alive in each
	PhaseGreedy       // the rest of the greedy portfolio
	PhaseSearch       // the branch-and-bound (with Minimize, its capacity probes)
)

func (p Phase) String() string {
	switch p {
	case PhaseFirst:
		return "first pass"
	case PhaseIndex:
		return "index"
	case PhaseGreedy:
		return "greedy"
	case PhaseSearch:
		return "search"
	}
	return "none"
}

// PhaseTimes is the wall time of each phase of Solve (validating the
// input is counted in First).
type PhaseTimes struct {
	First, Index, Greedy, Search time.Duration
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
	return checkOverlaps(p, s.Offsets)
}

// checkOverlaps reports two buffers alive at the same time that overlap in
// memory, in O(n log n): a sweep over time (ends before starts at equal
// times) keeps the buffers alive in a Fenwick tree over their order by
// (offset, index). While no overlap has been found they are disjoint in
// memory, so a new buffer overlaps one of them exactly when it overlaps its
// neighbour below or above in that order.
func checkOverlaps(p *Problem, offs []int64) error {
	n := len(p.Buffers)
	bs := p.Buffers
	byOff := make([]int32, n)
	for i := range byOff {
		byOff[i] = int32(i)
	}
	slices.SortFunc(byOff, func(x, y int32) int {
		if c := cmp.Compare(offs[x], offs[y]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	rank := make([]int32, n) // 1-based position in byOff
	for r, b := range byOff {
		rank[b] = int32(r + 1)
	}
	// Events: a start is 2i+1, an end 2i; ends sort first at equal times.
	type event struct {
		t int64
		e int32
	}
	evs := make([]event, 0, 2*n)
	for i, b := range bs {
		evs = append(evs, event{b.Lower, int32(2*i + 1)}, event{b.Upper, int32(2 * i)})
	}
	slices.SortFunc(evs, func(x, y event) int {
		if c := cmp.Compare(x.t, y.t); c != 0 {
			return c
		}
		return cmp.Compare(x.e&1, y.e&1)
	})
	tree := make([]int32, n+1)
	add := func(r, d int32) {
		for ; int(r) <= n; r += r & -r {
			tree[r] += d
		}
	}
	count := func(r int32) int32 { // alive buffers of rank <= r
		var c int32
		for ; r > 0; r -= r & -r {
			c += tree[r]
		}
		return c
	}
	top := int32(1)
	for top*2 <= int32(n) {
		top *= 2
	}
	kth := func(k int32) int32 { // the rank of the k-th alive buffer (k >= 1)
		var r int32
		for step := top; step > 0; step /= 2 {
			if r+step <= int32(n) && tree[r+step] < k {
				r += step
				k -= tree[r]
			}
		}
		return r + 1
	}
	alive := int32(0)
	for _, ev := range evs {
		i := ev.e / 2
		if ev.e&1 == 0 {
			add(rank[i], -1)
			alive--
			continue
		}
		below := count(rank[i])
		for _, k := range [2]int32{below, below + 1} {
			if k < 1 || k > alive {
				continue
			}
			j := byOff[kth(k)-1]
			bi, bj := bs[i], bs[j]
			oi, oj := offs[i], offs[j]
			if oi < oj+bj.Size && oj < oi+bi.Size {
				return fmt.Errorf("check: buffers %q [%d,%d)@%d and %q [%d,%d)@%d overlap in time and memory",
					bi.ID, bi.Lower, bi.Upper, oi, bj.ID, bj.Lower, bj.Upper, oj)
			}
		}
		add(rank[i], 1)
		alive++
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
