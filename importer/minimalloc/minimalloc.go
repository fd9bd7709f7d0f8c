// Package minimalloc converts between MiniMalloc's CSV packing problems
// (FORMATS.md section 5; pack.ReadCSV reads them) and hieropt's workloads
// and plans.
//
// Import turns a problem into a workload:
//
//   - one op per distinct time point (every lower and upper value), in
//     increasing order; op k is named "t<time>" (e.g. "t1024"), so that
//     the original times survive the trip. The last op is the largest
//     upper value, where nothing is alive any more;
//   - one block per buffer, in file order, named by its id, with its size
//     and alignment: alive on the half-open [lower, upper), it lives from
//     first = the op of lower to last = the op of upper minus one
//     (inclusive), so that two blocks share a timestep exactly when the
//     buffers conflict;
//   - a buffer alive over one section (first == last) is a scratch block,
//     written and read at that op; every other buffer is an activation,
//     written by op first and read by op last. None is reusable, pinned or
//     constant: a packing problem has no in-place reuse.
//
// Problem turns a workload back into one packing problem (block i alive on
// [first, last+1)), and Export turns the placements of a plan in one level
// into a packing problem with its solution, which pack.WriteCSV writes in
// MiniMalloc's output format id,lower,upper,size,offset. Both map timestep
// k to a time with Times: the time in op k's name for a workload that
// Import made, else k itself. So import, plan in one level, export gives
// back the original buffers with offsets that pack.Check accepts against
// the original problem.
package minimalloc

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hieropt/hieropt/pack"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Import converts a packing problem to a validated workload named name;
// source is the workload's free-text source field.
func Import(name, source string, p *pack.Problem) (*workload.Program, error) {
	if len(p.Buffers) == 0 {
		return nil, fmt.Errorf("no buffers: a workload needs at least one op")
	}
	seen := make(map[int64]bool, 2*len(p.Buffers))
	var points []int64
	for _, b := range p.Buffers {
		for _, t := range []int64{b.Lower, b.Upper} {
			if !seen[t] {
				seen[t] = true
				points = append(points, t)
			}
		}
	}
	sort.Slice(points, func(i, j int) bool { return points[i] < points[j] })
	rank := make(map[int64]int, len(points))
	prog := &workload.Program{Name: name, Source: source, Ops: make([]workload.Op, len(points))}
	for k, t := range points {
		rank[t] = k
		prog.Ops[k] = workload.Op{Name: "t" + strconv.FormatInt(t, 10)}
	}
	prog.Blocks = make([]workload.Block, len(p.Buffers))
	for i, b := range p.Buffers {
		first, last := rank[b.Lower], rank[b.Upper]-1
		blk := workload.Block{Name: b.ID, Size: b.Size, First: first, Last: last, Align: b.Align}
		if first == last {
			blk.Kind = workload.Scratch
			blk.Writes, blk.Reads = []int{first}, []int{first}
		} else {
			blk.Kind = workload.Activation
			blk.Writes, blk.Reads = []int{first}, []int{last}
		}
		prog.Blocks[i] = blk
	}
	if err := prog.Validate(workload.DocName(name)); err != nil {
		return nil, err
	}
	return prog, nil
}

// Times returns the time of each timestep 0..T of a validated workload of
// T ops (T+1 values, strictly increasing). When every op is named
// "t<integer>" with the integers increasing (as Import names them), op k's
// time is its integer; otherwise it is k. Time T, the end of the last op,
// is the last op's time plus one. It is workload.Times, which the fallback
// plan's packer (package actions) uses too.
func Times(prog *workload.Program) []int64 { return workload.Times(prog) }

// Problem returns the workload's blocks as one packing problem with no
// capacity: buffer i is block i, alive on [first, last+1) in Times, with
// its size and its own alignment (a profile's is not known here). The
// max-live of the problem is the workload's (inspect's plain max-live): a
// block that ends at a timestep and one created there both count, as
// in-place reuse does not exist in a packing problem.
func Problem(prog *workload.Program) *pack.Problem {
	times := Times(prog)
	p := &pack.Problem{Buffers: make([]pack.Buffer, len(prog.Blocks))}
	for i, b := range prog.Blocks {
		p.Buffers[i] = pack.Buffer{ID: b.Name, Lower: times[b.First], Upper: times[b.Last+1], Size: b.Size, Align: b.Align}
	}
	return p
}

