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
	if !in.ensureCover(stop) || !in.buildMasks(stop) {
		return nil, exactStopped
	}
	t := newSearcher(in, C, 14)
	t.stop = stop
	t.seed = seed
	t.limit, t.budget = budget, budget
	ok := true
	for _, r := range t.split(0, int32(in.ns)) {
		if ok = t.solveRestarts(r[0], r[1], -1); !ok {
			break
		}
		// A packed region is never undone (the regions do not interact,
		// and one that fails fails the probe), so its trail can go: the
		// trail then holds one region's changes, not the whole
		// instance's (29 copies of a 1,042-buffer trace: 290 MB).
		t.trail.n = 0
	}
	st.Nodes += t.nodes
	st.Backjumps += t.backjumps
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

// solver is one Solve in progress.
type solver struct {
	p   *Problem
	o   *Options
	ctx context.Context // Solve's, for this call only
	sol *Solution
	// limitCap is the capacity a packing must fit: the problem's, or with
	// Minimize and no capacity, none (inf).
	limitCap int64
	// phase is the phase running, since mark (see next).
	phase Phase
	mark  time.Time
	// in is the index of the problem and lb its lower bound (max-live),
	// once the index phase has built them.
	in *inst
	lb int64
	// budget is the node budget of Minimize's next probe.
	budget int64
}

// Solve packs the buffers: it finds offsets such that no two buffers alive at
// the same time overlap in memory and every buffer ends within the capacity
// (or, with Minimize, the peak is as small as it can prove). The error is
// only for invalid input. When ctx is done (cancelled, or its deadline
// passed), Solve stops as at Options.Deadline. See the package
// documentation for the method.
func Solve(ctx context.Context, p *Problem, o *Options) (*Solution, error) {
	start := time.Now()
	if err := validate(p); err != nil {
		return nil, err
	}
	if o == nil {
		o = &Options{}
	}
	if o.NodeLimit < 0 {
		return nil, fmt.Errorf("pack: node limit %d is negative", o.NodeLimit)
	}
	if o.MemoryLimit < 0 {
		return nil, fmt.Errorf("pack: memory limit %d is negative", o.MemoryLimit)
	}
	s := &solver{p: p, o: o, ctx: ctx, sol: &Solution{Offsets: make([]int64, len(p.Buffers))},
		limitCap: p.Capacity, phase: PhaseFirst, mark: start}
	if o.Minimize && s.limitCap == 0 {
		s.limitCap = inf
	}
	defer s.endPhases()
	sol := s.sol
	if len(p.Buffers) == 0 {
		sol.Solved, sol.Optimal = true, true
		return sol, nil
	}
	if s.heuristics() {
		return sol, nil
	}
	if s.lb > s.limitCap {
		return sol, nil // no packing can fit
	}
	if s.hardCore() {
		return sol, nil
	}
	if !s.fitsMemory() {
		return sol, nil // the best packing so far: the greedy's or a core search's
	}
	if s.split() {
		return sol, nil
	}
	if !s.searchCanPack() {
		return sol, nil // the best packing so far, as under the node limit
	}
	sol.Stats.Exact = true
	if !sol.Solved && !s.firstFit() {
		return sol, nil
	}
	s.minimize()
	return sol, nil
}

// next ends the phase running and starts ph. The phases are timed back to
// back, so that they add up to the total.
func (s *solver) next(ph Phase) {
	now := time.Now()
	d := now.Sub(s.mark)
	switch s.phase {
	case PhaseFirst:
		s.sol.Stats.Phases.First += d
	case PhaseIndex:
		s.sol.Stats.Phases.Index += d
	case PhaseGreedy:
		s.sol.Stats.Phases.Greedy += d
	case PhaseSearch:
		s.sol.Stats.Phases.Search += d
	}
	s.phase, s.mark = ph, now
}

// endPhases ends the last phase and sums the phases' times.
func (s *solver) endPhases() {
	s.next(PhaseNone)
	ph := s.sol.Stats.Phases
	s.sol.Stats.Time = ph.First + ph.Index + ph.Greedy + ph.Search
}

// stop reports whether the deadline or the context ended Solve, and
// records the phase it cut; once it has said so it always does.
func (s *solver) stop() bool {
	if s.sol.Stats.Cut != PhaseNone {
		return true
	}
	if (s.o.stopHook != nil && s.o.stopHook(s.phase)) ||
		(!s.o.Deadline.IsZero() && time.Now().After(s.o.Deadline)) || s.ctx.Err() != nil {
		s.sol.Stats.Cut = s.phase
		return true
	}
	return false
}

