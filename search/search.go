package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/repack"
	"github.com/hieropt/hieropt/segments"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Settings configure a search. A nil *Settings means all defaults; every
// zero field means its documented default.
type Settings struct {
	// Segments splits the timesteps into local-optimal segments.
	// Default (nil): segments.Auto.
	Segments segments.Strategy
	// Beam is how many candidate states a segment keeps, cheapest first.
	// Default (0): DefaultBeam. Negative: unbounded, the seed's exact
	// behaviour (every combination inside a segment; exponential in the
	// segment's length).
	Beam int
	// Actions is the action set. Default (zero Set): actions.All, the
	// seed's move, swap and reuse and hieropt's evict. actions.Seed is the
	// seed's own set.
	Actions actions.Set
	// Rounds is the most actions one state may take at one timestep: each
	// round expands the states the previous round added to the beam.
	// Default (0): DefaultRounds. The seed takes one (Rounds = 1).
	Rounds int
	// MaxCandidates caps the candidates per action and level for one
	// block, best fit first. Default (0): DefaultMaxCandidates. Negative:
	// no cap.
	MaxCandidates int
	// Horizon bounds how far past the timestep t an action may reach: a
	// block is acted on at t, or evicted, only if it dies within Horizon
	// timesteps of t. Re-planning runs until every changed block has died,
	// so this keeps the work per candidate bounded on long programs (whose
	// weights, loaded at timestep 0, live until their use). Default (0):
	// DefaultHorizon. Negative: unbounded.
	Horizon int
	// TimeLimit bounds the whole of RunProblem (and of Run, binding
	// aside): the initializer, the search and repacking. The initializer
	// always runs to its end, as without its plan there is nothing to
	// return; the search stops at the limit and keeps its best committed
	// plan; repacking gets what is left, is cut short where the limit
	// falls, and is skipped when nothing is left. The result is then
	// Status TimeLimit, and Stats.Cut says where the limit fell. A
	// deadline of the context bounds the run in the same way (the earlier
	// of the two counts). Default (0): no limit.
	TimeLimit time.Duration
	// Workers is the number of goroutines that evaluate candidates (and
	// that look ahead for repacking's insertions, repack.Settings.Workers).
	// Default (0): runtime.GOMAXPROCS(0). The plan does not depend on it.
	Workers int
	// CostModel prices states. Default (nil): costmodel.Seed003.
	CostModel costmodel.Model
	// NoReuse turns off rule 5 of the initializer (and with it the reuse
	// action's purpose). Default: reuse on.
	NoReuse bool
	// InitialOnly starts the search from the initializer's plan alone, as
	// the seed does. By default the search also runs the initializer in
	// kind order (actions.KindOrder) and starts from whichever plan is
	// cheaper, re-planning in that order.
	InitialOnly bool
	// Repack is the budget of the repacking step that runs after the
	// search (package repack): per memory level, fastest first, the most
	// packings tried, each to promote one block from slower levels into
	// the level by re-packing the whole level with the exact packer. It
	// never makes the plan costlier and is deterministic (its packer is
	// bounded by nodes, not time). Default (nil): DefaultRepack. Zero (or
	// less): no repacking, as `hieropt optimize --repack 0`. So new(0)
	// turns repacking off and new(64) allows 64 packings per level;
	// RepackBudget gives the value in effect.
	Repack *int
	// Check verifies the state's invariants after every commit: the
	// occupancy against one rebuilt from the layout, and the running cost
	// against a full recomputation. It panics on a broken invariant.
	// Slow; for tests and debugging.
	Check bool
	// Progress, if set, is called after every timestep of every pass, from
	// the goroutine that called Run.
	Progress func(Progress)
}

// Defaults of Settings.
const (
	DefaultBeam          = 4
	DefaultMaxCandidates = 4
	DefaultRounds        = 1
	DefaultHorizon       = 256
	DefaultRepack        = 16
)

// Progress reports how far a search is.
type Progress struct {
	Timestep, Steps int
	Cost            float64 // committed cost
}

// Status says how a search ended.
type Status int

// The ways a search ends.
const (
	Converged Status = iota // walked every timestep
	TimeLimit               // stopped by Settings.TimeLimit
	Cancelled               // stopped by the context
)

func (s Status) String() string {
	return [...]string{"converged", "time limit", "cancelled"}[s]
}

