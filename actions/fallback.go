package actions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Pricer prices a block's placement: the time block b spends on its
// accesses and transfers when placed by segs. costmodel.Model is one.
type Pricer interface {
	BlockCost(p *state.Problem, b int, segs []state.Seg) float64
}

// Fallback says how a fallback plan was made: the initializer's failure,
// and per level the fallback packed (fastest first), what went there.
type Fallback struct {
	Cause  *InfeasibleError
	Levels []FallbackLevel
}

// FallbackLevel is what the fallback put into one level.
type FallbackLevel struct {
	Level  int   // the level's index in the profile
	Blocks int   // blocks packed into the level
	Sent   int   // blocks that could have gone there, sent to slower levels
	Peak   int64 // the packing's highest end offset
	// Packings is how many packings the exact packer was asked for (one
	// when every candidate fits), Nodes its branch-and-bound nodes in all.
	Packings int
	Nodes    int64
}

// Describe says in one line how the plan was made, for summaries, e.g.
// `exact packer at each level's capacity: MEM 154 blocks (1 packing,
// 2634 nodes)`.
func (f *Fallback) Describe(p *state.Problem) string {
	var parts []string
	for _, fl := range f.Levels {
		s := fmt.Sprintf("%s %d blocks", p.HW.Levels[fl.Level].Name, fl.Blocks)
		if fl.Sent > 0 {
			s += fmt.Sprintf(", %d sent down", fl.Sent)
		}
		packings := "1 packing"
		if fl.Packings != 1 {
			packings = fmt.Sprintf("%d packings", fl.Packings)
		}
		parts = append(parts, fmt.Sprintf("%s (%s, %d nodes)", s, packings, fl.Nodes))
	}
	return "exact packer at each level's capacity: " + strings.Join(parts, "; ")
}

// InitialPlan returns the plan that a plan's cost.initial prices
// (FORMATS.md section 3, rule 6): the initializer's own, in workload
// order with reuse on; where the initializer cannot place a block, the
// fallback plan (FallbackPlan), and then fb says how it was made (nil
// otherwise). price chooses which blocks the fallback keeps in the faster
// levels; give it the plan's cost model. The error is the initializer's
// *InfeasibleError when the fallback finds no plan either, or ctx's when
// it was cancelled.
func InitialPlan(ctx context.Context, p *state.Problem, price Pricer) (lay *state.Layout, fb *Fallback, err error) {
	lay = state.NewLayout(p.Blocks())
	_, err = NewInitializer(p).Run(lay, 0)
	var ie *InfeasibleError
	if err == nil || !errors.As(err, &ie) {
		return lay, nil, err
	}
	return FallbackPlan(ctx, p, price, ie)
}

