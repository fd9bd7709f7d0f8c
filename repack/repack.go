package repack

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/state"
)

// Settings configure Run. A nil *Settings means all defaults; every zero
// field means its documented default.
type Settings struct {
	// Packings is the most packings tried per level and round (each for one
	// candidate, the largest saving first). Candidates that fit the
	// level's free space as it is, or that the max-live screen rules out,
	// need no packing and do not count; every candidate is tried at most
	// once. Default (0): DefaultPackings. Negative: none (Run returns the
	// layout as it is).
	Packings int
	// NodeLimit is the branch-and-bound budget of one packing
	// (pack.Options.NodeLimit): a packing not found within it counts as
	// failed. Default (0): DefaultNodeLimit.
	NodeLimit int64
	// MaxBuffers bounds the size of a packing: a level with more packing
	// buffers than this is not packed, only inserted into (a packing
	// costs at least linear time in the level's buffers, and long
	// programs have tens of thousands). Default (0): DefaultMaxBuffers.
	MaxBuffers int
	// MaxVisits bounds the work of insertions in one level: each
	// insertion visits the buffers alive with its candidate, and once a
	// level's insertions have visited this many, no more are tried there
	// (the candidates come largest saving first, so the cut drops the
	// least). It keeps a long program's repacking near linear: it can have
	// a hundred thousand candidates with thousands of buffers alive over
	// each. Default (0): DefaultMaxVisits.
	MaxVisits int64
	// Rounds is the most rounds over the levels, each fastest first; a
	// round begins only if the one before lowered the cost (a detour or
	// an exchange in a slower level can leave room in a faster one that
	// its round is past), and only one is made for a program of more than
	// roundsWork blocks times timesteps. Default (0): DefaultRounds.
	Rounds int
	// CostModel prices layouts. Default (nil): costmodel.Seed003.
	CostModel costmodel.Model
	// Workers is the number of goroutines that look for the free space of
	// upcoming candidates while the caller goes down the list (see
	// prober). The result does not depend on it. Default (0 or 1): the
	// caller alone.
	Workers int
	// Check verifies the layout after every level that changed: every
	// timestep's occupancy is rebuilt from it (no overlaps), and the
	// running cost is compared with a full recomputation. It panics on a
	// broken invariant. Slow; for tests and debugging.
	Check bool
}

// Defaults of Settings.
const (
	DefaultPackings   = 16
	DefaultNodeLimit  = 2000
	DefaultMaxBuffers = 1024
	DefaultMaxVisits  = 1 << 24
	// DefaultRounds: on the 82 seed-model pairs a second round made 24
	// plans cheaper (mean above the bound 0.33% -> 0.32%; up to 0.15%
	// less, mobilenet_v2-int8 on the CPU copy), four rounds 8 of them
	// cheaper still, by 0.05% on average (0.10% at most).
	DefaultRounds = 2
)

// roundsWork is the most blocks times timesteps of a program that gets
// more than one round: a round repeats every exchange, group exchange and
// detour tried in the one before. On the generated 1,000-op program on
// the H100 copy (1,985 blocks) a second round made repacking 1.2 s
// instead of 0.4 s for 0.16% less; the largest shipped network, resnet50
// (459 blocks x 174 timesteps), is well below.
const roundsWork = 200_000

func (s *Settings) withDefaults() Settings {
	var c Settings
	if s != nil {
		c = *s
	}
	if c.Packings == 0 {
		c.Packings = DefaultPackings
	}
	if c.NodeLimit <= 0 {
		c.NodeLimit = DefaultNodeLimit
	}
	if c.MaxVisits <= 0 {
		c.MaxVisits = DefaultMaxVisits
	}
	if c.Rounds <= 0 {
		c.Rounds = DefaultRounds
	}
	if c.MaxBuffers <= 0 {
		c.MaxBuffers = DefaultMaxBuffers
	}
	if c.CostModel == nil {
		c.CostModel = costmodel.Seed003{}
	}
	return c
}

// Stats count what Run did, over all levels.
type Stats struct {
	Candidates int   // candidates considered (each saves something)
	Screened   int   // ruled out by the max-live screen, without packing
	Packings   int   // packings tried (pack.Solve calls)
	Unpacked   int   // levels not packed: more buffers than Settings.MaxBuffers
	Visits     int64 // buffers visited by insertions
	Cut        int   // levels where insertions stopped at Settings.MaxVisits
	Promoted   int   // candidates accepted
	Inserted   int   // of those, put into free space without repacking
	Exchanged  int   // blocks sent to a slower level to make room for one (see exchange)
	Detoured   int   // of the candidates accepted, those put into a level around a stretch in a faster one (see detour)
	Merged     int   // transfers dropped: a block's consecutive segments in a level ended at the same offset
	Nodes      int64 // branch-and-bound nodes over all packings
	Time       time.Duration
}

// Result is the outcome of Run.
type Result struct {
	// Layout is the repacked layout: complete and valid, never costlier
	// than the input. It is a new layout; the input is not changed.
	Layout    *state.Layout
	InputCost float64 // the input layout's cost
	Cost      float64 // Layout's cost, recomputed in full
	Stats     Stats
	// Stopped is true when the context ended the work early; Layout is
	// then what was accepted until then (valid, never costlier).
	Stopped bool
}