// Stats count what the search did.
type Stats struct {
	// Per action (indexed by actions.Kind): (state, block) pairs the
	// action was tried on; candidates it produced (successes);
	// candidates whose re-planning failed (a later block fit nowhere);
	// actions in committed states.
	Tried, Succeeded, Failed, Committed [actions.NumKinds]int
	Replans                             int   // candidates re-planned
	ReplanSteps                         int64 // timesteps re-planned in total (the hot path)
	Commits                             int   // segments whose best state was committed
	Timesteps                           int   // timesteps visited
	Skipped                             int   // timesteps skipped: all their blocks in the highest level
	// Start is the initializer order the search started from and re-planned
	// with, and StartCost the cost of that start.
	Start     actions.Order
	StartCost float64
	// Fallback is set when the initializer (workload order) could not
	// place a block: InitialCost is then the cost of the fallback plan
	// (actions.FallbackPlan), which it says how it made, and the search
	// started from that plan unless Start says otherwise.
	Fallback *actions.Fallback
	// InitTime, SearchTime and RepackTime are the wall times of the three
	// phases of RunProblem, back to back: they add up to its whole time.
	// RepackTime covers the final cost too, and is zero-ish when
	// repacking did not run.
	InitTime, SearchTime, RepackTime time.Duration
	// Cut is the phase in which Settings.TimeLimit (or the context's
	// deadline) fell, PhaseNone if it did not: the phases after it did not
	// run. CutTimestep is the timestep the search was at when it fell
	// there (the timesteps before it were walked).
	Cut         Phase
	CutTimestep int
	// RepackSkipped is true when repacking had a budget but the time
	// limit left it no time (Cut is then the search's phase or the
	// initializer's, or PhaseRepack when the search converged just
	// before the limit).
	RepackSkipped bool
	// Repack is what the repacking step did (zero when it did not run:
	// Settings.Repack zero, or the search was cancelled), and
	// RepackGain how much it lowered the cost.
	Repack     repack.Stats
	RepackGain float64
}

// Result is the outcome of a search.
type Result struct {
	// Layout is the plan: always complete and valid, even when the search
	// stopped early.
	Layout      *state.Layout
	InitialCost float64 // the initializer's plan, or the fallback's (Stats.Fallback)
	Cost        float64 // Layout's cost, recomputed in full
	Stats       Stats
	Status      Status
}