// FallbackPlan makes a plan where the initializer could not place a block
// (cause says which): the levels are packed fastest first, each with the
// exact packer (package pack, through arena.PackWithin) at the level's
// capacity, and what a level cannot hold goes down to the next. See the
// package documentation, "The fallback plan", for which blocks a level
// keeps. The plan places every block once for its whole life, with no
// in-place reuse and no transfer. It is deterministic: the packer is
// bounded by a node count, never by time. The error is cause, its
// Fallback field saying why no fallback plan was found either, or ctx's
// error if ctx ended (the packer stops early then, so the plan would not
// be the one computed elsewhere).
func FallbackPlan(ctx context.Context, p *state.Problem, price Pricer, cause *InfeasibleError) (*state.Layout, *Fallback, error) {
	lay := state.NewLayout(p.Blocks())
	fb := &Fallback{Cause: cause}
	left := make([]int, p.Blocks()) // blocks not placed yet, in ID order
	for b := range left {
		left[b] = b
	}
	for l := 0; l < p.Levels() && len(left) > 0; l++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		// A block that may live in l and in some slower level is a
		// candidate; one that may live in l and nowhere below must go to l.
		var must, may, rest []int
		for _, b := range left {
			switch {
			case !mayLive(p, b, l):
				rest = append(rest, b)
			case allowedBelow(p, b, l):
				may = append(may, b)
			default:
				must = append(must, b)
			}
		}
		if len(must)+len(may) == 0 {
			continue
		}
		fl := FallbackLevel{Level: l}
		kept, off, sent, why := packLevel(ctx, p, price, l, must, may, &fl)
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if why != "" {
			e := *cause
			e.Fallback = why
			return nil, nil, &e
		}
		for i, b := range kept {
			lay.SetFirst(b, state.Seg{From: int32(p.Block(b).First), Level: int32(l), Offset: off[i]})
			fl.Peak = max(fl.Peak, off[i]+p.Foot(b, l))
		}
		fl.Blocks, fl.Sent = len(kept), len(sent)
		fb.Levels = append(fb.Levels, fl)
		left = append(rest, sent...)
		slices.Sort(left)
	}
	if len(left) > 0 {
		// Under the timeline model a constant too large for its home may
		// fit only read-only levels, which take no load (MayEnter).
		e := *cause
		e.Fallback = fmt.Sprintf("no fallback plan either: constant %q fits no level it may be put in without a copy into a read-only level (its home %q cannot hold it)",
			p.Block(left[0]).Name, p.HW.Levels[p.Home(left[0])].Name)
		return nil, nil, &e
	}
	if err := lay.CheckComplete(p); err != nil {
		// Bind lets every block live in some level, and a block is sent
		// down only to a level that allows it.
		panic(fmt.Sprintf("actions: fallback plan: %v", err))
	}
	return lay, fb, nil
}

// mayLive reports whether the fallback may put block b into level l for
// its whole life: l allows it, and its first placement there copies
// nothing into a read-only level (MayEnter).
func mayLive(p *state.Problem, b, l int) bool {
	return p.Allowed(b, l) && MayEnter(p, b, l, p.Block(b).First)
}

// allowedBelow reports whether block b may live in a level slower than l.
func allowedBelow(p *state.Problem, b, l int) bool {
	for k := l + 1; k < p.Levels(); k++ {
		if mayLive(p, b, k) {
			return true
		}
	}
	return false
}

