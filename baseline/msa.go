package baseline

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// MSAResult is the plan of the XLA-style memory-space assignment and what
// MSA did to make it.
type MSAResult struct {
	Layout *state.Layout
	// Score is each block's memory boundedness (its benefit from the
	// fastest level it may use, over the square root of its size); NaN
	// for a block with no level faster than its home.
	Score []float64
	// Order is the blocks MSA tried to give a faster level, best score
	// first (ties by block ID): those with a positive score.
	Order []int
	// Level is the level each block got for its accesses: a faster
	// level, or its home.
	Level []int
	// Fast counts the blocks given a faster level, Prefetched the
	// constants among them copied there before their first read
	// (Loaded: loaded at their first timestep), Early the copies issued
	// before the op that needs them.
	Fast, Prefetched, Loaded, Early int
}

// MSA plans p in the manner of XLA's memory-space assignment (its
// MemoryBoundednessBufferIntervalCompare and its best-fit heap over
// buffer intervals), on hieropt's levels:
//
//   - Every block has a home: a constant its home level (Problem.Home),
//     any other block the level it is pinned to, else the slowest
//     writable level (what no planning does).
//   - A block's benefit is XLA's: over its accesses in time order, an
//     access at op t is worth, if the op is memory-bound with every
//     block in its home (m0(t) > c(t)), the time the access saves in the
//     fastest level it may use (out or in of its home minus that of the
//     fast level), else m0(t) - c(t) <= 0 (how far the op is from being
//     memory-bound); the benefits add while they are all positive, else
//     the largest is kept. Without the timeline model (or a compute
//     section) c(t) is 0, so the benefit is the time the block's
//     accesses save, as the seed models price them. Its score is the
//     benefit over the square root of its size.
//   - The blocks with a positive score, best first (ties by ID), are each
//     given the fastest level that has room for them (a level faster
//     than their home, that they may use, that a copy may write if they
//     are copied) over their range of timesteps, best fit in a
//     space-time occupancy of the level. The others would gain nothing
//     (and a constant's copy would cost DMA time): they stay home.
//   - Under the timeline model a constant is not there before the
//     program runs: it is prefetched from its home for its first read,
//     with the copy issued as early as the space is free, at most
//     Problem.Horizon ops before that read and not before its lifetime
//     (a load at its first timestep if it is first read then). Its range
//     is busy from the copy's start to its last timestep. Under the seed
//     models a constant's first placement is free, and it is placed for
//     its whole life like any other block.
//   - Before the greedy pass, every block's range in its home is set
//     aside for its whole life, packed as no planning packs it (NoPlanning:
//     seed 004's greedy by size, per level): what gets no faster level,
//     and the part of a prefetched constant's life before its copy, stays
//     there, and the greedy pass never takes space that a block staying
//     home needs. It fails only where no planning fails (or a block pinned
//     to a faster level does not fit it beside the others pinned there).
//
// It is deterministic: no map order, ties by block ID. It is a baseline,
// not built for size: every search for a chunk scans the level's
// rectangles (kept by offset, so one pass and no sort), so its time
// grows as the square of the blocks, as no planning's packing does (on
// this 2-core VM, 1.3-2.6 s for a generated 10,000-op program on h100-sm;
// 15 s when each search sorted the rectangles it found).
func MSA(p *state.Problem) (*MSAResult, error) {
	nb := p.Blocks()
	res := &MSAResult{Layout: state.NewLayout(nb), Score: make([]float64, nb), Level: make([]int, nb)}
	home := make([]int, nb)
	cands := make([][]int, nb)
	for b := range nb {
		home[b] = msaHome(p, b)
		res.Level[b] = home[b]
		copied := p.Timeline() && p.Block(b).Kind == workload.Constant
		for l := 0; l < home[b]; l++ {
			if p.Allowed(b, l) && (!copied || p.CopyInto(l)) {
				cands[b] = append(cands[b], l)
			}
		}
	}
	m0, c := msaOpTimes(p, home)
	for b := range nb {
		if len(cands[b]) == 0 {
			res.Score[b] = math.NaN()
			continue
		}
		res.Score[b] = msaBenefit(p, b, home[b], cands[b][0], m0, c) / math.Sqrt(float64(p.Block(b).Size))
		if res.Score[b] > 0 {
			res.Order = append(res.Order, b)
		}
	}
	slices.SortStableFunc(res.Order, func(a, b int) int { return cmp.Compare(res.Score[b], res.Score[a]) })

	// Every block's range in its home first, for its whole life, as no
	// planning packs it (seed 004's greedy by size): what the greedy pass
	// gives out in a level is then never space a block staying home there
	// needs.
	heaps := make([]spaceTime, p.Levels())
	for l := range heaps {
		heaps[l].capacity = p.HW.Levels[l].Capacity
	}
	byLevel := make([][]int, p.Levels())
	for b := range nb {
		byLevel[home[b]] = append(byLevel[home[b]], b)
	}
	for l, ids := range byLevel {
		iv := make([]arena.Interval, len(ids))
		for i, b := range ids {
			blk := p.Block(b)
			iv[i] = arena.Interval{First: blk.First, Last: blk.Last, Size: p.Foot(b, l), Align: p.Align(b, l)}
		}
		off := arena.Seed004{}.Offsets(iv)
		if peak := arena.Peak(iv, off); peak > p.HW.Levels[l].Capacity {
			return nil, fmt.Errorf("the blocks that stay in %s when nothing is planned need %d B there, which holds %d B", p.HW.Levels[l].Name, peak, p.HW.Levels[l].Capacity)
		}
		for i, b := range ids {
			blk := p.Block(b)
			heaps[l].take(blk.First, blk.Last, off[i], iv[i].Size)
			res.Layout.SetFirst(b, state.Seg{From: int32(blk.First), Level: int32(l), Offset: off[i]})
		}
	}

	for _, b := range res.Order {
		blk := p.Block(b)
		for _, l := range cands[b] {
			f, a := p.Foot(b, l), p.Align(b, l)
			if !p.Timeline() || blk.Kind != workload.Constant {
				off, ok := heaps[l].fit(blk.First, blk.Last, f, a)
				if !ok {
					continue
				}
				heaps[l].take(blk.First, blk.Last, off, f)
				res.Layout.SetFirst(b, state.Seg{From: int32(blk.First), Level: int32(l), Offset: off})
			} else {
				at := blk.Reads[0] // a positive score means reads
				lo := max(blk.First, at-p.Horizon())
				if at == blk.First {
					lo = max(0, at-p.Horizon())
				}
				start, off, ok := earliest(&heaps[l], lo, at, blk.Last, f, a)
				if !ok {
					continue
				}
				heaps[l].take(start, blk.Last, off, f)
				seg := state.Seg{From: int32(at), Level: int32(l), Offset: off, Lead: int32(at - start)}
				if at == blk.First {
					res.Layout.SetFirst(b, seg)
					res.Loaded++
				} else {
					res.Layout.Set(b, []state.Seg{res.Layout.Segs[b][0], seg})
					res.Prefetched++
				}
				if start < at {
					res.Early++
				}
			}
			res.Level[b] = l
			res.Fast++
			break
		}
	}
	return res, nil
}