func (s *Settings) withDefaults() Settings {
	var c Settings
	if s != nil {
		c = *s
	}
	if c.Segments == nil {
		c.Segments = segments.Auto{}
	}
	if c.Beam == 0 {
		c.Beam = DefaultBeam
	}
	if c.Actions == (actions.Set{}) {
		c.Actions = actions.All
	}
	if c.Horizon == 0 {
		c.Horizon = DefaultHorizon
	}
	if c.Rounds <= 0 {
		c.Rounds = DefaultRounds
	}
	if c.MaxCandidates == 0 {
		c.MaxCandidates = DefaultMaxCandidates
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.CostModel == nil {
		c.CostModel = costmodel.Seed003{}
	}
	return c
}

// RepackBudget returns the packings per level the repacking step may try
// under s (nil: the defaults): DefaultRepack if s.Repack is nil, and 0,
// no repacking, if *s.Repack <= 0.
func (s *Settings) RepackBudget() int {
	if s == nil || s.Repack == nil {
		return DefaultRepack
	}
	return max(*s.Repack, 0)
}

// Run plans prog on prof: the initializer, then the search. It is the entry
// point for compilers. prog and prof are checked by state.Bind (a rule
// broken is an *inputerr.Error, never a panic). Where the
// initializer cannot place a block, the search starts from the fallback
// plan (actions.FallbackPlan, Stats.Fallback). The error is an
// *inputerr.Error if the program cannot be bound to the profile, a
// *state.CapacityError if no plan exists, an *actions.InfeasibleError if
// neither the initializer nor the fallback finds one, or
// ctx's error if it was cancelled before the initializer finished (a
// deadline is not a cancellation: a deadline that has passed, like
// Settings.TimeLimit, still gets the initializer's plan, Status TimeLimit).
func Run(ctx context.Context, prog *workload.Program, prof *hw.Profile, s *Settings) (*Result, error) {
	p, err := state.Bind(prog, prof, "workload")
	if err != nil {
		return nil, err
	}
	return RunProblem(ctx, p, s)
}

// RunProblem is Run on a bound problem.
func RunProblem(ctx context.Context, p *state.Problem, s *Settings) (*Result, error) {
	cfg := s.withDefaults()
	start := time.Now()
	// lim ends at the time limit or ctx's deadline, or when ctx is
	// cancelled: the search and repacking run under it. The start (the
	// initializer, the fallback) runs under ctx without its deadline.
	lim := ctx
	if cfg.TimeLimit > 0 {
		var cancel context.CancelFunc
		lim, cancel = context.WithDeadline(ctx, start.Add(cfg.TimeLimit))
		defer cancel()
	}
	ctx, cancelStart := withoutDeadline(ctx)
	defer cancelStart()
	if err := p.CheckCapacity(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in := actions.NewInitializer(p)
	in.NoReuse = cfg.NoReuse
	base := state.NewLayout(p.Blocks())
	// The second start (kind order) is planned on another goroutine while
	// the first is: the two are independent.
	var (
		alt    *actions.Initializer
		altLay *state.Layout
		altErr error
		altRun sync.WaitGroup
	)
	if !cfg.InitialOnly {
		alt = actions.NewInitializerOrder(p, actions.KindOrder)
		alt.NoReuse = cfg.NoReuse
		altLay = state.NewLayout(p.Blocks())
		plan := func() { _, altErr = alt.Run(altLay, 0) }
		if cfg.Workers > 1 {
			altRun.Go(plan)
		} else {
			plan()
		}
	}
	_, err := in.Run(base, 0)
	altRun.Wait()
	var fb *actions.Fallback
	if err != nil {
		// The initializer cannot place a block: the fallback plan (the
		// exact packer at each level's capacity) is cost.initial's plan
		// and a start. The search re-plans with the initializer all the
		// same; a candidate whose re-planning fails is dropped.
		var ie *actions.InfeasibleError
		if !errors.As(err, &ie) {
			return nil, err
		}
		if base, fb, err = actions.FallbackPlan(ctx, p, cfg.CostModel, ie); err != nil {
			return nil, err
		}
	}
	sr := &searcher{p: p, cfg: cfg, in: in, model: cfg.CostModel, base: base}
	sr.initial = costmodel.Total(sr.model, p, base)
	sr.stats.StartCost = sr.initial
	sr.stats.Fallback = fb
	if alt != nil && altErr == nil {
		if c := costmodel.Total(sr.model, p, altLay); c < sr.initial {
			sr.in, sr.base = alt, altLay
			sr.stats.Start, sr.stats.StartCost = actions.KindOrder, c
		}
	}
	searchStart := time.Now()
	sr.stats.InitTime = searchStart.Sub(start)
	limited := func() bool { return errors.Is(lim.Err(), context.DeadlineExceeded) }
	sr.prepare()
	var status Status
	if lim.Err() != nil {
		// The limit (or a cancellation) came during the start: no search.
		status = statusOf(lim)
		if limited() {
			sr.stats.Cut = PhaseInit
		}
	} else {
		status = sr.runPool(lim)
		if status == TimeLimit {
			sr.stats.Cut, sr.stats.CutTimestep = PhaseSearch, sr.cutAt
		}
		if status == Converged && lim.Err() != nil && !limited() {
			status = Cancelled // just after the last timestep
		}
	}
	repackStart := time.Now()
	sr.stats.SearchTime = repackStart.Sub(searchStart)
	lay, cost := sr.base, costmodel.Total(sr.model, p, sr.base)
	// Repacking gets what is left of the time limit: it is skipped when
	// nothing is (or after a cancellation), and stopped where the limit
	// falls (what it accepted until then stands). Without a limit its
	// budget is deterministic.
	if n := cfg.RepackBudget(); n > 0 {
		switch {
		case lim.Err() != nil:
			if limited() {
				sr.stats.RepackSkipped = true
				if status == Converged { // the limit fell just after the search
					status, sr.stats.Cut = TimeLimit, PhaseRepack
				}
			}
		default:
			rr, err := repack.Run(lim, p, lay, &repack.Settings{Packings: n, CostModel: sr.model, Check: cfg.Check, Workers: cfg.Workers})
			if err != nil {
				panic(fmt.Sprintf("search: repacking the committed plan: %v", err)) // the plan is complete
			}
			sr.stats.Repack = rr.Stats
			sr.stats.RepackGain = rr.InputCost - rr.Cost
			lay, cost = rr.Layout, rr.Cost
			if rr.Stopped && status == Converged {
				status = statusOf(lim)
				if status == TimeLimit {
					sr.stats.Cut = PhaseRepack
				}
			}
		}
	}
	sr.stats.RepackTime = time.Since(repackStart)
	return &Result{
		Layout:      lay,
		InitialCost: sr.initial,
		Cost:        cost,
		Stats:       sr.stats,
		Status:      status,
	}, nil
}

// Phase is a phase of RunProblem, in the order they run.
type Phase int

// The phases of RunProblem.
const (
	PhaseNone   Phase = iota
	PhaseInit         // the initializer (or the fallback plan)
	PhaseSearch       // the search
	PhaseRepack       // repacking, and the final cost
)

func (p Phase) String() string {
	return [...]string{"none", "initializer", "search", "repack"}[p]
}

// withoutDeadline returns ctx without its deadline: it is cancelled when
// ctx is cancelled, but not when ctx's deadline passes. The start of a run
// uses it: a plan must exist, however early the deadline.
func withoutDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(context.WithoutCancel(ctx))
	follow := func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	}
	if ctx.Err() != nil {
		follow() // at once: AfterFunc would do it on another goroutine
	}
	stop := context.AfterFunc(ctx, follow)
	return c, func() { stop(); cancel() }
}