// Run repacks lay level by level, fastest first (see the package
// documentation). lay must be a complete, valid layout of p. The error is
// only for an incomplete layout.
func Run(ctx context.Context, p *state.Problem, lay *state.Layout, s *Settings) (*Result, error) {
	start := time.Now()
	if err := lay.CheckComplete(p); err != nil {
		return nil, fmt.Errorf("repack: %w", err)
	}
	cfg := s.withDefaults()
	r := &repacker{p: p, cfg: cfg, model: cfg.CostModel, lay: lay.Clone()}
	if _, sep := r.model.(costmodel.Separable); sep {
		r.cost = costmodel.Total(r.model, p, r.lay)
	} else {
		r.pr = r.model.Price(p, r.lay)
		r.cost = r.pr.Cost()
	}
	res := &Result{InputCost: r.cost}
	most := cfg.Rounds
	if p.Blocks()*p.Prog.Timesteps() > roundsWork {
		most = 1
	}
	if cfg.Packings > 0 {
	rounds:
		for range most {
			was := r.cost
			for l := 0; l < p.Levels(); l++ {
				before := r.stats.Promoted
				ok := r.level(ctx, l)
				if r.cfg.Check && r.stats.Promoted > before {
					r.check()
				}
				if !ok {
					res.Stopped = true
					break rounds
				}
			}
			if !(r.cost < was) {
				break
			}
		}
	}
	res.Layout = r.lay
	res.Cost = costmodel.Total(r.model, p, r.lay)
	if res.Cost > res.InputCost {
		// Each accepted change lowered the cost by a block's saving; a sum
		// in another order cannot undo that by more than rounding. Never
		// hand back a costlier layout all the same.
		res.Layout, res.Cost = lay.Clone(), res.InputCost
	}
	res.Stats = r.stats
	res.Stats.Time = time.Since(start)
	return res, nil
}

// repacker is one Run in progress.
type repacker struct {
	p     *state.Problem
	cfg   Settings
	model costmodel.Model
	lay   *state.Layout // the current layout (owned)
	cost  float64       // its cost, kept up to date
	// pr prices lay under a model that is not Separable (nil under one):
	// its Reprice gives a change's exact cost, and it is derived again
	// after every accepted change.
	pr      costmodel.Pricer
	scratch sync.Pool // *costmodel.Scratch for Reprice, one per probe at a time
	stats   Stats
	busy    []state.Gap // probe's scratch on the caller's goroutine
}

// reprice returns the cost of the current layout with the blocks of ch
// given their New segments, under a model that is not Separable.
func (r *repacker) reprice(ch []costmodel.BlockChange) float64 {
	sc, _ := r.scratch.Get().(*costmodel.Scratch)
	if sc == nil {
		sc = new(costmodel.Scratch)
	}
	c := r.pr.Reprice(ch, sc)
	r.scratch.Put(sc)
	return c
}

// changed records that the blocks of ch took their New segments in
// r.lay: under a model that is not Separable the pricer is derived for
// the new layout, and the running cost is its cost.
func (r *repacker) changed(ch []costmodel.BlockChange) {
	if r.pr == nil {
		return
	}
	r.pr = r.pr.Derive(r.lay, ch)
	r.cost = r.pr.Cost()
}

// candidate is one run of a block's segments, [i, j], to become a single
// segment in the level being packed, from timestep from to timestep to
// (inclusive), and what that saves.
type candidate struct {
	b        int
	i, j     int
	from, to int
	saving   float64
	// split, if not 0, makes the candidate a head: the block (placed once,
	// in a slower level) goes into l for [from, to] only and back to its
	// segment's level and offset at timestep split = to+1, by a transfer
	// (see splits).
	split int32
}

type candKey struct{ b, from, to int }

