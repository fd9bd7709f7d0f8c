package baseline

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// ErrTimelineOnly is Pipeline's error on a problem bound without the
// timeline model's semantics: under the seed models a copy is never issued
// before its op, so there is nothing to pipeline (a copy with no lead only
// adds its price to the read it replaces).
var ErrTimelineOnly = errors.New("seed004-pipeline plans for the timeline model")

// Pipelined is the plan of seed 004's pipelined weight loading and what
// Pipeline did to make it.
type Pipelined struct {
	Layout *state.Layout
	// Level is the level the weights are copied into (the fastest one a
	// copy may write), -1 if there is none. The weights take turns at the
	// two ends of the region [Base, Base+Size) of it; Want is what the
	// largest two consecutive ops' weights need (the region is smaller
	// where the activations need the room).
	Level            int
	Base, Size, Want int64
	// Streamed weights are copied from their home at their op with start
	// one op earlier, Loaded ones (whose lifetime begins at their op)
	// loaded then; Home is the weights that could have been copied but did
	// not fit, read from their home.
	Streamed, Loaded, Home int
}

// Pipeline plans p (bound with the timeline model's semantics) the way
// seed 004's second half does (its figures 3 and 4): each op's weights are
// copied into memory while the op before it computes, into the space the
// weights of the op before last used, so that two regions, used in turns,
// hold every layer's weights.
//
//   - The weights of op t are the constants it reads last (a constant read
//     by several ops is copied for its last read and read from its home
//     before: a block stays where it is copied until its lifetime ends, and
//     nothing copies a constant back to a read-only home, so copying it
//     for an earlier read would hold the region until then).
//   - They go into the fastest level a copy may write (not read-only) that
//     is faster than their home and holds them, with a copy at t whose
//     start is t-1 (Seg.Lead 1), or, for a constant whose lifetime begins
//     at t, a load issued at t-1 (at 0 for op 0).
//   - The region is at the top of that level, sized for the largest
//     footprint of two consecutive ops' weights. The weights of
//     consecutive ops with weights take turns at its low end (packed
//     upwards) and its high end (packed downwards), so that the copy for
//     op t+1 never touches op t's weights. A weight that does not fit
//     (the region was made smaller, or a constant lives on past its
//     read) is read from its home.
//   - The other blocks are placed by seed 003's initializer
//     (actions.InitialPlan, workload order; its fallback plan where it
//     cannot place a block) below the region, as if the constants were
//     pinned to their homes. Where they do not fit beside the region it is
//     halved until they do: the activations come first, as in the seed,
//     whose memory pool holds the tensors and whose pipeline streams the
//     weights.
//
// The error is ErrTimelineOnly without the timeline model's semantics,
// the initializer's if the other blocks fit nowhere even with no region,
// or ctx's.
func Pipeline(ctx context.Context, p *state.Problem) (*Pipelined, error) {
	if !p.Timeline() {
		return nil, ErrTimelineOnly
	}
	T := p.Prog.Timesteps()
	res := &Pipelined{Level: -1}
	for l := 0; l < p.Levels(); l++ {
		if p.CopyInto(l) {
			res.Level = l
			break
		}
	}
	fast := res.Level
	groups := make([][]int, T) // per op, its weights in ID order
	if fast >= 0 {
		for b := range p.Blocks() {
			blk := p.Block(b)
			if blk.Kind != workload.Constant || len(blk.Reads) == 0 || fast >= p.Home(b) || !p.Allowed(b, fast) {
				continue
			}
			t := blk.Reads[len(blk.Reads)-1]
			groups[t] = append(groups[t], b)
		}
	}
	size := func(t int) int64 {
		var s int64
		for _, b := range groups[t] {
			s = satAdd(s, p.Foot(b, fast))
		}
		return s
	}
	for t := range T {
		w := size(t)
		if t+1 < T {
			w = satAdd(w, size(t+1))
		}
		res.Want = max(res.Want, w)
	}
	var capacity, align int64
	if fast >= 0 {
		lv := &p.HW.Levels[fast]
		capacity, align = lv.Capacity, lv.Alignment
		res.Size = state.AlignDown(capacity, align)
		if w, ok := alignUp(res.Want, align); ok {
			res.Size = min(res.Size, w)
		}
	}
	var others *state.Layout
	for {
		var err error
		others, err = othersPlan(ctx, p, fast, capacity-res.Size)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if res.Size == 0 {
			return nil, err
		}
		res.Size = state.AlignDown(res.Size/2, align)
	}
	res.Base = capacity - res.Size
	lay := state.NewLayout(p.Blocks())
	for b := range lay.Segs {
		lay.Segs[b] = slices.Clone(others.Segs[b])
	}
	region := spaceTime{capacity: res.Base + res.Size}
	low := true
	for t := range T {
		if len(groups[t]) == 0 {
			continue
		}
		start := max(t-1, 0)
		cur, top := res.Base, res.Base+res.Size
		for _, b := range groups[t] {
			f, a, last := p.Foot(b, fast), p.Align(b, fast), p.Block(b).Last
			var off int64
			ok := false
			if low {
				off, ok = alignUp(cur, a)
			} else if top-res.Base >= f {
				off = state.AlignDown(top-f, a)
				ok = off >= res.Base
			}
			if !ok || !region.free(start, last, off, f) {
				res.Home++
				continue
			}
			region.take(start, last, off, f)
			if low {
				cur = off + f
			} else {
				top = off
			}
			seg := state.Seg{From: int32(t), Level: int32(fast), Offset: off, Lead: int32(t - start)}
			if p.Block(b).First == t {
				lay.Segs[b] = []state.Seg{seg}
				res.Loaded++
			} else {
				lay.Segs[b] = []state.Seg{lay.Segs[b][0], seg}
				res.Streamed++
			}
		}
		low = !low
	}
	res.Layout = lay
	return res, nil
}

// othersPlan places the blocks of p other than the constants by the
// initializer, the constants in their homes, with level fast holding only
// capacity bytes (fast < 0: every level whole).
func othersPlan(ctx context.Context, p *state.Problem, fast int, capacity int64) (*state.Layout, error) {
	prog := *p.Prog
	prog.Blocks = slices.Clone(prog.Blocks)
	for b := range prog.Blocks {
		if prog.Blocks[b].Kind == workload.Constant {
			prog.Blocks[b].Level = p.HW.Levels[p.Home(b)].Name
		}
	}
	prof := *p.HW
	prof.Levels = slices.Clone(prof.Levels)
	if fast >= 0 {
		if capacity <= 0 {
			return nil, fmt.Errorf("no room left in %s", prof.Levels[fast].Name)
		}
		prof.Levels[fast].Capacity = capacity
	}
	q, err := state.Bind(&prog, &prof, "workload")
	if err != nil {
		return nil, err
	}
	lay, _, err := actions.InitialPlan(ctx, q, costmodel.Seed003{})
	return lay, err
}
