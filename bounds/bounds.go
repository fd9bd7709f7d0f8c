// Package bounds computes lower bounds on what any plan of a problem can
// achieve, so that a plan can be judged against them.
//
// # Memory
//
// MaxLive is the most bytes live at one timestep. Spill[l] is the least
// number of bytes that must sit below level l (in a slower level) at the
// worst timestep: max over t of (live bytes at t - the capacity of levels
// 0..l), or 0.
//
// # Cost
//
// A plan's cost is the cost of its accesses (reads and writes, each priced
// by the level its block sits in at that timestep) plus its transfers,
// which are never negative. At one timestep the blocks the op accesses sit
// in some levels, and in each level their footprints fit its capacity. So
// the cost of the accesses at t is at least the optimum of a small linear
// program: split each accessed block fractionally over the levels it may
// use, within the capacities, at the least access cost. Summed over the
// timesteps, that is a lower bound on the cost of every plan. (A reusable
// block that ends at t counts no bytes at t, since a block created there
// may share its space: dropping a constraint only lowers the bound.) The
// bound ignores that blocks persist between timesteps and that moving
// them costs, so it is optimistic; where every accessed block can sit in
// its cheapest level at every timestep, it is exact.
//
// # The whole program
//
// Whole bounds the cost of every plan of the whole program at once (blocks
// persist and pay their moves): a Lagrangian relaxation of the capacities
// whose subproblems are each block's cheapest path through the levels,
// lifted above its linear relaxation by pricing valid inequalities of the
// integer model too (relax-and-cut). whole.go and cuts.go explain it.
//
// # The timeline model
//
// Under the timeline model (FORMATS.md section 6) a plan's cost is the
// time at which the last op of a run ends. Op t lasts d(t) = max(c(t),
// m(t)), its compute time c(t) = op_overhead + macs/macs_per_unit (0
// without a compute section) or the time of its own reads and writes m(t),
// whichever is longer, after waiting for the copies it needs; copies only
// delay ops, never shorten them. m(t) is at least m*(t), the optimum of
// timestep t's linear program above under section 4's prices (the seed
// model's reads and writes). So no plan ends before the sum over ops of
// max(c(t), m*(t)): Timeline computes it from Compute's per-timestep values
// under costmodel.Seed003 (FORMATS.md 6.3's last paragraph).
// NoPlanningTimeline is the reference a timeline plan improves on.
package bounds

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Bound is what Compute finds.
type Bound struct {
	MaxLive int64   // bytes (sizes, not footprints)
	Spill   []int64 // per level: bytes that must sit below it at the worst timestep
	Cost    float64 // lower bound on any plan's cost
	PerStep []float64
	// LPs counts the timesteps that needed a linear program (the others
	// had room for every accessed block in its cheapest level).
	LPs int
}