// level repacks level l. It reports false if ctx ended the work.
func (r *repacker) level(ctx context.Context, l int) bool {
	// Each candidate is packed at most once (l only gets fuller), and
	// inserted at most once per packing of l (a packing moves the free
	// space, an insertion only takes some).
	noInsert, noPack, seen := map[candKey]bool{}, map[candKey]bool{}, map[candKey]bool{}
	// A candidate without room at some timestep never gets any: l only
	// gets fuller.
	screened := map[candKey]bool{}
	exchanging, exchanged, grouped := false, map[candKey]bool{}, false
	detoured := map[candKey]bool{}
	packings := 0
	tooLarge := false
	var visits int64 // by insertions in l
	defer func() {
		r.stats.Visits += visits
		if visits >= r.cfg.MaxVisits {
			r.stats.Cut++
		}
	}()
	for {
		ls := r.levelState(l)
		accepted := false
		// Blocks whose segments changed in this pass: their other
		// candidates wait for the next pass, which recomputes them.
		touched := map[int]bool{}
		cands := r.candidates(l)
		// What the caller would do next, as the loop below decides it,
		// with the state as it is: whether candidate i gets an insertion.
		inserts := func(i int) bool {
			c := cands[i]
			k := candKey{c.b, c.from, c.to}
			return !touched[c.b] && !screened[k] && !noInsert[k] && visits < r.cfg.MaxVisits &&
				(r.runInLevel(l, c) || ls.room(c.from, c.to, r.p.Foot(c.b, l)))
		}
		pr := r.newProber(l, cands, ls, inserts)
		for i, c := range cands {
			if ctx.Err() != nil {
				return false
			}
			k := candKey{c.b, c.from, c.to}
			if exchanging && screened[k] && !exchanged[k] && !touched[c.b] && len(exchanged) < r.cfg.Packings && packings < r.cfg.Packings && len(ls.its) <= r.cfg.MaxBuffers {
				// Room may be made: blocks of l sent down (exchange.go).
				// At most Packings tries per level, packed or not (a try
				// scans the level: long programs have thousands of
				// screened candidates).
				exchanged[k] = true
				before := r.stats.Packings
				done := r.exchange(ctx, l, c, ls.its)
				packings += r.stats.Packings - before
				if done {
					clear(noInsert)
					accepted = true
					break // l changed: recompute
				}
				continue
			}
			if touched[c.b] || screened[k] || noInsert[k] && noPack[k] {
				continue
			}
			if !seen[k] {
				seen[k] = true
				r.stats.Candidates++
			}
			o := others{ls: ls}
			inLevel := r.runInLevel(l, c)
			if inLevel {
				o = pr.others(i)
			} else if !ls.room(c.from, c.to, r.p.Foot(c.b, l)) {
				// No room at some timestep of the run, however l is
				// packed: neither insertion nor a packing can take it. (The
				// cheap test, before insertion scans l's buffers.)
				screened[k] = true
				r.stats.Screened++
				continue
			}
			if !noInsert[k] && visits < r.cfg.MaxVisits {
				noInsert[k] = true
				ins := pr.insertion(i, o)
				visits += ins.visits
				if ins.segs != nil {
					r.accept(c, ins)
					pr.reset() // l changed: what was probed is stale
					accepted = true
					touched[c.b] = true
					if inLevel {
						break // l's buffers changed: recompute them
					}
					// Only c's block changed, and Separable models price
					// blocks independently: the other candidates' savings
					// stand (under the timeline model they only order the
					// work; each is re-priced when probed).
					// The pass goes on with c's run as one more buffer.
					r.add(ls, l, c)
					continue
				}
			}
			if noPack[k] || packings >= r.cfg.Packings {
				continue
			}
			// l's buffers without the run, as a packing needs them: rebuilt
			// when the run is in l (o's are grouped for probing only, and
			// ls may hold items added since it was built, which a rebuild
			// may chain: an added item joins at most two), unless there are
			// too many however they chain.
			its, tooMany := ls.its, false
			if inLevel {
				if len(ls.its)-len(o.skip)+len(o.extra)-2*ls.added > r.cfg.MaxBuffers {
					tooMany = true
				} else {
					its = r.items(l, c)
				}
			}
			if tooMany || len(its) > r.cfg.MaxBuffers {
				if !tooLarge {
					tooLarge = true // l only gets fuller
					r.stats.Unpacked++
				}
				continue
			}
			noPack[k] = true
			if !r.screen(l, c, ls, its) {
				r.stats.Screened++
				continue
			}
			packings++
			if r.try(ctx, l, c, its) {
				clear(noInsert)
				accepted = true
				break // every offset in l may have moved: recompute
			}
		}
		if !accepted && exchanging && !grouped && r.pr == nil && packings < r.cfg.Packings && len(ls.its) <= r.cfg.MaxBuffers {
			// Last, many screened candidates at once (exchange.go), the
			// densest first, else the smallest first. The second order
			// made 36 of the 82 seed-model pairs' plans cheaper, none
			// costlier: mean above the bound 0.31% -> 0.28%,
			// mobilenet_v2-int8 on the H100 copy 1.02% -> 0.13%,
			// resnet50-int8 on the Ethos-U65 copy 0.55% -> 0.05%.
			grouped = true
			before := r.stats.Packings
			accepted = r.groupExchange(ctx, l, cands, ls, false)
			if !accepted && packings+r.stats.Packings-before < r.cfg.Packings {
				accepted = r.groupExchange(ctx, l, cands, ls, true)
			}
			packings += r.stats.Packings - before
		}
		if !accepted && exchanging && r.pr == nil && len(ls.its) <= r.cfg.MaxBuffers {
			// Last, the candidates around the timesteps l is full at, by
			// a detour through a faster level (detour.go).
			accepted = r.detours(ctx, l, cands, detoured)
		}
		if !accepted {
			if exchanging || r.pr != nil {
				return true
			}
			// Converged: now the screened candidates, by exchange, each
			// change lowering the cost of what the passes left (so the
			// level ends no costlier than without exchanges).
			exchanging = true
		}
	}
}

// segEnd returns the last timestep at which segment i of block b
// occupies its range (state.OccEnd: the timestep before the next
// segment's, else the block's last, or the program's last for a resident
// constant).
func (r *repacker) segEnd(b, i int) int {
	return state.OccEnd(r.p, b, r.lay.Segs[b], i)
}