// packLevel packs level l: every block of must, and as many of may as it
// can. The candidates of may are taken by their saving per byte (their
// cost in the next slower level they may use, less their cost in l, over
// their footprint in l), highest first, ties by ID, each while the bytes
// live over its lifetime stay within the capacity (max-live); the rest is
// sent down. The packer then packs must and the candidates kept; if it
// finds no packing, the longest prefix of the candidates (in that order)
// that it packs is kept, found by bisection, and the others are sent down
// too. It returns the blocks kept (in ID order) with their offsets, the
// blocks sent down, and why it failed ("" if it did not): must alone does
// not fit.
func packLevel(ctx context.Context, p *state.Problem, price Pricer, l int, must, may []int, fl *FallbackLevel) (kept []int, off []int64, sent []int, why string) {
	lv := &p.HW.Levels[l]
	capacity := lv.Capacity
	times := workload.Times(p.Prog)
	load := newMaxTree(p.Prog.Timesteps())
	for _, b := range must {
		blk := p.Block(b)
		load.add(blk.First, blk.Last, p.Foot(b, l))
	}
	if need := load.max(0, p.Prog.Timesteps()-1); need > capacity {
		return nil, nil, nil, fmt.Sprintf("no fallback plan either: the blocks that can go nowhere but %s need %d B at one timestep, more than its %d B",
			lv.Name, need, capacity)
	}
	type candidate struct {
		b    int
		gain float64 // per byte
	}
	order := make([]candidate, len(may))
	for i, b := range may {
		k := l + 1
		for !mayLive(p, b, k) {
			k++
		}
		at := func(level int) float64 {
			return price.BlockCost(p, b, []state.Seg{{From: int32(p.Block(b).First), Level: int32(level)}})
		}
		order[i] = candidate{b, (at(k) - at(l)) / float64(p.Foot(b, l))}
	}
	slices.SortStableFunc(order, func(x, y candidate) int { return cmp.Or(cmp.Compare(y.gain, x.gain), cmp.Compare(x.b, y.b)) })
	var cand []int
	for _, c := range order {
		blk := p.Block(c.b)
		f := p.Foot(c.b, l)
		if load.max(blk.First, blk.Last)+f <= capacity {
			load.add(blk.First, blk.Last, f)
			cand = append(cand, c.b)
		} else {
			sent = append(sent, c.b)
		}
	}
	try := func(k int) ([]int, []int64, bool) {
		set := append(slices.Clone(must), cand[:k]...)
		slices.Sort(set)
		iv := make([]arena.Interval, len(set))
		for i, b := range set {
			blk := p.Block(b)
			iv[i] = arena.Interval{First: blk.First, Last: blk.Last, Size: p.Foot(b, l), Align: p.Align(b, l)}
		}
		o, ok, nodes := arena.PackWithin(ctx, iv, capacity, times)
		fl.Packings++
		fl.Nodes += nodes
		return set, o, ok
	}
	if set, o, ok := try(len(cand)); ok {
		return set, o, sent, ""
	}
	fail := fmt.Sprintf("no fallback plan either: the exact packer found no packing of the %d blocks that can go nowhere but %s within its %d B (budget %d nodes)",
		len(must), lv.Name, capacity, arena.WithinNodeLimit)
	if len(cand) == 0 {
		return nil, nil, nil, fail
	}
	kept, off, ok := try(0)
	if !ok {
		return nil, nil, nil, fail
	}
	// Bisection: cand[:lo] packs, cand[:hi] does not.
	lo, hi := 0, len(cand)
	for hi-lo > 1 && ctx.Err() == nil {
		mid := lo + (hi-lo)/2
		if set, o, ok := try(mid); ok {
			lo, kept, off = mid, set, o
		} else {
			hi = mid
		}
	}
	return kept, off, append(sent, cand[lo:]...), ""
}

// maxTree holds a value per timestep, with adding to a range of them and
// the largest in a range in O(log T): the bytes live per timestep.
type maxTree struct {
	n      int     // leaves, a power of two
	mx, lz []int64 // per node: the largest in its range, and what was added to all of it
}

func newMaxTree(n int) *maxTree {
	size := 1
	for size < n {
		size <<= 1
	}
	return &maxTree{n: size, mx: make([]int64, 2*size), lz: make([]int64, 2*size)}
}

// add adds v to every timestep in [lo, hi].
func (m *maxTree) add(lo, hi int, v int64) { m.addRec(1, 0, m.n-1, lo, hi, v) }

func (m *maxTree) addRec(x, l, r, lo, hi int, v int64) {
	if hi < l || r < lo {
		return
	}
	if lo <= l && r <= hi {
		m.mx[x] += v
		m.lz[x] += v
		return
	}
	mid := (l + r) / 2
	m.addRec(2*x, l, mid, lo, hi, v)
	m.addRec(2*x+1, mid+1, r, lo, hi, v)
	m.mx[x] = m.lz[x] + max(m.mx[2*x], m.mx[2*x+1])
}

// max returns the largest value in [lo, hi].
func (m *maxTree) max(lo, hi int) int64 { return m.maxRec(1, 0, m.n-1, lo, hi) }

func (m *maxTree) maxRec(x, l, r, lo, hi int) int64 {
	if hi < l || r < lo {
		return math.MinInt64
	}
	if lo <= l && r <= hi {
		return m.mx[x]
	}
	mid := (l + r) / 2
	// At least one half meets [lo, hi]: no MinInt64 reaches the sum.
	return m.lz[x] + max(m.maxRec(2*x, l, mid, lo, hi), m.maxRec(2*x+1, mid+1, r, lo, hi))
}