func statusOf(ctx context.Context) Status {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return TimeLimit
	}
	return Cancelled
}

// searcher is one search in progress.
type searcher struct {
	p       *state.Problem
	cfg     Settings
	in      *actions.Initializer
	model   costmodel.Model
	base    *state.Layout // the committed plan
	initial float64
	stats   Stats
	pool    *pool // the workers of the candidates
	ends    []bool
	blocks  [][]int32 // per timestep: the blocks of the timestep
	discard []*node   // candidates left out of the beam, to recycle (see pipeline)
	cutAt   int       // the timestep run was at when the context ended it

	// For the skip rule: per block, the last timestep it spends below the
	// highest level in the committed plan (-1: never); how many blocks
	// have each such last timestep; and the latest of them.
	lastSlow  []int32
	slowCount []int32
	maxSlow   int

	// everUsed holds, per level, the addresses that some block of the
	// committed plan occupies at some timestep; evicted constants go
	// outside them.
	everUsed []*state.Intervals
}

// node is one state the search holds: the committed plan with a patch,
// its cost, and the occupancy of the current timestep.
type node struct {
	ov      *state.Overlay
	occ     *state.Occupancy
	cost    float64
	actions []actions.Kind     // actions taken since the segment began
	seq     int                // creation order, for deterministic ties
	t       int                // the timestep of the last action, and
	round   int                // the round of it there (1 = first)
	used    []*state.Intervals // everUsed plus this node's patch, made when needed
	// A candidate's occupancy is made only if it enters the beam
	// (materialize), from its parent's and the candidate.
	parent *node
	cand   actions.Candidate
}

// prepare computes the segment ends and the blocks of each timestep: those
// it reads, writes or creates (constants at timestep 0 included, since that
// is where their first placement is decided).
func (sr *searcher) prepare() {
	sr.ends = sr.cfg.Segments.Ends(sr.p.Prog)
	T := sr.p.Prog.Timesteps()
	sr.blocks = make([][]int32, T)
	for t := 0; t < T; t++ {
		acc, cre := sr.p.Accessed(t), sr.p.Created(t)
		merged := make([]int32, 0, len(acc)+len(cre))
		merged = append(merged, acc...)
		merged = append(merged, cre...)
		slices.Sort(merged)
		sr.blocks[t] = slices.Compact(merged)
	}
	sr.lastSlow = make([]int32, sr.p.Blocks())
	sr.slowCount = make([]int32, T)
	sr.maxSlow = -1
	for b := range sr.lastSlow {
		sr.lastSlow[b] = -1
		sr.updateSlow(b)
	}
	sr.everUsed = make([]*state.Intervals, sr.p.Levels())
	for l := range sr.everUsed {
		sr.everUsed[l] = &state.Intervals{}
	}
	for b := range sr.base.Segs {
		sr.addUsed(sr.everUsed, b, sr.base.Segs[b])
	}
}

// addUsed adds the ranges of block b's segments to the per-level sets.
func (sr *searcher) addUsed(sets []*state.Intervals, b int, segs []state.Seg) {
	for _, s := range segs {
		sets[s.Level].Add(s.Offset, s.Offset+sr.p.Foot(b, int(s.Level)))
	}
}

// evictSpace returns where evicted constants may go for state n: outside
// every range that the committed plan or n's patch occupies at some
// timestep.
func (sr *searcher) evictSpace(n *node) actions.EvictSpace {
	if n.used == nil {
		n.used = make([]*state.Intervals, len(sr.everUsed))
		for l, u := range sr.everUsed {
			n.used[l] = u.Clone()
		}
		for _, b := range n.ov.Patched() {
			sr.addUsed(n.used, b, n.ov.BlockSegs(b))
		}
	}
	return func(l int, size, align int64, taken []state.Gap) (int64, bool) {
		return n.used[l].FirstFreeAvoiding(0, size, align, sr.p.HW.Levels[l].Capacity, taken)
	}
}