// Compute returns the bounds of p under cost model m.
func Compute(p *state.Problem, m costmodel.Model) (*Bound, error) {
	T := p.Prog.Timesteps()
	L := p.Levels()
	st := p.Prog.ComputeStats()
	b := &Bound{MaxLive: st.MaxLive, Spill: make([]int64, L), PerStep: make([]float64, T)}
	// Live bytes per timestep (smallest footprints), for the spill bound.
	live := make([]int64, T+1)
	for i := 0; i < p.Blocks(); i++ {
		blk := p.Block(i)
		f := int64(math.MaxInt64)
		for l := 0; l < L; l++ {
			if p.Allowed(i, l) {
				f = min(f, p.Foot(i, l))
			}
		}
		live[blk.First] += f
		live[blk.Last+1] -= f
	}
	var cur int64
	for t := 0; t < T; t++ {
		cur += live[t]
		var capacity int64
		for l := 0; l < L; l++ {
			capacity += p.HW.Levels[l].Capacity
			b.Spill[l] = max(b.Spill[l], cur-capacity)
		}
	}
	// Access costs per timestep.
	costs := accessCosts(p, m)
	usedLP := make([]bool, T)
	errs := make([]error, T)
	// The timesteps' programs are independent: solved on every core, in
	// chunks, and summed in timestep order, so the result is the same.
	// solved holds the optima of the programs solved so far, by their
	// coefficients: a program met again (a layer repeated) is not solved
	// again.
	var solved sync.Map
	var next atomic.Int64
	work := func() {
		for {
			lo := int(next.Add(boundChunk)) - boundChunk
			if lo >= T {
				return
			}
			for t := lo; t < min(lo+boundChunk, T); t++ {
				b.PerStep[t], usedLP[t], errs[t] = stepBound(p, t, costs, &solved)
			}
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (T+boundChunk-1)/boundChunk) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	for t := range T {
		if errs[t] != nil {
			return nil, fmt.Errorf("bounds: timestep %d: %w", t, errs[t])
		}
		if usedLP[t] {
			b.LPs++
		}
		b.Cost += b.PerStep[t]
	}
	return b, nil
}

// boundChunk is how many timesteps' programs a worker of Compute takes at
// a time.
const boundChunk = 256

// accessCosts returns, per block and level, the cost of the block's
// accesses at each timestep if it sat in that level: cost[b][l] maps
// timestep -> cost. Computed with the model's charges on a one-level
// layout, so any registered model works.
func accessCosts(p *state.Problem, m costmodel.Model) [][]map[int]float64 {
	out := make([][]map[int]float64, p.Blocks())
	for b := range out {
		out[b] = make([]map[int]float64, p.Levels())
		for l := 0; l < p.Levels(); l++ {
			if !p.Allowed(b, l) {
				continue
			}
			mt := map[int]float64{}
			m.Charges(p, b, []state.Seg{{From: int32(p.Block(b).First), Level: int32(l)}}, func(c costmodel.Charge) {
				if c.Kind == costmodel.Read || c.Kind == costmodel.Write {
					mt[c.Timestep] += c.Time
				}
			})
			out[b][l] = mt
		}
	}
	return out
}

// stepBound solves timestep t's linear program (or finds it trivial).
// solved, if not nil, holds the optima of the programs solved before, by
// lpKey: the simplex is deterministic, so an identical program's optimum
// is the same, bit for bit.
func stepBound(p *state.Problem, t int, costs [][]map[int]float64, solved *sync.Map) (float64, bool, error) {
	L := p.Levels()
	blocks := p.Accessed(t)
	if len(blocks) == 0 {
		return 0, false, nil
	}
	// Footprint a block takes from level l's capacity at t.
	takes := func(b, l int) int64 {
		blk := p.Block(b)
		if blk.Reusable && blk.Last == t {
			return 0
		}
		return p.Foot(b, l)
	}
	// The trivial case: every block in its cheapest level fits.
	var sum float64
	use := make([]int64, L)
	for _, bi := range blocks {
		b := int(bi)
		best, bl := math.Inf(1), -1
		for l := 0; l < L; l++ {
			if costs[b][l] == nil {
				continue
			}
			if c := costs[b][l][t]; c < best {
				best, bl = c, l
			}
		}
		sum += best
		use[bl] += takes(b, bl)
	}
	fits := true
	for l := 0; l < L; l++ {
		fits = fits && use[l] <= p.HW.Levels[l].Capacity
	}
	if fits {
		return sum, false, nil
	}
	// The linear program in standard form: variables x[b,l] (the share of
	// b in l) for the levels b may use, then one slack per capacity row.
	type v struct{ b, l int }
	var vars []v
	for _, bi := range blocks {
		for l := 0; l < L; l++ {
			if costs[bi][l] != nil {
				vars = append(vars, v{int(bi), l})
			}
		}
	}
	rows := len(blocks) + L
	cols := len(vars) + L
	A := mat.NewDense(rows, cols, nil)
	rhs := make([]float64, rows)
	c := make([]float64, cols)
	rowOf := map[int]int{}
	for i, bi := range blocks {
		rowOf[int(bi)] = i
		rhs[i] = 1
	}
	for j, x := range vars {
		c[j] = costs[x.b][x.l][t]
		A.Set(rowOf[x.b], j, 1)
		capacity := float64(p.HW.Levels[x.l].Capacity)
		A.Set(len(blocks)+x.l, j, float64(takes(x.b, x.l))/capacity)
	}
	for l := 0; l < L; l++ {
		A.Set(len(blocks)+l, len(vars)+l, 1)
		rhs[len(blocks)+l] = 1
	}
	var key string
	if solved != nil {
		key = lpKey(c, A, rhs)
		if opt, ok := solved.Load(key); ok {
			return opt.(float64), true, nil
		}
	}
	opt, _, err := lp.Simplex(c, A, rhs, 1e-10, nil)
	if err != nil {
		return 0, true, err
	}
	if solved != nil {
		solved.Store(key, opt)
	}
	return opt, true, nil
}

// lpKey is the program's coefficients, bit for bit, as a map key.
func lpKey(c []float64, A *mat.Dense, rhs []float64) string {
	rows, cols := A.Dims()
	buf := make([]byte, 0, 8*(2+len(c)+rows*cols+len(rhs)))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(rows))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(cols))
	for _, v := range c {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	for i := range rows {
		for j := range cols {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(A.At(i, j)))
		}
	}
	for _, v := range rhs {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	return string(buf)
}