// nodesLeft is the node budget left under Options.NodeLimit. A probe
// whose budget it cuts ends exactUnknown; outOfNodes then says that no
// probe may follow.
func (s *solver) nodesLeft() int64 {
	if s.o.NodeLimit == 0 {
		return math.MaxInt64
	}
	return s.o.NodeLimit - s.sol.Stats.Nodes
}

func (s *solver) outOfNodes() bool {
	return s.o.NodeLimit > 0 && s.sol.Stats.Nodes >= s.o.NodeLimit
}

// cutShort settles the best packing found when stop cut a phase before
// the branch-and-bound, against the lower bound lb.
func (s *solver) cutShort(lb int64) {
	s.sol.Solved = s.sol.Peak <= s.limitCap
	s.sol.Optimal = s.sol.Solved && s.sol.Peak == lb
}

// heuristics runs the phases before the branch-and-bound: the start-order
// pass, the index and the greedy portfolio. It reports whether the
// solution is final: a phase was cut short, or the best packing is all
// that was asked for (a fit within the capacity, or a peak at the lower
// bound).
func (s *solver) heuristics() bool {
	sol := s.sol
	// First a packing, however early the deadline: the start-order pass
	// needs no index (which costs as much as the buffers' sections). It is
	// also the portfolio's start-order best-fit pass.
	first, firstPeak, ok := startOrderPack(s.p, true, s.stop)
	sol.Stats.Greedy = 1
	sol.Offsets, sol.Peak = first, firstPeak
	if !ok {
		s.cutShort(MaxLive(s.p))
		return true
	}
	s.next(PhaseIndex)
	if s.in = newInst(s.p, s.stop); s.in == nil {
		s.cutShort(MaxLive(s.p))
		return true
	}
	s.lb = s.in.maxLive
	stopAt := s.limitCap
	if s.o.Minimize {
		stopAt = s.lb
	}
	s.next(PhaseGreedy)
	offs, peak, tried, cut := greedyPortfolio(s.in, s.p, first, firstPeak, stopAt, s.stop)
	sol.Stats.Greedy += tried
	if cut {
		if peak >= 0 && peak <= firstPeak {
			sol.Offsets, sol.Peak = offs, peak
		}
		s.cutShort(s.lb)
		return true
	}
	s.next(PhaseSearch)
	sol.Offsets, sol.Peak = offs, peak
	if peak <= s.limitCap {
		sol.Solved = true
		sol.Optimal = peak == s.lb
		return !s.o.Minimize || sol.Optimal
	}
	return false
}

// fitsMemory reports whether the branch and bound may run: whether its
// memory, estimated before anything is allocated, is within
// Options.MemoryLimit (and its cover lists within their int32 indices).
// It records the estimate, and OverMemory when it says no.
func (s *solver) fitsMemory() bool {
	limit := s.memoryLimit()
	est := s.in.searchBytes()
	s.sol.Stats.SearchBytes = est
	if est > limit || s.in.coverSize > math.MaxInt32 {
		s.sol.Stats.OverMemory = true
		return false
	}
	return true
}

// searchCanPack reports whether the node limit leaves the branch and
// bound over the whole instance enough nodes to find a packing: one per
// buffer at least, as every placement is followed by a node (solve's
// first step), and a packing places every buffer. With fewer it could
// only prove a capacity infeasible, never lower the peak, so it does not
// run, and its cover lists, quadratic in the buffers alive at once, are
// never built: on the 64,000-buffer compiler trace of
// BenchmarkPackScaling the hard cores leave it 1,220 of 2,000 nodes, with
// which it took 1.6 of the 3.5 s, its lists 400 of the 470 MB (on the
// 8,000-buffer trace 1,974 nodes, a third of the time). When it says no,
// it records Stats.Limited.
func (s *solver) searchCanPack() bool {
	if s.nodesLeft() >= int64(s.in.n) {
		return true
	}
	s.sol.Stats.Limited = true
	return false
}

// split packs a zero-waste instance (every section's demand is max-live)
// at max-live by splitting it in time and space (split.go), before the
// branch and bound, when the greedy packings did not reach max-live and
// it is within the capacity. It reports whether it did: the packing is
// then optimal.
func (s *solver) split() bool {
	sol := s.sol
	if sol.Optimal || (sol.Solved && !s.o.Minimize) || s.lb > s.limitCap {
		return false
	}
	limit := splitWork*int64(s.in.n) + splitWorkBase
	offs := splitPack(s.in, s.lb, s.o.Seed, limit, s.nodesLeft(), s.stop, &sol.Stats)
	if offs == nil {
		return false
	}
	found := &Solution{Offsets: offs, Peak: peakOf(s.p, offs)}
	if err := Check(&Problem{Buffers: s.p.Buffers, Capacity: s.lb}, found); err != nil {
		panic(fmt.Sprintf("pack: a split packing is wrong: %v", err))
	}
	sol.Offsets, sol.Peak, sol.Solved, sol.Optimal = offs, found.Peak, true, true
	sol.Stats.Split = true
	return true
}