// msaHome returns the level block b stays in when it gets no faster one:
// a constant's home (FORMATS.md 6.1), else the level it is pinned to, else
// the slowest writable level.
func msaHome(p *state.Problem, b int) int {
	if p.Block(b).Kind == workload.Constant {
		return p.Home(b)
	}
	if l := p.Pin(b); l != state.NoPin {
		return l
	}
	return slowestWritable(p, b)
}

// msaOpTimes returns, per op, m0: the time of its accesses with every
// block in its home, and c: its compute time under the timeline model
// (FORMATS.md 6.3 as settled in 6.4), 0 under the others.
func msaOpTimes(p *state.Problem, home []int) (m0, c []float64) {
	T := p.Prog.Timesteps()
	m0, c = make([]float64, T), make([]float64, T)
	if cu := p.HW.Compute; cu != nil && p.Timeline() {
		for t := range T {
			c[t] = cu.OpOverhead + float64(p.Prog.Ops[t].MACs)/cu.MACsPerUnit
		}
	}
	for b := range p.Blocks() {
		blk, lv := p.Block(b), &p.HW.Levels[home[b]]
		for _, t := range blk.Reads {
			m0[t] += lv.Out.Time(blk.Size)
		}
		for _, t := range blk.Writes {
			m0[t] += lv.In.Time(blk.Size)
		}
	}
	return m0, c
}

// msaBenefit is XLA's alternate-memory benefit of block b (whose home is
// level h) in level l, summed over its accesses in time order (see MSA).
func msaBenefit(p *state.Problem, b, h, l int, m0, c []float64) float64 {
	blk := p.Block(b)
	slow, fast := &p.HW.Levels[h], &p.HW.Levels[l]
	benefit, first := 0.0, true
	add := func(t int, saved float64) {
		u := m0[t] - c[t]
		if u > 0 {
			u = saved
		}
		switch {
		case first:
			benefit, first = u, false
		case benefit > 0 && u > 0:
			benefit += u
		default:
			benefit = max(benefit, u)
		}
	}
	r, w := blk.Reads, blk.Writes
	for len(r) > 0 || len(w) > 0 {
		// A write before a read at the same op: the op's output is
		// defined before it is used.
		if len(w) > 0 && (len(r) == 0 || w[0] <= r[0]) {
			add(w[0], slow.In.Time(blk.Size)-fast.In.Time(blk.Size))
			w = w[1:]
		} else {
			add(r[0], slow.Out.Time(blk.Size)-fast.Out.Time(blk.Size))
			r = r[1:]
		}
	}
	return benefit
}

// earliest finds the earliest start s in [lo, at] such that a chunk of
// level heap st is free over [s, last], and the best-fitting chunk then:
// a chunk free from s is free from every later start, so the search
// halves the span.
func earliest(st *spaceTime, lo, at, last int, foot, align int64) (start int, off int64, ok bool) {
	if _, ok := st.fit(at, last, foot, align); !ok {
		return 0, 0, false
	}
	hi := at // a chunk fits from hi
	for lo < hi {
		mid := lo + (hi-lo)/2
		if _, fits := st.fit(mid, last, foot, align); fits {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	start = hi
	off, _ = st.fit(start, last, foot, align)
	return start, off, true
}
