package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/state"
)

// Start is where a walk begins.
type Start struct {
	// Layout is the plan the walk starts from, committed at first: a
	// complete, valid layout of the problem. Walk does not change it.
	Layout *state.Layout
	// Initializer re-plans the timesteps after each action (ALGORITHM.md
	// step 4). Give the one that made Layout (its order, its reuse rule),
	// so that a candidate that changes nothing re-plans into Layout
	// itself. Default (nil): actions.NewInitializer, workload order.
	Initializer *actions.Initializer
	// Model prices the states. Default (nil): costmodel.Seed003.
	Model costmodel.Model
}

// Walk is the search itself: seed 003's walk over the timesteps from a
// start plan (see the package documentation). It returns the best plan
// committed, never costlier than the start. ctx bounds it: when ctx ends
// (a deadline, or a cancellation), the walk stops between candidates and
// returns the plan committed so far, complete and valid, with Status
// TimeLimit or Cancelled and Stats.CutTimestep where it stopped; a ctx
// already done gets the start back. The error is only for a start that is
// not a complete layout of p.
//
// Walk is one step of hieropt.Plan, which chooses the start (the
// initializer's orders, the fallback plan), walks, then repacks; call it
// alone to experiment with the walk.
func Walk(ctx context.Context, p *state.Problem, from Start, s *Settings) (*Result, error) {
	begin := time.Now()
	if from.Layout == nil {
		return nil, errors.New("search: no start layout")
	}
	if err := from.Layout.CheckComplete(p); err != nil {
		return nil, fmt.Errorf("search: the start: %w", err)
	}
	sr := &searcher{p: p, cfg: s.WithDefaultsFor(p), in: from.Initializer, model: from.Model, base: from.Layout.Clone()}
	if sr.in == nil {
		sr.in = actions.NewInitializer(p)
	}
	if sr.model == nil {
		sr.model = costmodel.Seed003{}
	}
	_, sr.sep = sr.model.(costmodel.Separable)
	sr.startCost = costmodel.Total(sr.model, p, sr.base)
	sr.prepare()
	status := sr.runPool(ctx)
	switch {
	case status != Converged:
		sr.stats.CutTimestep = sr.cutAt
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		status = Cancelled // just after the last timestep
	}
	res := &Result{Layout: sr.base, StartCost: sr.startCost, Cost: costmodel.Total(sr.model, p, sr.base), Status: status}
	sr.stats.Time = time.Since(begin)
	res.Stats = sr.stats
	return res, nil
}

// statusOf is how a walk that ctx ended ended.
func statusOf(ctx context.Context) Status {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return TimeLimit
	}
	return Cancelled
}