// runSeg returns the segment that replaces the run [i, j] of block b's
// segments segs in level l at offset off: from segs[i].From, with
// segs[i]'s copy start (a transfer's lead stays valid: the same source
// segment, the same timestep, the same writes before it; a load or a
// resident constant stays one), except that a first segment in the
// block's home level has none (no load).
func (r *repacker) runSeg(b int, segs []state.Seg, i, l int, off int64) state.Seg {
	s := state.Seg{From: segs[i].From, Level: int32(l), Offset: off, Lead: segs[i].Lead}
	if i == 0 && l == r.p.Home(b) {
		s.Lead = 0
	}
	return s
}

// candidates returns the candidates for level l, largest saving first,
// ties by block ID and the run's start.
func (r *repacker) candidates(l int) []candidate {
	var out []candidate
	var trial []state.Seg
	for b := range r.lay.Segs {
		if !r.p.Allowed(b, l) {
			continue
		}
		segs := r.lay.Segs[b]
		for i := 0; i < len(segs); {
			if int(segs[i].Level) < l {
				i++
				continue
			}
			// The maximal run [i, j] of segments in l or slower.
			j := i
			slower := int(segs[i].Level) > l
			for j+1 < len(segs) && int(segs[j+1].Level) >= l {
				j++
				slower = slower || int(segs[j].Level) > l
			}
			next := j + 1
			// A run brought into l from before it is a copy into l: never
			// into a read-only level (only a constant's free first
			// placement under the seed model may be there).
			copied := i > 0 || r.p.Timeline() && l != r.p.Home(b)
			if (slower || j > i) && (r.p.CopyInto(l) || !copied) {
				seg := r.runSeg(b, segs, i, l, 0)
				c := candidate{b: b, i: i, j: j, from: int(seg.OccStart()), to: r.segEnd(b, j)}
				trial = replaceRun(trial[:0], segs, i, j, seg)
				if r.pr == nil {
					c.saving = r.model.BlockCost(r.p, b, segs) - r.model.BlockCost(r.p, b, trial)
				} else {
					c.saving = r.cost - r.reprice([]costmodel.BlockChange{{Block: b, Old: segs, New: trial}})
				}
				if c.saving > 0 {
					out = append(out, c)
				}
			}
			i = next
		}
	}
	out = append(out, r.splits(l)...)
	slices.SortStableFunc(out, func(x, y candidate) int {
		if c := cmp.Compare(y.saving, x.saving); c != 0 {
			return c
		}
		if c := cmp.Compare(x.b, y.b); c != 0 {
			return c
		}
		if c := cmp.Compare(x.from, y.from); c != 0 {
			return c
		}
		return cmp.Compare(x.to, y.to)
	})
	return out
}

// splits returns the split candidates for level l (seed model only): a
// block placed once, for its whole life, in a slower level it may be
// copied into, may go into l from its first timestep to one of its
// accesses and back down after it by a transfer, when that saves: a
// residual connection's activation, written and read at once and read
// again ten ops later, is cheaper written and first read in SRAM and sent
// to flash for the wait (the optimum of resnet50-fp32 on the Ethos-U55
// copy does this for five of them) than kept in flash, and SRAM has no
// room for it over the wait.
func (r *repacker) splits(l int) []candidate {
	p := r.p
	if r.pr != nil {
		return nil
	}
	var out []candidate
	for b, segs := range r.lay.Segs {
		if len(segs) != 1 || int(segs[0].Level) <= l || !p.Allowed(b, l) || !p.CopyInto(int(segs[0].Level)) || segs[0].IsResident() {
			continue
		}
		blk := p.Block(b)
		var ats []int
		ats = append(ats, blk.Reads...)
		ats = append(ats, blk.Writes...)
		slices.Sort(ats)
		ats = slices.Compact(ats)
		for _, k := range ats {
			if k < blk.First || k >= blk.Last {
				continue
			}
			c := candidate{b: b, i: 0, j: 0, from: int(segs[0].OccStart()), to: k, split: int32(k + 1)}
			c.saving = r.model.BlockCost(p, b, segs) - r.model.BlockCost(p, b, r.promoted(c, segs, l, 0))
			if c.saving > 0 {
				out = append(out, c)
			}
		}
	}
	return out
}

// promoted returns block c.b's segments segs with the candidate's run in
// level l at offset off (and, for a split candidate, its tail after).
func (r *repacker) promoted(c candidate, segs []state.Seg, l int, off int64) []state.Seg {
	out := replaceRun(nil, segs, c.i, c.j, r.runSeg(c.b, segs, c.i, l, off))
	if c.split != 0 {
		tail := state.Seg{From: c.split, Level: segs[c.i].Level, Offset: segs[c.i].Offset}
		out = slices.Insert(out, c.i+1, tail)
	}
	return out
}

// replaceRun appends to dst the segments of segs with the run [i, j]
// replaced by s, and returns it.
func replaceRun(dst, segs []state.Seg, i, j int, s state.Seg) []state.Seg {
	dst = append(dst, segs[:i]...)
	dst = append(dst, s)
	return append(dst, segs[j+1:]...)
}

