package search

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

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
	acts   actions.Set      // the actions tried on it
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
			acts := sr.cfg.Actions
			if !actions.Eligible(p, n.ov, b, t) {
				if !sr.prefetchAtLast(n, b, t) {
					continue
				}
				acts = actions.Set{}
				acts[actions.Prefetch] = true
			}
			if sr.cfg.Horizon > 0 && p.Block(b).Last-t > sr.cfg.Horizon {
				continue
			}
			for k, on := range acts {
				if on {
					sr.stats.Tried[k]++
				}
			}
			units = append(units, &unit{parent: n, block: b, acts: acts})
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

// prefetchAtLast reports whether block b, which no action may change at
// t (actions.Eligible), may still be prefetched there: under the timeline
// model, with the prefetch action on, a block read for the last time at t
// (created before) from a level below the fastest, not resident, sharing
// its space with no block created at t. Moving it at t frees nothing, but
// its copy into a faster level, issued earlier, can hide behind the ops
// before t and make the read faster: a constant streamed from its home
// is the common case.
func (sr *searcher) prefetchAtLast(n *node, b, t int) bool {
	p := sr.p
	blk := p.Block(b)
	if !p.Timeline() || !sr.cfg.Actions[actions.Prefetch] || blk.Last != t || blk.First >= t {
		return false
	}
	segs := n.ov.BlockSegs(b)
	if len(segs) == 0 || segs[0].IsResident() || state.SegAt(segs, t).Level == 0 {
		return false
	}
	if c, ok := actions.Partner(p, n.ov, b, t); ok && p.Block(c).First == t {
		return false
	}
	return true
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
	opts := actions.Options{Actions: u.acts, Max: sr.cfg.MaxCandidates, Horizon: sr.cfg.Horizon}
	if n.pr != nil {
		opts.Dur = n.pr.Dur // prefetch's hiding start, by the node's op durations
	}
	detached := u.occ
	actions.Detach(detached, n.ov, u.block, t)
	add := func(c actions.Candidate) { u.cands = append(u.cands, c) }
	actions.Enumerate(detached, n.ov, u.block, t, opts, add)
	if u.acts[actions.Evict] {
		price := func(c, l int) float64 {
			segs := n.ov.BlockSegs(c)
			moved := []state.Seg{{From: segs[0].From, Level: int32(l)}}
			if p.Block(c).Kind != workload.Constant {
				// An idle activation (timeline model): copied out at t.
				moved = append(slices.Clone(segs), state.Seg{From: int32(t), Level: int32(l)})
			}
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
	if !sr.sep {
		return sr.evaluatePriced(j, t)
	}
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
	w := sr.in.NewWalk()
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
			pos, placed := w.Place(occ, child, c, u)
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

// evaluatePriced is evaluate under a model that is not Separable (the
// timeline model): the candidate and its re-planning change some blocks,
// and the parent's Pricer re-prices the layout with exactly those blocks'
// segments replaced (Reprice), the candidate's own segments taken as the
// action wrote them (their copy starts included).
func (sr *searcher) evaluatePriced(j job, t int) (*node, int) {
	parent := j.parent
	child := parent.ov.Fork() // flattened if it enters the beam
	occ := j.occ
	actions.Apply(occ, child, j.cand)
	acted := make([]int, 0, 1+len(j.cand.Evicted))
	acted = append(acted, j.cand.Block)
	for _, e := range j.cand.Evicted {
		acted = append(acted, e.Block)
	}
	changed, steps, ok := sr.replanTimeline(child, occ, parent.ov, t, acted)
	occ.Recycle() // the candidate's occupancy was only for re-planning
	if !ok {
		child.Recycle()
		return nil, steps
	}
	slices.Sort(changed)
	ch := make([]costmodel.BlockChange, 0, len(changed))
	for _, b := range changed {
		old, cur := parent.ov.BlockSegs(b), child.BlockSegs(b)
		if !slices.Equal(old, cur) {
			ch = append(ch, costmodel.BlockChange{Block: b, Old: old, New: cur})
		}
	}
	sc, _ := sr.scratch.Get().(*costmodel.Scratch)
	if sc == nil {
		sc = new(costmodel.Scratch)
	}
	cost := parent.pr.Reprice(ch, sc)
	sr.scratch.Put(sc)
	acts := make([]actions.Kind, len(parent.actions), len(parent.actions)+1)
	copy(acts, parent.actions)
	round := 1
	if parent.t == t && parent.round > 0 {
		round = parent.round + 1
	}
	return &node{ov: child, parent: parent, cand: j.cand, cost: cost, changes: ch, actions: append(acts, j.cand.Kind), t: t, round: round}, steps
}

// replanTimeline is replan under a model that is not Separable, which is
// the timeline model's semantics (Problem.Timeline) or the seed's: the
// initializer's Step re-plans each timestep after t on the child state
// (in one actions.Walk, which keeps what its decisions look back at),
// and the blocks it touches there whose segments differ from the parent's
// join the changed ones (acted, the candidate's). It returns them (each
// once; some may have ended equal).
//
// The stop rule. Let D be the last timestep at which a changed block
// occupies a range, in the child or the parent (state.OccEnd of its last
// segment: its last timestep, the program's last for a resident one), or
// t. Up to D the two layouts' occupancies may differ; after D they are
// the same, every block being where the parent has it. The walk stops at
// the first u > D from which the parent's decisions can be kept as they
// are. Those are valid in the child unless a copy's reservation reaches
// back into a difference: a copy the parent decided at u' >= u occupies
// [s*, u'-1] where nothing of the parent's layout is, so in the child it
// can only meet a difference at or before D. One whose reservation began
// by t was in the child's occupancy from the start (cloned from the
// parent's, where the walk placed it at its start), so the re-planned
// placements kept off it. So the walk goes on while some copy of the
// parent at u' >= u starts in (t, D], and re-decides it at u' (there is
// none past D + H: s* >= u' - Problem.Horizon). The rest of the plan is
// the parent's, valid and priced exactly by Reprice; it may differ from
// what the initializer would decide from scratch (its estimates look
// back further, at the free-since log and at the copies before u'),
// which makes it another valid plan, never a broken one. Under the
// seed's semantics nothing reaches back, and the walk stops after D as
// replan does.
//
// The candidate's own copy may start before t (prefetch, into a faster
// level or, as an asynchronous eviction, a slower one): its reservation
// [s, t-1] lies where the child's layout is the parent's, which
// re-planning does not touch. It is valid there whatever the direction:
// the free-since log of the parent's occupancy at t says no segment held
// the range since s (actions.prefetchLeads), and the reservations that
// began by t and go on are in that occupancy, so the candidate's position
// keeps off them. The same holds for an evict candidate's idle activations,
// copied out at t with their copies issued early (actions.IdleEvictable):
// each destination is free at t, free since its start by the log, and
// apart from the other evicted blocks' ranges; each such block is among
// the changed ones, so the walk goes on until it dies, placing the later
// blocks around it.
func (sr *searcher) replanTimeline(child *state.Overlay, occ *state.Occupancy, parent *state.Overlay, t int, acted []int) (changed []int, steps int, ok bool) {
	p := sr.p
	T := p.Prog.Timesteps()
	changed = acted
	D := t
	note := func(b int) {
		D = max(D, sr.occEnd(b, child.BlockSegs(b)), sr.occEnd(b, parent.BlockSegs(b)))
	}
	for _, b := range acted {
		note(b)
	}
	need, needD := -1, -1 // the last copy reaching back into (t, D], for D = needD
	w := sr.in.NewWalk()
	for u := t + 1; u < T; u++ {
		if u > D {
			if !p.Timeline() {
				break
			}
			if needD != D {
				need, needD = sr.reachesBack(parent, changed, t, D, u), D
			}
			if u > need {
				break
			}
		}
		steps++
		if err := w.Step(occ, child, u); err != nil {
			return changed, steps, false
		}
		for _, bi := range p.Touched(u) {
			b := int(bi)
			if slices.Contains(changed, b) || slices.Equal(child.BlockSegs(b), parent.BlockSegs(b)) {
				continue
			}
			changed = append(changed, b)
			note(b)
		}
	}
	return changed, steps, true
}

// reachesBack returns the last timestep u' in [from, D + Horizon] at
// which a block not changed has a copy in the parent's layout (a
// transfer, or a constant's load) that starts in (t, D], or -1.
// Copies at timesteps after the search's current one are the
// initializer's, made only at timesteps that touch their block (evict's
// copies of idle activations are at the current timestep, never after).
func (sr *searcher) reachesBack(parent *state.Overlay, changed []int, t, D, from int) int {
	p := sr.p
	last := -1
	for u := from; u <= min(D+p.Horizon(), p.Prog.Timesteps()-1); u++ {
		for _, bi := range p.Touched(u) {
			b := int(bi)
			for _, s := range parent.BlockSegs(b) {
				if int(s.From) == u && s.Lead > 0 && int(s.Start()) > t && int(s.Start()) <= D && !slices.Contains(changed, b) {
					last = u
				}
			}
		}
	}
	return last
}

func (sr *searcher) occEnd(b int, segs []state.Seg) int {
	if len(segs) == 0 {
		return -1
	}
	return state.OccEnd(sr.p, b, segs, len(segs)-1)
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
		// Re-planning may have changed copies whose reservations began by
		// the action's timestep (timeline only; Detach released the acted
		// block's).
		actions.SyncReservations(n.occ, n.cand.At, n.cand.Block, n.changes)
		n.ov.Flatten() // its children fork it
		if n.parent.pr != nil {
			n.pr = n.parent.pr.Derive(n.ov, n.changes)
		}
	})
	for _, n := range todo {
		n.parent = nil
		n.changes = nil
	}
}