// searcher is one walk in progress.
type searcher struct {
	p         *state.Problem
	cfg       Settings
	in        *actions.Initializer
	model     costmodel.Model
	sep       bool          // model is Separable: states priced by BlockCost deltas
	scratch   sync.Pool     // *costmodel.Scratch for Reprice, one per evaluation at a time
	base      *state.Layout // the committed plan
	startCost float64       // the start's cost
	stats     Stats
	pool      *pool // the workers of the candidates
	ends      []bool
	blocks    [][]int32 // per timestep: the blocks of the timestep
	discard   []*node   // candidates left out of the beam, to recycle (see pipeline)
	cutAt     int       // the timestep run was at when the context ended it

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
	ov   *state.Overlay
	occ  *state.Occupancy
	cost float64
	// pr prices the node's layout, under a model that is not Separable
	// (nil under one): made by Derive from the parent's when the node
	// enters the beam (materialize), from changes, the blocks whose
	// segments differ from the parent's (dropped then).
	pr      costmodel.Pricer
	changes []costmodel.BlockChange
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
// A range is added whatever timesteps it is occupied at, so a segment's
// reservation before its From (FORMATS.md rules 9 and 10: a copy's
// destination from its start, a resident constant's range from timestep
// 0) is in the set with it.
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
// after the committed plan changed: the last timestep at which a segment
// of b outside level 0 occupies its range (state.OccEnd: a resident
// segment's range is kept to the program's end).
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
		last = max(last, int32(state.OccEnd(sr.p, b, segs, i)))
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

// walk is where run is between timesteps.
type walk struct {
	committed   *node   // the committed state
	committedAt int     // the timestep committed.occ has been replayed to
	beam        []*node // the states the segment keeps, cheapest first
	seq         int     // the creation number of the next candidate
}

// run walks the timesteps (ALGORITHM.md steps 3-7) and returns how it
// ended. When the context ends, the committed plan (sr.base) is the last
// committed state: complete and valid.
func (sr *searcher) run(ctx context.Context) Status {
	T := sr.p.Prog.Timesteps()
	w := sr.begin()
	sr.progress(0, w)
	for t := 0; t < T; t++ {
		if ctx.Err() != nil || sr.act(ctx, w, t) != nil {
			sr.cutAt = t
			return statusOf(ctx)
		}
		if sr.ends[t] {
			sr.endSegment(w, t)
		}
		if t+1 < T {
			sr.advance(w, t)
		}
		sr.progress(t+1, w)
	}
	return Converged
}

// begin makes the committed state of the start, at timestep 0, the beam's
// only state.
func (sr *searcher) begin() *walk {
	committed := &node{ov: state.NewOverlay(sr.base), cost: sr.startCost}
	if !sr.sep {
		committed.pr = sr.model.Price(sr.p, committed.ov)
	}
	committed.occ = state.NewOccupancy(sr.p)
	sr.in.Replay(committed.occ, committed.ov, 0)
	return &walk{committed: committed, beam: []*node{committed}, seq: 1}
}

// progress reports that timestep t is reached, if asked to.
func (sr *searcher) progress(t int, w *walk) {
	if sr.cfg.Progress != nil {
		sr.cfg.Progress(Progress{Timestep: t, Steps: sr.p.Prog.Timesteps(), Cost: w.committed.cost})
	}
}

// act takes the actions of timestep t in rounds: round 1 expands the
// beam; each further round expands the states the previous round added to
// the beam, so that one state may take several actions at t. Rounds stop
// when one adds no cheaper state. The error is the context's, when it
// ended the work.
func (sr *searcher) act(ctx context.Context, w *walk, t int) error {
	sr.stats.Timesteps++
	frontier := w.beam
	for round := 0; round < sr.cfg.Rounds && len(frontier) > 0; round++ {
		children, err := sr.expand(ctx, frontier, t, &w.seq)
		if err != nil {
			return err
		}
		before := w.beam[0].cost
		w.beam = sr.keep(append(w.beam, children...), children)
		sr.materialize(w.beam)
		if !(w.beam[0].cost < before-1e-12*max(1, before)) {
			break // no better state this round
		}
		frontier = frontier[:0:0]
		for _, n := range w.beam {
			if n.round == round+1 && n.t == t {
				frontier = append(frontier, n)
			}
		}
	}
	return nil
}

// keep orders the states cheapest first and keeps the beam's worth. This
// round's candidates left out (children) are leaves, as nothing forked
// them: the workers recycle their overlays at the start of the next
// pipeline.
func (sr *searcher) keep(beam, children []*node) []*node {
	cheapest(beam, sr.cfg.Beam)
	if sr.cfg.Beam <= 0 || len(beam) <= sr.cfg.Beam {
		return beam
	}
	beam = beam[:sr.cfg.Beam]
	for _, c := range children {
		if !slices.Contains(beam, c) {
			sr.discard = append(sr.discard, c)
		}
	}
	return beam
}

// endSegment ends a segment at timestep t: the cheapest state is
// committed if it beats the committed one, and the next segment starts
// from the committed state alone.
func (sr *searcher) endSegment(w *walk, t int) {
	best := w.beam[0]
	if best != w.committed && best.cost < w.committed.cost-1e-12*max(1, w.committed.cost) {
		sr.commit(best)
		w.committed, w.committedAt = best, t
		if sr.cfg.Check {
			sr.check(best, t)
		}
	}
	// States cheaper than the committed one by less than the commit
	// margin may have pushed it out of the beam, and its occupancy was not
	// replayed since: bring it up to t.
	for ; w.committedAt < t; w.committedAt++ {
		sr.in.Replay(w.committed.occ, w.committed.ov, w.committedAt+1)
	}
	w.beam = []*node{w.committed}
}

// commit makes state n the committed plan.
func (sr *searcher) commit(n *node) {
	for _, k := range n.actions {
		sr.stats.Committed[k]++
	}
	sr.stats.Commits++
	changed := n.ov.Patched()
	n.ov.Apply()
	for _, b := range changed {
		sr.updateSlow(b)
		sr.addUsed(sr.everUsed, b, sr.base.Segs[b])
	}
	n.actions = nil
}

// advance brings the beam's states from timestep t to t+1. Their
// occupancies are their own: they are replayed in parallel.
func (sr *searcher) advance(w *walk, t int) {
	sr.pool.each(len(w.beam), func(i int) { sr.in.Replay(w.beam[i].occ, w.beam[i].ov, t+1) })
	if slices.Contains(w.beam, w.committed) {
		w.committedAt = t + 1
	}
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
