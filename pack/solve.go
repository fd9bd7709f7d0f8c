package pack

import (
	"context"
	"fmt"
	"math"
	"time"
)

// exactResult is the outcome of one branch-and-bound run at one capacity.
type exactResult int

const (
	exactFound      exactResult = iota // a packing within the capacity
	exactInfeasible                    // proven: no packing within the capacity
	exactStopped                       // deadline or cancellation
	exactUnknown                       // the node budget ran out
)

// strategies are the base strategies of every restart loop, in the order
// tried (see solveRestarts). The list was chosen on MiniMalloc's instances;
// other diverse lists solve them too, with more nodes, while a single
// strategy (even randomized) does not.
var strategies = []strategy{
	{rank: byTWA, sec: secBest},
	{rank: byTAW, sec: secTight},
	{rank: bySizeSpan, sec: secFewest},
	{rank: bySpanSize, sec: secFewestTight},
	{rank: byWAT, sec: secTight},
	{rank: byTWA, sec: secTight},
	{rank: byWAT, sec: secBest},
	{rank: bySpanSize, sec: secTight},
}

// exact runs the branch-and-bound at capacity C.
func exact(in *inst, C int64, seed uint64, stop func() bool, st *Stats, budget int64) ([]int64, exactResult) {
	// Quick infeasibility: a section busier than C (a buffer taller than C
	// makes its sections so).
	for s := 0; s < in.ns; s++ {
		if in.demand[s] > C {
			return nil, exactInfeasible
		}
	}
	t := newSearcher(in, C, 14)
	t.stop = stop
	t.seed = seed
	t.limit = budget
	ok := true
	for _, r := range t.split(0, int32(in.ns)) {
		if ok = t.solveRestarts(r[0], r[1], -1); !ok {
			break
		}
	}
	st.Nodes += t.nodes
	st.Restarts += t.restarts
	st.Nogoods += t.ngHits
	switch {
	case ok:
		return append([]int64(nil), t.off...), exactFound
	case t.stopped:
		return nil, exactStopped
	case t.aborted:
		return nil, exactUnknown
	default:
		return nil, exactInfeasible
	}
}

// luby returns the i-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 ...
func luby(i int) int64 {
	for k := uint(1); ; k++ {
		if i == 1<<k-1 {
			return 1 << (k - 1)
		}
		if i < 1<<k-1 {
			return luby(i - (1<<(k-1) - 1))
		}
	}
}

