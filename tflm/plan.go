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
	// variables (TFLM keeps them in the persistent section). Where the
	// packer finds no head smaller than TFLM's (By is "TFLM greedy") every
	// offset is Online: TFLM then makes its own plan at run time, of the
	// same head, and places kernels' scratch buffers among the tensors
	// rather than around fixed ones (an offline copy of its plan can cost
	// a scratch buffer's bytes more: 128 B on keyword_scrambled).
	Offsets []int32
	// Head is the head the plan needs; Greedy TFLM's own; MaxLive the
	// most bytes alive at one scope with every in-place pair sharing its
	// bytes, a lower bound on any head.
	Head, Greedy, MaxLive int64
	// Optimal is true when no head smaller than Head exists: Head equals
	// MaxLive, or no pair can share and the packer proved it.
	Optimal bool
	// InPlace counts the tensors that share an input's bytes (an op that
	// runs in place writes its output over its input).
	InPlace int
	// By says which plan was best: "pack", "pack, in place" (the packer
	// with in-place pairs sharing their bytes) or "TFLM greedy" (where
	// the packer found nothing smaller).
	By    string
	Nodes int64
}

// Plan lays out the tensors TFLM places (all but variables) with
// hieropt's exact packer (package pack) for the smallest head, once with
// every tensor apart and once with in-place pairs sharing their bytes (an
// input whose life ends at an op that runs in place, and the op's first
// output of the same size: tflite.InPlace), and keeps the smaller; TFLM's
// own greedy plan where neither is smaller, so the head is never above
// TFLM's. Ties go to the plan without sharing.
func (m *Model) Plan(ctx context.Context, o PlanOptions) (*Result, error) {
	p, _, idx := m.problem(nil)
	_, greedy := pack.TFLM(p, nil, nil)
	r := &Result{Greedy: greedy, MaxLive: pack.MaxLive(p), Head: greedy, By: "TFLM greedy"}
	shared := m.inPlaceGroups(idx)
	if shared != nil {
		q, _ := merged(p, shared)
		r.MaxLive = pack.MaxLive(q)
	}
	proved := false
	var best []int64
	group := make([]int, len(idx)) // buffer -> its own index (apart)
	for k := range group {
		group[k] = k
	}
	for pass, g := range [][]int{group, shared} {
		if g == nil {
			continue
		}
		q, rep := merged(p, g)
		s, err := pack.Solve(ctx, q, &pack.Options{Minimize: true, NodeLimit: o.NodeLimit, Deadline: o.Deadline})
		if err != nil {
			return nil, fmt.Errorf("%s: pack: %w", DocName(m.File), err)
		}
		r.Nodes += s.Stats.Nodes
		switch {
		case s.Peak < r.Head:
			r.Head, proved = s.Peak, s.Optimal && shared == nil
			best = make([]int64, len(idx))
			for k := range best {
				best[k] = s.Offsets[rep[g[k]]]
			}
			r.By, r.InPlace = "pack", 0
			if pass == 1 {
				r.By = "pack, in place"
				for k := range g {
					if g[k] != k {
						r.InPlace++
					}
				}
			}
		case s.Peak == r.Head && s.Optimal && shared == nil:
			proved = true
		}
	}
	r.Optimal = proved || r.Head == r.MaxLive
	if o.Capacity > 0 && r.Head > o.Capacity {
		return r, fmt.Errorf("%s: the tensors need a head of %d B at least as planned (TFLM's greedy %d B, max-live %d B): more than the capacity, %d B", DocName(m.File), r.Head, greedy, r.MaxLive, o.Capacity)
	}
	r.Offsets = make([]int32, len(m.Tensors))
	for i := range r.Offsets {
		r.Offsets[i] = Online
	}
	if r.By == "TFLM greedy" {
		return r, nil
	}
	for k, i := range idx {
		if best[k] > math.MaxInt32 {
			return r, fmt.Errorf("%s: offset %d of tensor %d does not fit TFLM's int32", DocName(m.File), best[k], i)
		}
		r.Offsets[i] = int32(best[k])
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
		at[i] = k
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
