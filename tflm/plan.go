package tflm

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/hieropt/hieropt/pack"
)

// PlanOptions steer Plan.
type PlanOptions struct {
	// Capacity, if positive, is the most the head may take (bytes).
	Capacity int64
	// NodeLimit bounds the exact packer's branch and bound (nodes over all
	// its probes), so that the plan is the same on any machine; 0: none.
	NodeLimit int64
	// Deadline, if not zero, stops the packer (the best plan found is
	// kept; the plan then depends on the machine's speed).
	Deadline time.Time
}

// Result is an offline plan that Plan made.
type Result struct {
	// Offsets has one offset per tensor of the model: Online for the
	// tensors TFLM does not place (constants, zero bytes) and for
	// variables (TFLM keeps them in the persistent section). Where no
	// packing gives a head smaller than TFLM's own at run time (By is
	// "TFLM greedy") every offset is Online: TFLM then makes its own plan
	// at run time, with the kernels' scratch buffers among the tensors.
	Offsets []int32
	// Head is the head TFLM makes of the plan at run time: the tensors at
	// their offsets and the kernels' scratch buffers, which TFLM always
	// plans itself, around them. Greedy is TFLM's own head (no offline
	// plan, scratch buffers included); Greedy - Head is what the runtime's
	// arena_used_bytes saves. MaxLive is the most bytes alive at one scope
	// (scratch buffers included) with every in-place pair sharing its
	// bytes, a lower bound on any head.
	Head, Greedy, MaxLive int64
	// Scratch is the bytes of the kernels' scratch buffers known (each
	// rounded up to 16), counted in the heads.
	Scratch int64
	// Unknown lists the operators whose kernels' scratch buffers are not
	// known (Model.UnknownScratch); where there are any, every tensor is
	// left to TFLM: a plan's head at run time cannot be known.
	Unknown []string
	// Optimal is true when no head smaller than Head exists: Head equals
	// MaxLive, or no pair can share and the packer proved its head, which
	// the runtime makes of the plan, the least.
	Optimal bool
	// InPlace counts the tensors that share an input's bytes (an op that
	// runs in place writes its output over its input).
	InPlace int
	// By says which plan was best: "pack", "pack, in place" (the packer
	// with in-place pairs sharing their bytes) or "TFLM greedy" (where
	// no packing is smaller at run time).
	By    string
	Nodes int64
}