// firstFit runs the branch-and-bound for any packing within the capacity
// (the greedy packings did not fit). It reports whether the search goes
// on: Minimize asked for the smallest peak and it is not proven yet.
func (s *solver) firstFit() bool {
	sol := s.sol
	sol.Stats.Probes++
	x, r := exact(s.in, s.limitCap, s.o.Seed, s.stop, &sol.Stats, s.nodesLeft())
	if r == exactUnknown {
		sol.Stats.Limited = true
	}
	if r != exactFound {
		return false
	}
	sol.Offsets, sol.Peak, sol.Solved = x, peakOf(s.p, x), true
	sol.Optimal = sol.Peak == s.lb
	return s.o.Minimize && !sol.Optimal
}

// minimize searches the capacity between the lower bound and the best
// peak, over multiples of g (every canonical peak is one). Each probe
// runs the branch-and-bound under a node budget. First the lower bound
// itself (often the optimum); then the midpoint; when that is undecided,
// the smallest improvement on the best peak (usually easy, so the answer
// keeps improving until the deadline); when both are undecided, the
// budget doubles. A probe that finds a packing lowers the best peak; one
// that fails within its budget proves its capacity too small.
func (s *solver) minimize() {
	sol, g := s.sol, s.in.g
	lo := roundUp(s.lb, g)
	// A packing takes a node per buffer at least: a budget below that
	// could never find one (29 time-shifted copies of a 1,042-buffer
	// trace, each packed at max-live in about 1,000 nodes, used up
	// 90,000 nodes in four probes under a budget of 20,000).
	s.budget = max(minimizeBudget, 2*int64(s.in.n))
	if lo < sol.Peak {
		switch s.probe(lo) {
		case exactInfeasible:
			lo += g
		case exactStopped:
			return
		}
	}
	for lo < sol.Peak && !s.stop() && !s.outOfNodes() {
		var goOn bool
		if lo, goOn = s.narrow(lo); !goOn {
			return
		}
	}
	sol.Optimal = lo >= sol.Peak
	if !sol.Optimal && s.outOfNodes() {
		sol.Stats.Limited = true
	}
}

// narrow is one step of minimize, lo the smallest capacity not ruled
// out: it probes the midpoint between lo and the best peak, and when that
// is undecided the capacity just below the best peak; when both are, it
// doubles the budget. It returns the new lo, and false if a probe was
// stopped.
func (s *solver) narrow(lo int64) (int64, bool) {
	g := s.in.g
	hi := s.sol.Peak - g
	mid := lo + (hi-lo)/g/2*g
	switch s.probe(mid) {
	case exactInfeasible:
		return mid + g, true
	case exactStopped:
		return lo, false
	case exactFound:
		return lo, true
	}
	if hi > mid {
		switch s.probe(hi) {
		case exactFound:
			return lo, true
		case exactInfeasible:
			return hi + g, true
		case exactStopped:
			return lo, false
		}
	}
	s.budget *= 2
	return lo, true
}

// probe runs the branch-and-bound at capacity c under the budget (and
// what is left of the node limit); a packing it finds becomes the best.
// It returns exactStopped too when the node limit is spent.
func (s *solver) probe(c int64) exactResult {
	sol := s.sol
	if s.outOfNodes() {
		sol.Stats.Limited = true
		return exactStopped
	}
	sol.Stats.Probes++
	x, r := exact(s.in, c, s.o.Seed, s.stop, &sol.Stats, min(s.budget, s.nodesLeft()))
	if r == exactFound {
		sol.Offsets, sol.Peak = x, peakOf(s.p, x)
	}
	if r == exactUnknown && s.outOfNodes() {
		sol.Stats.Limited = true
		return exactStopped // the node limit, not the probe's budget
	}
	return r
}

// lubyUnit is the node limit of a unit run of the root restart loop.
const lubyUnit int64 = 4000

// The work the splits of a zero-waste instance may take (split.go): per
// buffer, and on top. A unit is a buffer handled at a time point or a
// branch-and-bound node on a part that does not split.
const (
	splitWork     = 64
	splitWorkBase = 200000
)

// minimizeBudget is the node budget of Minimize's first probes (at least
// two nodes per buffer).
const minimizeBudget = 20000