// item is one packing buffer: segments of level l that must share an
// offset (one segment, or an in-place chain), alive on timesteps
// [from, to], size bytes, at a multiple of align; off is where they are
// in the layout the item was made from (insertions read it for every
// buffer alive with their candidate: a copy here saves two dependent
// loads each, a third of insertion's time on long programs).
type item struct {
	refs     []ref
	from, to int
	size     int64
	align    int64
	off      int64
}

// ref names a segment: segment i of block b.
type ref struct{ b, i int }

// startKey finds a block by where its first segment starts.
type startKey struct {
	t   int32
	off int64
}

// items returns the packing buffers of level l, leaving out the segments
// of the candidate's run (all of them with c.b = -1), in the order of their
// first segment (block ID, then segment).
//
// Two blocks that share space by reuse (a's last segment ends at t, b's
// first starts at t at the same offset, the kind rule allows it) and have
// the same footprint in l make one buffer over both lifetimes, and so do
// longer chains: packed at one offset, the blocks keep their in-place
// reuse, and the buffer takes exactly the space they took. Pairs of
// different footprints stay two buffers, which the packer keeps apart
// (conservative, always valid).
func (r *repacker) items(l int, c candidate) []item {
	inRun := func(b, i int) bool { return b == c.b && i >= c.i && i <= c.j }
	var refs []ref
	for b, segs := range r.lay.Segs {
		for i, s := range segs {
			if int(s.Level) == l && !inRun(b, i) {
				refs = append(refs, ref{b, i})
			}
		}
	}
	return r.chain(l, refs)
}

// chain returns the packing buffers of the segments refs (in level l, in
// block and segment order): one per segment, but the segments of a reuse
// chain share one.
func (r *repacker) chain(l int, refs []ref) []item {
	p := r.p
	first := map[int]int{}       // block -> index in refs of its first segment, if in l
	starts := map[startKey]int{} // (start, offset) of first segments in l -> block
	for k, rf := range refs {
		if s := r.lay.Segs[rf.b][rf.i]; rf.i == 0 && s.OccStart() == s.From {
			// (A first segment occupied before its From, a load's or a
			// resident's, takes over no space.)
			first[rf.b] = k
			starts[startKey{s.From, s.Offset}] = rf.b
		}
	}
	// Union the segments of reuse chains.
	parent := make([]int, len(refs))
	for k := range parent {
		parent[k] = k
	}
	find := func(k int) int {
		for parent[k] != k {
			parent[k] = parent[parent[k]]
			k = parent[k]
		}
		return k
	}
	for k, rf := range refs {
		segs := r.lay.Segs[rf.b]
		if rf.i != len(segs)-1 {
			continue
		}
		end := p.Block(rf.b).Last
		nb, ok := starts[startKey{int32(end), segs[rf.i].Offset}]
		if !ok || nb == rf.b || p.Foot(nb, l) != p.Foot(rf.b, l) || !state.ReusePair(p, rf.b, nb, end) {
			continue
		}
		x, y := find(k), find(first[nb])
		parent[max(x, y)] = min(x, y) // the root is the chain's first segment
	}
	var out []item
	at := make([]int, len(refs)) // root -> index in out
	for k, rf := range refs {
		from, to := int(r.lay.Segs[rf.b][rf.i].OccStart()), r.segEnd(rf.b, rf.i)
		root := find(k)
		if root == k {
			at[k] = len(out)
			out = append(out, item{from: from, to: to, size: p.Foot(rf.b, l), align: p.Align(rf.b, l), off: r.lay.Segs[rf.b][rf.i].Offset})
		}
		it := &out[at[root]]
		it.refs = append(it.refs, rf)
		it.from, it.to = min(it.from, from), max(it.to, to)
		it.align = lcm(it.align, p.Align(rf.b, l))
	}
	return out
}