// updateSlow refreshes block b's last timestep below the highest level
// after the committed plan changed.
func (sr *searcher) updateSlow(b int) {
	if old := sr.lastSlow[b]; old >= 0 {
		sr.slowCount[old]--
	}
	last := int32(-1)
	segs := sr.base.Segs[b]
	for i, s := range segs {
		if s.Level == 0 {
			continue
		}
		end := int32(sr.p.Block(b).Last)
		if i+1 < len(segs) {
			end = segs[i+1].From - 1
		}
		last = max(last, end)
	}
	sr.lastSlow[b] = last
	if last >= 0 {
		sr.slowCount[last]++
	}
	sr.maxSlow = max(sr.maxSlow, int(last))
	for sr.maxSlow >= 0 && sr.slowCount[sr.maxSlow] == 0 {
		sr.maxSlow--
	}
}

// runPool is run with the pool of workers that evaluate candidates.
func (sr *searcher) runPool(ctx context.Context) Status {
	sr.pool = newPool(sr.cfg.Workers)
	defer sr.pool.close()
	return sr.run(ctx)
}

// run walks the timesteps (ALGORITHM.md steps 3-7) and returns how it
// ended. When the context ends, the committed plan (sr.base) is the last
// committed state: complete and valid.
func (sr *searcher) run(ctx context.Context) Status {
	p := sr.p
	T := p.Prog.Timesteps()
	committed := &node{ov: state.NewOverlay(sr.base), cost: sr.stats.StartCost}
	committed.occ = state.NewOccupancy(p)
	sr.in.Replay(committed.occ, committed.ov, 0)
	beam := []*node{committed}
	committedAt := 0 // the timestep committed.occ has been replayed to
	seq := 1
	for t := 0; t < T; t++ {
		if ctx.Err() != nil {
			sr.cutAt = t
			return statusOf(ctx)
		}
		sr.stats.Timesteps++
		// Round 1 expands the beam; each further round expands the states
		// the previous round added to the beam, so that one state may
		// take several actions at t. Rounds stop when one adds nothing.
		frontier := beam
		for round := 0; round < sr.cfg.Rounds && len(frontier) > 0; round++ {
			children, err := sr.expand(ctx, frontier, t, &seq)
			if err != nil {
				sr.cutAt = t
				return statusOf(ctx)
			}
			before := beam[0].cost
			beam = append(beam, children...)
			cheapest(beam, sr.cfg.Beam)
			if sr.cfg.Beam > 0 && len(beam) > sr.cfg.Beam {
				beam = beam[:sr.cfg.Beam]
				// This round's candidates left out are leaves (nothing
				// forked them): the workers recycle their overlays at the
				// start of the next pipeline.
				for _, c := range children {
					if !slices.Contains(beam, c) {
						sr.discard = append(sr.discard, c)
					}
				}
			}
			sr.materialize(beam)
			if !(beam[0].cost < before-1e-12*max(1, before)) {
				break // no better state this round
			}
			frontier = frontier[:0:0]
			for _, n := range beam {
				if n.round == round+1 && n.t == t {
					frontier = append(frontier, n)
				}
			}
		}
		if sr.ends[t] {
			best := beam[0]
			if best != committed && best.cost < committed.cost-1e-12*max(1, committed.cost) {
				for _, k := range best.actions {
					sr.stats.Committed[k]++
				}
				sr.stats.Commits++
				changed := best.ov.Patched()
				best.ov.Apply()
				for _, b := range changed {
					sr.updateSlow(b)
					sr.addUsed(sr.everUsed, b, sr.base.Segs[b])
				}
				best.actions = nil
				committed = best
				committedAt = t
				if sr.cfg.Check {
					sr.check(committed, t)
				}
			}
			// States cheaper than the committed one by less than the
			// commit margin may have pushed it out of the beam, and its
			// occupancy was not replayed since: bring it up to t.
			for ; committedAt < t; committedAt++ {
				sr.in.Replay(committed.occ, committed.ov, committedAt+1)
			}
			beam = []*node{committed}
		}
		if t+1 < T {
			// The states' occupancies are their own: replayed in parallel.
			sr.pool.each(len(beam), func(i int) { sr.in.Replay(beam[i].occ, beam[i].ov, t+1) })
			if slices.Contains(beam, committed) {
				committedAt = t + 1
			}
		}
		if sr.cfg.Progress != nil {
			sr.cfg.Progress(Progress{Timestep: t + 1, Steps: T, Cost: committed.cost})
		}
	}
	return Converged
}