// Captured returns how much of the possible improvement a plan achieved:
// (none - plan) / (none - bound), where none is the cost of planning
// nothing (every block in the slowest level). NaN when the bound leaves no
// room.
func Captured(none, plan, bound float64) float64 {
	if none-bound <= 0 {
		return math.NaN()
	}
	return (none - plan) / (none - bound)
}

// NoPlanning returns the cost of planning nothing: every block in the
// slowest level it may use (a pinned block in its level), for its whole
// life. It ignores capacity: it is the reference a planner improves on.
func NoPlanning(p *state.Problem, m costmodel.Model) float64 {
	var sum float64
	for b := 0; b < p.Blocks(); b++ {
		sum += m.BlockCost(p, b, []state.Seg{{From: int32(p.Block(b).First), Level: int32(slowestAllowed(p, b))}})
	}
	return sum
}

// TimelineBound is the timeline model's lower bound (FORMATS.md 6.3): no
// plan of the problem under the timeline model ends its run sooner.
type TimelineBound struct {
	// Cost is the sum over ops of PerOp, in op order.
	Cost float64
	// PerOp is max(Compute[t], Access.PerStep[t]) per op: the least time
	// op t can take.
	PerOp []float64
	// Compute is c(t) per op (ComputeTime).
	Compute []float64
	// Access is the per-timestep bound under costmodel.Seed003:
	// Access.PerStep[t] is m*(t), the least access cost of op t with its
	// blocks split over the levels within their capacities.
	Access *Bound
	// ComputeBound counts the ops whose compute time exceeds their least
	// access cost (c(t) > m*(t)): the ops no placement can speed up.
	ComputeBound int
}

// Timeline returns the timeline lower bound of p: the sum over ops t of
// max(c(t), m*(t)), with m*(t) the per-timestep linear program's value
// (Compute under costmodel.Seed003, whose reads and writes are section 4's
// prices, which the timeline model charges too).
func Timeline(p *state.Problem) (*TimelineBound, error) {
	acc, err := Compute(p, costmodel.Seed003{})
	if err != nil {
		return nil, err
	}
	n := p.Prog.Timesteps()
	b := &TimelineBound{Access: acc, PerOp: make([]float64, n), Compute: make([]float64, n)}
	for t := range n {
		c := ComputeTime(p.HW, &p.Prog.Ops[t])
		b.Compute[t], b.PerOp[t] = c, max(c, acc.PerStep[t])
		if c > acc.PerStep[t] {
			b.ComputeBound++
		}
		b.Cost += b.PerOp[t]
	}
	return b, nil
}

// ComputeTime is c(t) of FORMATS.md 6.3 for op under prof, as settled in
// 6.4: 0 without a compute section, else op_overhead + macs/macs_per_unit
// (op_overhead also for an op without macs).
func ComputeTime(prof *hw.Profile, op *workload.Op) float64 {
	cu := prof.Compute
	if cu == nil {
		return 0
	}
	return cu.OpOverhead + float64(op.MACs)/cu.MACsPerUnit
}

// NoPlanningTimeline returns the timeline cost of planning nothing, the
// plan of hieropt's "none" planner (baseline.NoPlanning): every block in
// the slowest level it may use for its whole life (a constant in its
// home, the slowest level or the one it is pinned to; any other block in
// the slowest writable level, or its pinned one), no transfers and no
// loads. With no copies no op waits, so the cost is the sum over ops of
// max(c(t), m(t)), m(t) the op's reads and writes in those levels. Like
// NoPlanning it ignores capacity.
func NoPlanningTimeline(p *state.Problem) float64 {
	n := p.Prog.Timesteps()
	m := make([]float64, n)
	for b := 0; b < p.Blocks(); b++ {
		lv := &p.HW.Levels[slowestAllowed(p, b)]
		blk := p.Block(b)
		for _, t := range blk.Reads {
			m[t] += lv.Out.Time(blk.Size)
		}
		for _, t := range blk.Writes {
			m[t] += lv.In.Time(blk.Size)
		}
	}
	var sum float64
	for t := range n {
		sum += max(ComputeTime(p.HW, &p.Prog.Ops[t]), m[t])
	}
	return sum
}

// slowestAllowed is the slowest level block b may use: its pinned level,
// else for a constant the slowest level, for any other block the slowest
// writable one.
func slowestAllowed(p *state.Problem, b int) int {
	l := p.Levels() - 1
	for l > 0 && !p.Allowed(b, l) {
		l--
	}
	return l
}