func lcm(a, b int64) int64 {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

// levelState is level l's packing buffers in the current layout, and the
// bytes they keep live at each timestep; it is rebuilt after a packing.
type levelState struct {
	its   []item
	index *spanIndex // its by lifetime
	byOff []int32    // its by offset
	live  *liveTree  // bytes live per timestep
	cap   int64      // l's capacity
	// byBlock lists, per block, the items that hold its segments: a
	// candidate partly in l is probed without the items of its run (see
	// runItems), not on l's buffers rebuilt without it.
	byBlock map[int][]int32
	added   int // items added (add) since the state was built
}

func (r *repacker) levelState(l int) *levelState {
	its := r.items(l, candidate{b: -1})
	T := r.p.Prog.Timesteps()
	d := make([]int64, T+1)
	for _, it := range its {
		d[it.from] += it.size
		d[it.to+1] -= it.size
	}
	live := make([]int64, T)
	var cur int64
	for t := 0; t < T; t++ {
		cur += d[t]
		live[t] = cur
	}
	ls := &levelState{its: its, index: newSpanIndex(its), live: newLiveTree(live), cap: r.p.HW.Levels[l].Capacity}
	ls.byOff = make([]int32, len(its))
	for k := range ls.byOff {
		ls.byOff[k] = int32(k)
	}
	slices.SortStableFunc(ls.byOff, func(x, y int32) int { return cmp.Compare(its[x].off, its[y].off) })
	ls.byBlock = map[int][]int32{}
	for k := range its {
		for x, rf := range its[k].refs {
			if x == 0 || rf.b != its[k].refs[x-1].b {
				ls.byBlock[rf.b] = append(ls.byBlock[rf.b], int32(k))
			}
		}
	}
	return ls
}

// others is what a probe knows of level l's buffers other than a
// candidate's run: the items of the level state ls but those listed in
// skip, and extra.
type others struct {
	ls    *levelState
	skip  []int32
	extra []item
}

// without returns l's buffers other than candidate c's run (partly in l):
// ls's items but those that hold segments of the run, and the segments of
// the run's reuse chains that are not the run's, chained as items chains
// them. (For a probe only the bytes they keep busy matter, and those are
// the same however they are grouped; the grouping counts in the visits.)
func (r *repacker) without(ls *levelState, l int, c candidate) others {
	o := others{ls: ls}
	var rest []ref
	for _, k := range ls.byBlock[c.b] {
		refs := ls.its[k].refs
		if !slices.ContainsFunc(refs, func(rf ref) bool { return rf.b == c.b && rf.i >= c.i && rf.i <= c.j }) {
			continue
		}
		o.skip = append(o.skip, k)
		for _, rf := range refs {
			if rf.b != c.b || rf.i < c.i || rf.i > c.j {
				rest = append(rest, rf)
			}
		}
	}
	if len(rest) > 0 {
		slices.SortFunc(rest, func(x, y ref) int { return cmp.Or(cmp.Compare(x.b, y.b), cmp.Compare(x.i, y.i)) })
		o.extra = r.chain(l, rest)
	}
	if r.cfg.Check {
		var seen []item
		for k, it := range ls.its {
			if !slices.Contains(o.skip, int32(k)) {
				seen = append(seen, it)
			}
		}
		if !slices.Equal(r.spans(append(seen, o.extra...)), r.spans(r.items(l, c))) {
			panic(fmt.Sprintf("repack: level %d without block %d's segments %d-%d keeps other bytes busy than its buffers rebuilt without them", l, c.b, c.i, c.j))
		}
	}
	return o
}

// span is the bytes [off, off+size) of a level kept busy over timesteps
// [from, to].
type span struct {
	from, to  int
	off, size int64
}

// spans returns, sorted, the spans the buffers its keep busy, one per
// segment (however they are grouped into reuse chains).
func (r *repacker) spans(its []item) []span {
	var out []span
	for _, it := range its {
		for _, rf := range it.refs {
			s := r.lay.Segs[rf.b][rf.i]
			out = append(out, span{int(s.OccStart()), r.segEnd(rf.b, rf.i), s.Offset, it.size})
		}
	}
	slices.SortFunc(out, func(x, y span) int {
		return cmp.Or(cmp.Compare(x.from, y.from), cmp.Compare(x.to, y.to), cmp.Compare(x.off, y.off), cmp.Compare(x.size, y.size))
	})
	return out
}

// over reports whether l's buffers keep more than its capacity live at
// some timestep (in-place pairs of different footprints count twice).
func (ls *levelState) over(T int) bool { return T > 0 && ls.live.most(0, T-1) > ls.cap }

// add records that candidate c (a run from slower levels) was inserted
// into l: one more buffer, alive on c's run.
func (r *repacker) add(ls *levelState, l int, c candidate) {
	p := r.p
	if shift := c.j - c.i; shift > 0 {
		// The run's segments became one: the block's later segments
		// (in l after a faster level's, if any) moved down the list.
		for _, k := range ls.byBlock[c.b] {
			for x, rf := range ls.its[k].refs {
				if rf.b == c.b && rf.i > c.j {
					ls.its[k].refs[x].i -= shift
				}
			}
		}
	}
	it := item{refs: []ref{{c.b, c.i}}, from: c.from, to: c.to, size: p.Foot(c.b, l), align: p.Align(c.b, l), off: r.lay.Segs[c.b][c.i].Offset}
	ls.its = append(ls.its, it)
	k := int32(len(ls.its) - 1)
	ls.byBlock[c.b] = append(ls.byBlock[c.b], k)
	ls.added++
	off := ls.its[k].off
	i, _ := slices.BinarySearchFunc(ls.byOff, off, func(x int32, o int64) int { return cmp.Compare(ls.its[x].off, o) })
	ls.byOff = slices.Insert(ls.byOff, i, k)
	ls.live.add(it.from, it.to, it.size)
	ls.index.add(k, it.from, it.to)
	if len(ls.index.extra) > 64 {
		ls.index = newSpanIndex(ls.its)
	}
}

// room reports whether f more bytes fit l's capacity at every timestep of
// [from, to] beside the bytes l's buffers keep live there.
func (ls *levelState) room(from, to int, f int64) bool {
	return ls.live.most(from, to)+f <= ls.cap
}

// runInLevel reports whether some segment of the candidate's run is in l.
func (r *repacker) runInLevel(l int, c candidate) bool {
	for _, s := range r.lay.Segs[c.b][c.i : c.j+1] {
		if int(s.Level) == l {
			return true
		}
	}
	return false
}

// screen is the max-live test: with the candidate's run as one buffer in
// l, the bytes of l's buffers live at every timestep fit l's capacity. its
// are l's buffers without the candidate's run.
func (r *repacker) screen(l int, c candidate, ls *levelState, its []item) bool {
	capacity := r.p.HW.Levels[l].Capacity
	f := r.p.Foot(c.b, l)
	if !r.runInLevel(l, c) {
		// The common case: a block from slower levels joins l's buffers.
		return !ls.over(r.p.Prog.Timesteps()) && ls.room(c.from, c.to, f)
	}
	T := r.p.Prog.Timesteps()
	d := make([]int64, T+1)
	for _, it := range its {
		d[it.from] += it.size
		d[it.to+1] -= it.size
	}
	d[c.from] += f
	d[c.to+1] -= f
	var live int64
	for t := 0; t < T; t++ {
		live += d[t]
		if live > capacity {
			return false
		}
	}
	return true
}

// prober answers the pass of level l over its candidates with what
// probe finds for them (and, for a candidate whose run is partly in l
// already, l's buffers without it), and with more than one worker it
// probes ahead: when the pass reaches a candidate not probed yet, the
// next few that the pass would insert, as the state is, are probed at
// once on the workers. The pass takes the answers in its own order and
// resets the prober whenever it changes l (an insertion accepted), so
// every answer it uses is what probing then and there would give: the
// result does not depend on the number of workers. Most candidates find
// no room (3,200 probes and 38 insertions on the searched plan of the
// generated 4,000-op program), so little of what is probed ahead is
// thrown away: batches start small after an insertion and double while
// none comes, up to 64 per worker (larger batches waste more, smaller
// ones wait more on waking the workers). On the generated 10,000-op
// program repacking takes 0.25 s on one core and 0.13 s on two.
type prober struct {
	r       *repacker
	l       int
	cands   []candidate
	ls      *levelState
	inserts func(i int) bool // whether the pass, as things are, will probe candidate i
	gen     int              // bumped by reset
	size    int              // candidates per batch: small after a reset, doubling up to aheadPerWorker per worker
	done    []probed
	scratch [][]state.Gap // per worker but the caller (which has r.busy)
}

// probed is what the prober knows of one candidate.
type probed struct {
	gen int // the prober's generation it belongs to (0: none)
	o   others
	ins insertion
}

// aheadPerWorker is how many candidates each worker probes per batch.
const aheadPerWorker = 64

func (r *repacker) newProber(l int, cands []candidate, ls *levelState, inserts func(int) bool) *prober {
	pr := &prober{r: r, l: l, cands: cands, ls: ls, inserts: inserts, gen: 1, size: 2 * r.cfg.Workers}
	if r.cfg.Workers > 1 {
		pr.done = make([]probed, len(cands))
		pr.scratch = make([][]state.Gap, r.cfg.Workers-1)
	}
	return pr
}

// reset forgets what was probed: l changed.
func (pr *prober) reset() {
	pr.gen++
	pr.size = 2 * pr.r.cfg.Workers
}

// others returns l's buffers without candidate i's run (which is partly
// in l).
func (pr *prober) others(i int) others {
	if pr.done == nil {
		return pr.r.without(pr.ls, pr.l, pr.cands[i])
	}
	pr.ahead(i)
	return pr.done[i].o
}

// insertion returns what probe finds for candidate i; o is what the pass
// has for it (l's buffers other than its run).
func (pr *prober) insertion(i int, o others) insertion {
	if pr.done == nil {
		return pr.r.probe(pr.l, pr.cands[i], o, &pr.r.busy)
	}
	pr.ahead(i)
	return pr.done[i].ins
}

// ahead makes sure candidate i is probed: if it is not, it and the next
// candidates the pass would probe are, on the workers.
func (pr *prober) ahead(i int) {
	if pr.done[i].gen == pr.gen {
		return
	}
	batch := []int{i}
	for j := i + 1; j < len(pr.cands) && len(batch) < pr.size; j++ {
		if pr.inserts(j) {
			batch = append(batch, j)
		}
	}
	var next atomic.Int64
	work := func(scratch *[]state.Gap) {
		for n := int(next.Add(1)) - 1; n < len(batch); n = int(next.Add(1)) - 1 {
			pr.probeOne(batch[n], scratch)
		}
	}
	var wg sync.WaitGroup
	for w := range min(len(pr.scratch), len(batch)-1) {
		wg.Go(func() { work(&pr.scratch[w]) })
	}
	work(&pr.r.busy)
	wg.Wait()
	pr.size = min(2*pr.size, aheadPerWorker*pr.r.cfg.Workers)
}

// probeOne probes candidate j as the pass would, for the current
// generation.
func (pr *prober) probeOne(j int, scratch *[]state.Gap) {
	r, c := pr.r, pr.cands[j]
	d := probed{gen: pr.gen, o: others{ls: pr.ls}}
	if r.runInLevel(pr.l, c) {
		d.o = r.without(pr.ls, pr.l, c)
	}
	d.ins = r.probe(pr.l, c, d.o, scratch)
	pr.done[j] = d
}

// insertion is the outcome of looking for free space for a candidate in
// level l as it is packed now (see probe).
type insertion struct {
	visits int64       // buffers looked at
	segs   []state.Seg // the block's segments with the run moved; nil: no room, or no saving
	delta  float64     // the change of the cost
}

// probe looks for the lowest offset of level l, as it is packed now, where
// the candidate's run overlaps no buffer alive with it, and prices the
// block there. It only reads: the caller accepts the insertion (accept),
// and probes of other candidates may run at the same time on other
// goroutines, each with its own scratch slice. o is l's buffers other than
// the candidate's run.
func (r *repacker) probe(l int, c candidate, o others, scratch *[]state.Gap) insertion {
	p := r.p
	f, a := p.Foot(c.b, l), p.Align(c.b, l)
	busy := (*scratch)[:0]
	defer func() { *scratch = busy[:0] }() // reused: insertions are many
	add := func(it *item) {
		busy = append(busy, state.Gap{Off: it.off, End: it.off + it.size})
	}
	ls, its, skip := o.ls, o.ls.its, o.skip
	ls.index.each(c.from, c.to, func(k int32) {
		if !slices.Contains(skip, k) {
			add(&its[k])
		}
	})
	for k := range o.extra {
		if it := &o.extra[k]; it.to >= c.from && it.from <= c.to {
			add(it)
		}
	}
	ins := insertion{visits: int64(len(busy))}
	var off int64
	if k := len(busy); len(o.extra) == 0 && k > 64 && k*bits.Len(uint(k)) > len(its) {
		// Many buffers alive with the candidate (it lives long): a scan of
		// all of l's buffers in address order, skipping those not alive
		// with it and stopping at the first gap that fits, beats sorting
		// them.
		for _, k := range ls.byOff {
			it := &its[k]
			if it.to < c.from || it.from > c.to || slices.Contains(skip, k) {
				continue
			}
			if off+f <= it.off {
				break
			}
			off = max(off, state.AlignUp(it.off+it.size, a))
		}
	} else {
		// Gaps at one offset may come in any order: the scan below ends
		// past all of them whatever the order.
		slices.SortFunc(busy, func(x, y state.Gap) int { return cmp.Compare(x.Off, y.Off) })
		for _, g := range busy {
			if off+f <= g.Off {
				break
			}
			off = max(off, state.AlignUp(g.End, a))
		}
	}
	if off+f > p.HW.Levels[l].Capacity {
		return ins
	}
	old := r.lay.Segs[c.b]
	segs := r.promoted(c, old, l, off)
	var delta float64
	if r.pr == nil {
		delta = r.model.BlockCost(p, c.b, segs) - r.model.BlockCost(p, c.b, old)
	} else {
		delta = r.reprice([]costmodel.BlockChange{{Block: c.b, Old: old, New: segs}}) - r.cost
	}
	if delta < 0 {
		ins.segs, ins.delta = segs, delta
	}
	return ins
}

// accept puts the candidate's run where probe found room for it: the
// packer is not needed, and nothing else moves.
func (r *repacker) accept(c candidate, ins insertion) {
	old := r.lay.Segs[c.b]
	r.lay.Segs[c.b] = ins.segs
	r.cost += ins.delta
	r.changed([]costmodel.BlockChange{{Block: c.b, Old: old, New: ins.segs}})
	r.stats.Promoted++
	r.stats.Inserted++
}

// try packs level l with the candidate and accepts the result if it
// packs and lowers the cost (swapIn with nothing sent down). It reports
// whether it accepted.
func (r *repacker) try(ctx context.Context, l int, c candidate, its []item) bool {
	return r.swapIn(ctx, l, []candidate{c}, nil, its)
}

// mergeSame drops every segment that does not move its block (the same
// level and offset as the one before it) and reports how many it dropped.
func mergeSame(segs []state.Seg) ([]state.Seg, int) {
	out := segs[:1]
	for _, s := range segs[1:] {
		if s.Pos() == out[len(out)-1].Pos() {
			continue
		}
		out = append(out, s)
	}
	return out, len(segs) - len(out)
}

// check verifies the current layout: complete, no two blocks overlapping
// at any timestep (other than by reuse), within the levels, and the running
// cost right.
func (r *repacker) check() {
	if err := r.lay.CheckComplete(r.p); err != nil {
		panic(fmt.Sprintf("repack: %v", err))
	}
	for t := 0; t < r.p.Prog.Timesteps(); t++ {
		if _, err := state.OccupancyAt(r.p, r.lay, t); err != nil {
			panic(fmt.Sprintf("repack: %v", err))
		}
	}
	full := costmodel.Total(r.model, r.p, r.lay)
	if d := full - r.cost; d > 1e-6*max(1, full) || d < -1e-6*max(1, full) {
		panic(fmt.Sprintf("repack: running cost %v, recomputed %v", r.cost, full))
	}
}