// Solve packs the buffers: it finds offsets such that no two buffers alive at
// the same time overlap in memory and every buffer ends within the capacity
// (or, with Minimize, the peak is as small as it can prove). The error is
// only for invalid input. See the package documentation for the method.
func Solve(p *Problem, o *Options) (*Solution, error) {
	start := time.Now()
	if err := validate(p); err != nil {
		return nil, err
	}
	if o == nil {
		o = &Options{}
	}
	ctx := o.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	deadline := o.Deadline
	n := len(p.Buffers)
	sol := &Solution{Offsets: make([]int64, n)}
	if o.NodeLimit < 0 {
		return nil, fmt.Errorf("pack: node limit %d is negative", o.NodeLimit)
	}
	// The phases are timed back to back, so that they add up to the total.
	phase, mark := PhaseFirst, start
	next := func(ph Phase) {
		now := time.Now()
		d := now.Sub(mark)
		switch phase {
		case PhaseFirst:
			sol.Stats.Phases.First += d
		case PhaseIndex:
			sol.Stats.Phases.Index += d
		case PhaseGreedy:
			sol.Stats.Phases.Greedy += d
		case PhaseSearch:
			sol.Stats.Phases.Search += d
		}
		phase, mark = ph, now
	}
	defer func() {
		next(PhaseNone)
		ph := sol.Stats.Phases
		sol.Stats.Time = ph.First + ph.Index + ph.Greedy + ph.Search
	}()
	// stop reports whether the deadline or the context ended Solve, and
	// records the phase it cut; once it has said so it always does.
	stop := func() bool {
		if sol.Stats.Cut != PhaseNone {
			return true
		}
		if (o.stopHook != nil && o.stopHook(phase)) ||
			(!deadline.IsZero() && time.Now().After(deadline)) || ctx.Err() != nil {
			sol.Stats.Cut = phase
			return true
		}
		return false
	}
	// nodesLeft is the node budget left under Options.NodeLimit. A probe
	// whose budget it cuts ends exactUnknown; outOfNodes then says that no
	// probe may follow.
	nodesLeft := func() int64 {
		if o.NodeLimit == 0 {
			return math.MaxInt64
		}
		return o.NodeLimit - sol.Stats.Nodes
	}
	outOfNodes := func() bool { return o.NodeLimit > 0 && sol.Stats.Nodes >= o.NodeLimit }
	if n == 0 {
		sol.Solved, sol.Optimal = true, true
		return sol, nil
	}
	limitCap := p.Capacity
	if o.Minimize && limitCap == 0 {
		limitCap = inf
	}
	// First a packing, however early the deadline: the start-order pass
	// needs no index (which costs as much as the buffers' sections). It is
	// also the portfolio's start-order best-fit pass.
	first, firstPeak, ok := startOrderPack(p, true, stop)
	sol.Stats.Greedy = 1
	sol.Offsets, sol.Peak = first, firstPeak
	// cutShort returns the best packing found when stop cut a phase
	// before the branch-and-bound.
	cutShort := func(lb int64) (*Solution, error) {
		sol.Solved = sol.Peak <= limitCap
		sol.Optimal = sol.Solved && sol.Peak == lb
		return sol, nil
	}
	if !ok {
		return cutShort(MaxLive(p))
	}
	next(PhaseIndex)
	in := newInst(p, stop)
	if in == nil {
		return cutShort(MaxLive(p))
	}
	lb := in.maxLive
	stopAt := limitCap
	if o.Minimize {
		stopAt = lb
	}
	next(PhaseGreedy)
	offs, peak, tried, cut := greedyPortfolio(in, p, first, firstPeak, stopAt, stop)
	sol.Stats.Greedy += tried
	if cut {
		if peak >= 0 && peak <= firstPeak {
			sol.Offsets, sol.Peak = offs, peak
		}
		return cutShort(lb)
	}
	next(PhaseSearch)
	sol.Offsets, sol.Peak = offs, peak
	if peak <= limitCap {
		sol.Solved = true
		sol.Optimal = peak == lb
		if !o.Minimize || sol.Optimal {
			return sol, nil
		}
	}
	if lb > limitCap {
		return sol, nil // no packing can fit
	}
	sol.Stats.Exact = true
	g := in.g
	if !sol.Solved {
		// First any packing within the capacity.
		sol.Stats.Probes++
		x, r := exact(in, limitCap, o.Seed, stop, &sol.Stats, nodesLeft())
		if r == exactUnknown {
			sol.Stats.Limited = true
		}
		if r != exactFound {
			return sol, nil
		}
		sol.Offsets, sol.Peak, sol.Solved = x, peakOf(p, x), true
		sol.Optimal = sol.Peak == lb
		if !o.Minimize || sol.Optimal {
			return sol, nil
		}
	}
	// Minimize: search the capacity between the lower bound and the best
	// peak, over multiples of g (every canonical peak is one). Each probe
	// runs the branch-and-bound under a node budget. First the lower bound
	// itself (often the optimum); then the midpoint; when that is undecided,
	// the smallest improvement on the best peak (usually easy, so the answer
	// keeps improving until the deadline); when both are undecided, the
	// budget doubles. A probe that finds a packing lowers the best peak; one
	// that fails within its budget proves its capacity too small.
	lo := roundUp(lb, g)
	budget := int64(minimizeBudget)
	probe := func(c int64) exactResult {
		if outOfNodes() {
			sol.Stats.Limited = true
			return exactStopped
		}
		sol.Stats.Probes++
		x, r := exact(in, c, o.Seed, stop, &sol.Stats, min(budget, nodesLeft()))
		if r == exactFound {
			sol.Offsets, sol.Peak = x, peakOf(p, x)
		}
		if r == exactUnknown && outOfNodes() {
			sol.Stats.Limited = true
			return exactStopped // the node limit, not the probe's budget
		}
		return r
	}
	if lo < sol.Peak {
		switch probe(lo) {
		case exactInfeasible:
			lo += g
		case exactStopped:
			return sol, nil
		}
	}
	for lo < sol.Peak && !stop() && !outOfNodes() {
		hi := sol.Peak - g
		mid := lo + (hi-lo)/g/2*g
		r := probe(mid)
		switch r {
		case exactInfeasible:
			lo = mid + g
		case exactStopped:
			return sol, nil
		}
		if r != exactUnknown {
			continue
		}
		if hi > mid {
			switch probe(hi) {
			case exactFound:
				continue
			case exactInfeasible:
				lo = hi + g
				continue
			case exactStopped:
				return sol, nil
			}
		}
		budget *= 2
	}
	sol.Optimal = lo >= sol.Peak
	if !sol.Optimal && outOfNodes() {
		sol.Stats.Limited = true
	}
	return sol, nil
}

// lubyUnit is the node limit of a unit run of the root restart loop.
const lubyUnit int64 = 4000

// minimizeBudget is the node budget of Minimize's first probes.
const minimizeBudget = 20000