// cheapest orders the first k states of nodes (all of them if k <= 0)
// cheapest first, ties by creation: the beam. A bounded beam takes a few
// of a few dozen states each timestep, so it selects them (k passes)
// instead of sorting all.
func cheapest(nodes []*node, k int) {
	less := func(a, b *node) bool { return a.cost < b.cost || a.cost == b.cost && a.seq < b.seq }
	if k <= 0 {
		slices.SortFunc(nodes, func(a, b *node) int {
			return cmp.Or(cmp.Compare(a.cost, b.cost), cmp.Compare(a.seq, b.seq))
		})
		return
	}
	for i := 0; i < min(k, len(nodes)); i++ {
		m := i
		for j := i + 1; j < len(nodes); j++ {
			if less(nodes[j], nodes[m]) {
				m = j
			}
		}
		nodes[i], nodes[m] = nodes[m], nodes[i]
	}
}

// skip reports whether timestep t can be skipped for state n (ALGORITHM.md
// step 3): every block of t sits in the highest level already. hieropt adds
// a condition: no block of the committed plan sits below the highest level
// at t or later. While one does, an action at t (moving a block inside the
// highest level, say) can still make room for it, as in the seed-000
// example, where keeping everything fast needs a move at a timestep whose
// blocks are all fast.
func (sr *searcher) skip(n *node, t int) bool {
	if sr.maxSlow >= t {
		return false
	}
	for _, b := range sr.blocks[t] {
		if state.SegAt(n.ov.BlockSegs(int(b)), t).Level != 0 {
			return false
		}
	}
	return true
}

// job is one candidate to evaluate: an action on a block of a beam state.
type job struct {
	parent *node
	cand   actions.Candidate
	occ    *state.Occupancy // the parent's occupancy with the block detached, this job's own
}

// unit is the work for one block of one beam state: detach the block,
// enumerate its candidates, evaluate each.
type unit struct {
	parent *node
	block  int
	occ    *state.Occupancy // a clone of the parent's occupancy, the unit's own
	// Results, in enumeration order: the candidates, their occupancies
	// (until evaluated), their states (nil if re-planning failed) and the
	// timesteps re-planned.
	cands []actions.Candidate
	occs  []*state.Occupancy
	nodes []*node
	steps []int
}

// expand tries every action on every block of timestep t in every beam
// state and returns the candidate states, in a fixed order. The blocks are
// worked on by Settings.Workers goroutines; the order, and so the result,
// does not depend on how many.
func (sr *searcher) expand(ctx context.Context, beam []*node, t int, seq *int) ([]*node, error) {
	p := sr.p
	var units []*unit
	var owners []int // the index in units of each beam state's first unit
	for _, n := range beam {
		owners = append(owners, len(units))
		if sr.skip(n, t) {
			sr.stats.Skipped++
			continue
		}
		for _, bi := range sr.blocks[t] {
			b := int(bi)
			if !actions.Eligible(p, n.ov, b, t) || sr.cfg.Horizon > 0 && p.Block(b).Last-t > sr.cfg.Horizon {
				continue
			}
			for k, on := range sr.cfg.Actions {
				if on {
					sr.stats.Tried[k]++
				}
			}
			units = append(units, &unit{parent: n, block: b})
		}
	}
	// Each unit works on its own copy of its state's occupancy. Cloning
	// marks the source's data shared, so one goroutine clones all the
	// copies of one state; the states' clones are made in parallel, and
	// so is the space for evictions of each state that has units (made
	// here: the workers share it).
	owners = append(owners, len(units))
	sr.pool.each(len(beam), func(i int) {
		us := units[owners[i]:owners[i+1]]
		for _, u := range us {
			u.occ = u.parent.occ.Clone()
		}
		if len(us) > 0 && sr.cfg.Actions[actions.Evict] {
			sr.evictSpace(beam[i])
		}
	})
	// Per unit: detach the block and enumerate its candidates, each with
	// its own copy of the occupancy; per candidate: apply and re-plan (see
	// pipeline).
	sr.pipeline(ctx, units, t)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var children []*node
	for _, u := range units {
		for i, c := range u.cands {
			sr.stats.Succeeded[c.Kind]++
			sr.stats.Replans++
			sr.stats.ReplanSteps += int64(u.steps[i])
			r := u.nodes[i]
			if r == nil {
				sr.stats.Failed[c.Kind]++
				continue
			}
			r.seq = *seq
			*seq++
			children = append(children, r)
		}
	}
	return children, nil
}