// Plan lays out the tensors TFLM places (all but variables) with
// hieropt's exact packer (package pack) for the smallest head at run
// time. The kernels' scratch buffers (Model.Scratch) are not the plan's
// to place: TFLM plans them at run time around the offline tensors, by
// its greedy planner. So Plan packs four ways (the tensors with the
// scratch buffers, and the tensors alone; each once with every tensor
// apart and once with in-place pairs sharing their bytes: an input whose
// life ends at an op that runs in place, and the op's first output of the
// same size, tflite.InPlace), lays out what TFLM makes of each at run time
// (Model.Head) and keeps the smallest. Where none is smaller than TFLM's
// own plan, or some kernel's scratch buffers are unknown, every tensor is
// left to TFLM: the head at run time is never above TFLM's own. Ties go to
// the earlier way.
func (m *Model) Plan(ctx context.Context, o PlanOptions) (*Result, error) {
	full, _, idx := m.problem(nil)
	_, greedy := pack.TFLM(full, nil, nil)
	r := &Result{Greedy: greedy, MaxLive: pack.MaxLive(full), Head: greedy, By: "TFLM greedy", Scratch: m.ScratchBytes(), Unknown: m.UnknownScratch()}
	shared := m.inPlaceGroups(idx)
	if shared != nil {
		q, _ := merged(full, shared)
		r.MaxLive = pack.MaxLive(q)
	}
	proved := false
	var best []int32
	apart := make([]int, len(idx)) // buffer -> its own index
	for k := range apart {
		apart[k] = k
	}
	ntensors := 0 // the tensors come first in full
	for _, i := range idx {
		if i >= 0 {
			ntensors++
		}
	}
	tensorsOnly := &pack.Problem{Buffers: full.Buffers[:ntensors]}
	for way := 0; way < 4 && r.Unknown == nil; way++ {
		p, g := full, apart
		if way%2 == 1 {
			if shared == nil {
				continue
			}
			g = shared
		}
		if way >= 2 {
			if len(m.Scratch) == 0 {
				break // the same problem as ways 0 and 1
			}
			p, g = tensorsOnly, g[:ntensors]
		}
		q, rep := merged(p, g)
		s, err := pack.Solve(ctx, q, &pack.Options{Minimize: true, NodeLimit: o.NodeLimit, Deadline: o.Deadline})
		if err != nil {
			return nil, fmt.Errorf("%s: pack: %w", DocName(m.File), err)
		}
		r.Nodes += s.Stats.Nodes
		offsets := make([]int32, len(m.Tensors))
		for i := range offsets {
			offsets[i] = Online
		}
		for k := range ntensors {
			off := s.Offsets[rep[g[k]]]
			if off > math.MaxInt32 {
				return r, fmt.Errorf("%s: offset %d of tensor %d does not fit TFLM's int32", DocName(m.File), off, idx[k])
			}
			offsets[idx[k]] = int32(off)
		}
		_, head := m.Head(offsets)
		if head < r.Head {
			r.Head, best = head, offsets
			r.By, r.InPlace = "pack", 0
			if way%2 == 1 {
				r.By = "pack, in place"
				for k := range g {
					if g[k] != k {
						r.InPlace++
					}
				}
			}
		}
		// The packer's least peak of the tensors with the scratch
		// buffers, every tensor apart, bounds every head the runtime can
		// make when no pair may share.
		if way == 0 && s.Optimal && shared == nil && s.Peak == r.Head {
			proved = true
		}
	}
	r.Optimal = proved || r.Head == r.MaxLive
	if o.Capacity > 0 && r.Head > o.Capacity {
		return r, fmt.Errorf("%s: the tensors and the kernels' scratch buffers need a head of %d B at least as planned (TFLM's greedy %d B, max-live %d B): more than the capacity, %d B", DocName(m.File), r.Head, greedy, r.MaxLive, o.Capacity)
	}
	r.Offsets = best
	if best == nil {
		r.Offsets = make([]int32, len(m.Tensors))
		for i := range r.Offsets {
			r.Offsets[i] = Online
		}
	}
	return r, nil
}

// inPlaceGroups returns, for each planned tensor idx[k], the buffer
// whose bytes it shares: itself, or the first of its in-place chain; nil
// if no pair can share. An op's first output shares the bytes of its
// first input that may run in place with it (Model.inPlace) and whose life
// ends at the op: the two meet only at that op's scope.
func (m *Model) inPlaceGroups(idx []int) []int {
	at := make(map[int]int, len(idx)) // tensor -> buffer
	for k, i := range idx {
		if i >= 0 {
			at[i] = k
		}
	}
	g := make([]int, len(idx))
	for k := range g {
		g[k] = k
	}
	found := false
	for k, op := range m.Graph.Ops {
		if len(op.Outputs) == 0 {
			continue
		}
		out := op.Outputs[0]
		kb, ok := at[out]
		if !ok || m.Tensors[out].First != k+1 {
			continue
		}
		for _, a := range op.Inputs {
			if ka, ok := at[a]; ok && m.inPlaceOutput(a) == out {
				g[kb] = g[ka]
				found = true
				break
			}
		}
	}
	if !found {
		return nil
	}
	return g
}

// merged returns the problem of p with the buffers of each group made
// one (lifetimes joined; the members have one size) and, for each group
// leader, its buffer in the new problem.
func merged(p *pack.Problem, g []int) (*pack.Problem, map[int]int) {
	q := &pack.Problem{Capacity: 0}
	rep := map[int]int{}
	for k, b := range p.Buffers {
		l := g[k]
		j, ok := rep[l]
		if !ok {
			rep[l] = len(q.Buffers)
			q.Buffers = append(q.Buffers, b)
			continue
		}
		q.Buffers[j].Lower = min(q.Buffers[j].Lower, b.Lower)
		q.Buffers[j].Upper = max(q.Buffers[j].Upper, b.Upper)
		q.Buffers[j].Size = max(q.Buffers[j].Size, b.Size)
	}
	return q, rep
}