// Export returns the placements of a valid plan in level l of the problem
// it was validated against, as a packing problem (capacity: the level's)
// with its solution: a buffer per placement, in block order then time, its
// id the block's name (name@from when the block has more than one
// placement in the level), alive on [time(from), time(to+1)) (see Times),
// its size the block's footprint in the level (its size rounded up to the
// effective alignment, which is the buffer's alignment too) and its offset
// the placement's. The solution is checked with pack.Check. A plan that
// lets a block take a reusable block's space in place (FORMATS.md rule 4)
// fails it, since MiniMalloc's buffers that share a time never share
// memory, unless o.InPlace is set; see ExportOptions.
func Export(p *state.Problem, pl *plan.Plan, l int, o *ExportOptions) (*pack.Problem, *pack.Solution, error) {
	if o == nil {
		o = &ExportOptions{}
	}
	if l < 0 || l >= p.Levels() {
		return nil, nil, fmt.Errorf("level %d: the profile has %d levels", l, p.Levels())
	}
	level := p.HW.Levels[l].Name
	type place struct {
		block    int
		from, to int
		offset   int64
	}
	var ps []place
	count := make(map[int]int)
	for _, x := range pl.Placements {
		if x.Level != level {
			continue
		}
		b, ok := p.BlockID(x.Block)
		if !ok {
			return nil, nil, fmt.Errorf("placement of %q: no such block in workload %q", x.Block, p.Prog.Name)
		}
		ps = append(ps, place{b, x.From, x.To, x.Offset})
		count[b]++
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].block != ps[j].block {
			return ps[i].block < ps[j].block
		}
		return ps[i].from < ps[j].from
	})
	// In place: a placement that ends where a block created over it at
	// that timestep begins (same level, same offset, the kind rule allows
	// it) may end one timestep early.
	early := make([]bool, len(ps))
	if o.InPlace {
		type key struct {
			t   int
			off int64
		}
		starts := make(map[key][]int)
		for j, x := range ps {
			if x.from == p.Prog.Blocks[x.block].First {
				starts[key{x.from, x.offset}] = append(starts[key{x.from, x.offset}], j)
			}
		}
		for i, x := range ps {
			a := &p.Prog.Blocks[x.block]
			if x.to != a.Last || x.from == x.to {
				continue
			}
			for _, j := range starts[key{x.to, x.offset}] {
				if j != i && workload.CanReuse(a, &p.Prog.Blocks[ps[j].block]) {
					early[i] = true
				}
			}
		}
	}
	times := Times(p.Prog)
	prob := &pack.Problem{Capacity: p.HW.Levels[l].Capacity, Buffers: make([]pack.Buffer, len(ps))}
	sol := &pack.Solution{Offsets: make([]int64, len(ps))}
	ids := make(map[string]bool, len(ps))
	for i, x := range ps {
		name := p.Prog.Blocks[x.block].Name
		if err := csvID(name); err != nil {
			return nil, nil, fmt.Errorf("block %q: %w", name, err)
		}
		id := name
		if count[x.block] > 1 {
			id = fmt.Sprintf("%s@%d", name, x.from)
		}
		if ids[id] {
			return nil, nil, fmt.Errorf("block %q: id %q is used twice in the CSV", name, id)
		}
		ids[id] = true
		if x.from < 0 || x.to < x.from || x.to >= len(p.Prog.Ops) {
			return nil, nil, fmt.Errorf("placement of %q: [%d,%d] outside the program", name, x.from, x.to)
		}
		upper := times[x.to+1]
		if early[i] {
			upper = times[x.to]
		}
		prob.Buffers[i] = pack.Buffer{ID: id, Lower: times[x.from], Upper: upper,
			Size: p.Foot(x.block, l), Align: p.Align(x.block, l)}
		sol.Offsets[i] = x.offset
		sol.Peak = max(sol.Peak, x.offset+prob.Buffers[i].Size)
	}
	sol.Solved = true
	sol.Optimal = sol.Peak == pack.MaxLive(prob)
	if err := pack.Check(prob, sol); err != nil {
		if o.InPlace {
			return nil, nil, fmt.Errorf("the placements in level %s are not a MiniMalloc solution, even with in-place blocks ending early (%v): "+
				"a block of one timestep cannot end earlier", level, err)
		}
		return nil, nil, fmt.Errorf("the placements in level %s are not a MiniMalloc solution (%v): "+
			"in-place reuse, where a block takes a reusable block's space at the timestep it ends, "+
			"has no equivalent in MiniMalloc's format, where buffers alive at the same time never share memory "+
			"(let such blocks end one timestep early: --in-place)", level, err)
	}
	return prob, sol, nil
}

// ExportOptions steer Export.
type ExportOptions struct {
	// InPlace ends a placement one timestep early (upper = time(to)) when a
	// block created at its last timestep takes its space in place (same
	// level and offset, the kind rule of FORMATS.md section 1 allows it):
	// the op at that timestep reads the old block while it writes the new
	// one over it, which MiniMalloc's format can only say by letting the
	// old buffer end where the new one starts. A placement of one timestep
	// cannot end earlier, and stays as it is.
	InPlace bool
}

// csvID reports why a block name cannot be an id of MiniMalloc's CSV,
// which has no quoting: ReadCSV splits on commas and trims spaces.
func csvID(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("an empty name cannot be a CSV id")
	case strings.ContainsAny(name, ",\r\n"):
		return fmt.Errorf("a name with a comma or a line break cannot be a CSV id (the format has no quoting)")
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("a name with leading or trailing spaces cannot be a CSV id (readers trim them)")
	}
	return nil
}