// pipeline enumerates every unit's candidates and evaluates each
// candidate, on Settings.Workers goroutines. Results go to fixed slots
// (unit.nodes, unit.steps), so the order of the work does not matter.
// Workers take units to enumerate (the longest-lived block first); the
// worker that finishes the last one lists every candidate, the one whose
// re-planning looks longest (by how long the changed blocks live on)
// first, and the workers take candidates from the list in that order.
// Enumerating is a small part of the work, so waiting for it costs little,
// and taking work needs no lock: a contended lock per candidate cost more.
// Workers stop taking work when ctx ends.
func (sr *searcher) pipeline(ctx context.Context, units []*unit, t int) {
	if len(units) == 0 {
		return
	}
	p := sr.p
	order := make([]int, len(units))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(p.Block(units[b].block).Last, p.Block(units[a].block).Last)
	})
	done := ctx.Done()
	ended := func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	var (
		nextUnit, enumerated, nextJob, nextDiscard atomic.Int64
		list                                       atomic.Pointer[[]queued]
	)
	discard := sr.discard
	sr.discard = sr.discard[:0:0]
	worker := func() {
		for i := int(nextDiscard.Add(1)) - 1; i < len(discard); i = int(nextDiscard.Add(1)) - 1 {
			discard[i].ov.Recycle()
		}
		for !ended() {
			i := int(nextUnit.Add(1)) - 1
			if i >= len(units) {
				break
			}
			sr.enumerate(units[order[i]], t)
			if int(enumerated.Add(1)) == len(units) {
				list.Store(sr.jobList(units, order))
			}
		}
		// The others finish their last units: a few microseconds.
		for list.Load() == nil {
			if ended() {
				return
			}
			runtime.Gosched()
		}
		jobs := *list.Load()
		for !ended() {
			k := int(nextJob.Add(1)) - 1
			if k >= len(jobs) {
				return
			}
			u, c := jobs[k].u, jobs[k].k
			u.nodes[c], u.steps[c] = sr.evaluate(job{parent: u.parent, cand: u.cands[c], occ: u.occs[c]}, t)
			u.occs[c] = nil
		}
	}
	// Every worker may be needed even for one unit: it may have many
	// candidates.
	sr.pool.run(sr.cfg.Workers, worker)
}

// queued is a candidate to evaluate: candidate k of unit u, its estimated
// work, and a sequence number that breaks ties.
type queued struct {
	u        *unit
	k        int
	est, seq int
}

// jobList lists the candidates of the enumerated units, the most work
// first, and makes their result slots.
func (sr *searcher) jobList(units []*unit, order []int) *[]queued {
	p := sr.p
	var jobs []queued
	for i, ui := range order {
		u := units[ui]
		u.nodes = make([]*node, len(u.cands))
		u.steps = make([]int, len(u.cands))
		for k, c := range u.cands {
			est := p.Block(c.Block).Last
			for _, e := range c.Evicted {
				est = max(est, p.Block(e.Block).Last)
			}
			jobs = append(jobs, queued{u: u, k: k, est: est, seq: i<<20 | k})
		}
	}
	slices.SortFunc(jobs, func(a, b queued) int {
		return cmp.Or(cmp.Compare(b.est, a.est), cmp.Compare(a.seq, b.seq))
	})
	return &jobs
}

// enumerate detaches the unit's block and lists its candidates, each with
// its own copy of the detached occupancy.
func (sr *searcher) enumerate(u *unit, t int) {
	p := sr.p
	n := u.parent
	opts := actions.Options{Actions: sr.cfg.Actions, Max: sr.cfg.MaxCandidates, Horizon: sr.cfg.Horizon}
	detached := u.occ
	actions.Detach(detached, n.ov, u.block, t)
	add := func(c actions.Candidate) { u.cands = append(u.cands, c) }
	actions.Enumerate(detached, n.ov, u.block, t, opts, add)
	if sr.cfg.Actions[actions.Evict] {
		price := func(c, l int) float64 {
			segs := n.ov.BlockSegs(c)
			moved := []state.Seg{{From: segs[0].From, Level: int32(l)}}
			return sr.model.BlockCost(p, c, moved) - sr.model.BlockCost(p, c, segs)
		}
		actions.EnumerateEvict(detached, n.ov, u.block, t, opts, price, sr.evictSpace(n), add)
	}
	u.occs = make([]*state.Occupancy, len(u.cands))
	for i := range u.cands {
		u.occs[i] = detached.Clone()
	}
}

