package arena

import (
	"context"
	"fmt"

	"github.com/hieropt/hieropt/pack"
)

// PackNodeLimit is the branch-and-bound budget of the pack planner: nodes
// over all of Minimize's probes. A node budget, unlike a deadline, gives
// the same arena on any machine.
const PackNodeLimit = 20000

// WithinNodeLimit is the branch-and-bound budget of one packing to a
// capacity (PackWithin): enough for each of MiniMalloc's eleven challenging
// instances at their capacity, which take 417-31 000 nodes (instance E the
// most; see pack/doc.go), with room to spare. It bounds the work where the
// initializer fails (the fallback plan of package actions) and where the
// pack planner's least peak is above a level's capacity (Place).
const WithinNodeLimit = 1 << 18

// Pack is the exact packer (package pack) as a single-arena planner: the
// least peak it can find and prove within PackNodeLimit nodes, after its
// greedy portfolio (six orders, greedy by size first, each with best fit
// and first fit).
type Pack struct{}

var _ Planner = Pack{}

// Name implements Planner.
func (Pack) Name() string { return "pack" }

// Doc implements Planner.
func (Pack) Doc() string {
	return fmt.Sprintf("package pack: greedy portfolio, then branch and bound on canonical packings for the least peak (%d nodes at most)", PackNodeLimit)
}

// Offsets implements Planner.
func (Pack) Offsets(iv []Interval) []int64 {
	if len(iv) == 0 {
		return nil
	}
	s, err := pack.Solve(context.Background(), buffers(iv, 0, nil), &pack.Options{Minimize: true, NodeLimit: PackNodeLimit})
	if err != nil {
		// Intervals come from bound problems: positive sizes, First <=
		// Last. Anything else is a bug.
		panic(fmt.Sprintf("arena: pack: %v", err))
	}
	return s.Offsets
}

// Within implements CapacityPlanner: PackWithin.
func (Pack) Within(iv []Interval, capacity int64, times []int64) ([]int64, bool) {
	off, ok, _ := PackWithin(context.Background(), iv, capacity, times)
	return off, ok
}

// CapacityPlanner is a Planner that can also pack to a given arena size,
// where its own arena (Offsets) is larger: Place uses it for a level whose
// capacity the planner's arena exceeds. Of the registered planners only
// pack is one; the seeds' are fixed greedy rules with no such mode.
type CapacityPlanner interface {
	Planner
	// Within returns offsets that keep every interval within capacity, or
	// false if it finds none within its (deterministic) budget. times is
	// as for PackWithin.
	Within(iv []Interval, capacity int64, times []int64) ([]int64, bool)
}

var _ CapacityPlanner = Pack{}

// PackWithin packs the intervals into capacity bytes with the exact packer
// (package pack): any packing within the capacity, not the least peak,
// under a budget of WithinNodeLimit branch-and-bound nodes after the greedy
// portfolio, so that the answer is the same on any machine. It reports
// whether it found one (false: none exists, or none was found within the
// budget) and the nodes the packer explored. When ctx ends the packer stops
// where it is (and the answer is no longer deterministic).
//
// times, if not nil, gives the time of each timestep (workload.Times: T+1
// increasing values): the packer's orders weigh lifetimes by their length
// in time, and on MiniMalloc's instances imported as workloads the
// original times matter (instance I packs in 4387 nodes with them, and
// took more than 3 million with timesteps in their place). nil: the
// timesteps themselves.
func PackWithin(ctx context.Context, iv []Interval, capacity int64, times []int64) (off []int64, ok bool, nodes int64) {
	if len(iv) == 0 {
		return nil, true, 0
	}
	if MaxLive(iv) > capacity {
		return nil, false, 0
	}
	s, err := pack.Solve(ctx, buffers(iv, capacity, times), &pack.Options{NodeLimit: WithinNodeLimit})
	if err != nil {
		panic(fmt.Sprintf("arena: pack: %v", err)) // as in Offsets
	}
	if !s.Solved {
		return nil, false, s.Stats.Nodes
	}
	return s.Offsets, true, s.Stats.Nodes
}

// buffers turns intervals into a packing problem of the given capacity,
// timestep k at time times[k] (k itself if times is nil).
func buffers(iv []Interval, capacity int64, times []int64) *pack.Problem {
	at := func(k int) int64 {
		if times == nil {
			return int64(k)
		}
		return times[k]
	}
	pp := &pack.Problem{Buffers: make([]pack.Buffer, len(iv)), Capacity: capacity}
	for i, x := range iv {
		// An interval's last timestep is inclusive; a buffer's upper
		// bound is not: blocks that end and start at one timestep conflict.
		pp.Buffers[i] = pack.Buffer{Lower: at(x.First), Upper: at(x.Last + 1), Size: x.Size, Align: x.Align}
	}
	return pp
}