// evaluate applies a candidate to its own copy of the parent state,
// re-plans the later timesteps and prices the result. It returns nil if
// the re-planning finds a block that fits nowhere.
func (sr *searcher) evaluate(j job, t int) (*node, int) {
	p := sr.p
	b := j.cand.Block
	child := j.parent.ov.Fork() // flattened if it enters the beam
	occ := j.occ
	actions.Apply(occ, child, j.cand)
	changed := []int{b}
	for _, e := range j.cand.Evicted {
		changed = append(changed, e.Block)
	}
	var delta float64
	for _, c := range changed {
		delta += sr.model.BlockCost(p, c, child.BlockSegs(c)) - sr.model.BlockCost(p, c, j.parent.ov.BlockSegs(c))
	}
	d, steps, ok := sr.replan(child, occ, j.parent.ov, t, changed)
	occ.Recycle() // the candidate's occupancy was only for re-planning
	if !ok {
		child.Recycle()
		return nil, steps
	}
	acts := make([]actions.Kind, len(j.parent.actions), len(j.parent.actions)+1)
	copy(acts, j.parent.actions)
	round := 1
	if j.parent.t == t && j.parent.round > 0 {
		round = j.parent.round + 1
	}
	return &node{ov: child, parent: j.parent, cand: j.cand, cost: j.parent.cost + delta + d, actions: append(acts, j.cand.Kind), t: t, round: round}, steps
}

// replan re-runs the initializer for the timesteps after t on the child
// state (ALGORITHM.md step 4), incrementally: it stops as soon as every
// block alive is where the parent has it, because from there on the
// initializer, which depends only on the state of the timestep, places
// everything as it did for the parent. It returns the cost of the blocks
// it placed differently, less their cost in the parent.
func (sr *searcher) replan(child *state.Overlay, occ *state.Occupancy, parent *state.Overlay, t int, acted []int) (delta float64, steps int, ok bool) {
	p := sr.p
	T := p.Prog.Timesteps()
	// diff holds the blocks alive whose position differs from the
	// parent's; it stays small, so a slice beats a map.
	var buf [16]int32
	diff := buf[:0]
	for _, b := range acted {
		if p.Block(b).Last > t {
			diff = append(diff, int32(b))
		}
	}
	for u := t + 1; u < T; u++ {
		sr.in.Free(occ, child, u)
		live := diff[:0]
		for _, b := range diff {
			if p.Block(int(b)).Last >= u {
				live = append(live, b)
			}
		}
		diff = live
		if len(diff) == 0 {
			return delta, steps, true
		}
		steps++
		for _, ci := range sr.in.Order(u) {
			c := int(ci)
			pos, placed := sr.in.Place(occ, child, c, u)
			if !placed {
				return 0, steps, false
			}
			seg := state.Seg{From: int32(u), Level: pos.Level, Offset: pos.Offset}
			old := parent.BlockSegs(c)
			if len(old) == 1 && old[0] == seg {
				continue
			}
			child.SetFirst(c, seg)
			diff = append(diff, ci)
			delta += sr.model.BlockCost(p, c, child.BlockSegs(c)) - sr.model.BlockCost(p, c, old)
		}
	}
	return delta, steps, true
}

// materialize makes the occupancies of the candidate states that entered
// the beam: each its parent's, with the candidate's action applied.
// (Candidates do not keep one: most never enter the beam.) The copies are
// made on the caller, since cloning marks the source shared; the actions
// are applied in parallel, each to its own copy.
func (sr *searcher) materialize(beam []*node) {
	var todo []*node
	for _, n := range beam {
		if n.occ == nil {
			n.occ = n.parent.occ.Clone()
			todo = append(todo, n)
		}
	}
	sr.pool.each(len(todo), func(i int) {
		n := todo[i]
		actions.Detach(n.occ, n.parent.ov, n.cand.Block, n.cand.At)
		actions.ApplyOcc(n.occ, n.parent.ov, n.cand)
		n.ov.Flatten() // its children fork it
	})
	for _, n := range todo {
		n.parent = nil
	}
}

// check verifies the committed state after a commit at timestep t.
func (sr *searcher) check(n *node, t int) {
	if err := n.occ.Check(); err != nil {
		panic(fmt.Sprintf("search: occupancy at %d: %v", t, err))
	}
	want, err := state.OccupancyAt(sr.p, sr.base, t)
	if err != nil {
		panic(fmt.Sprintf("search: committed layout at %d: %v", t, err))
	}
	for l := 0; l < sr.p.Levels(); l++ {
		var a, b []state.Span
		n.occ.Spans(l, func(s state.Span) bool { a = append(a, s); return true })
		want.Spans(l, func(s state.Span) bool { b = append(b, s); return true })
		if !slices.Equal(a, b) {
			panic(fmt.Sprintf("search: occupancy of level %d at %d differs from the layout's", l, t))
		}
	}
	if err := sr.base.CheckComplete(sr.p); err != nil {
		panic(fmt.Sprintf("search: %v", err))
	}
	full := costmodel.Total(sr.model, sr.p, sr.base)
	if d := full - n.cost; d > 1e-6*max(1, full) || d < -1e-6*max(1, full) {
		panic(fmt.Sprintf("search: running cost %v, recomputed %v at %d", n.cost, full, t))
	}
}
