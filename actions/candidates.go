package actions

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Kind is one action of the preset action set.
type Kind uint8

// The actions of seed 003.
const (
	Move  Kind = iota // another free position in the same level
	Swap              // a free position in another level, up or down
	Reuse             // over a reusable block's space, by the kind rule
	Evict             // into a faster level, sending the constants in the way to slower levels
	// Prefetch is a swap whose copy is issued before the op at which
	// the block is in its new place: into a faster level (a prefetch) or
	// into a slower one (an asynchronous eviction). The timeline model
	// only; under the others it offers nothing.
	Prefetch
	NumKinds
)

var kindNames = [NumKinds]string{"move", "swap", "reuse", "evict", "prefetch"}

func (k Kind) String() string { return kindNames[k] }

// Set is a set of actions.
type Set [NumKinds]bool

// All is every action of the seed models: move, swap, reuse and evict,
// the search's default. Prefetch is left out so that the default (and
// the plans' planner line, which names it) stays what it was under those
// models, where prefetch offers nothing anyway; TimelineAll adds it.
var All = Set{true, true, true, true, false}

// TimelineAll is every action, prefetch included: the search's default
// under the timeline model.
var TimelineAll = Set{true, true, true, true, true}

// Seed is the preset action set of seed 003: move, swap and reuse.
var Seed = Set{true, true, true, false}

// ParseSet reads a comma-separated list of action names ("move,swap").
func ParseSet(s string) (Set, error) {
	var set Set
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		found := false
		for k, n := range kindNames {
			if f == n {
				set[k] = true
				found = true
			}
		}
		if !found {
			return set, fmt.Errorf("unknown action %q (known: %s)", f, strings.Join(kindNames[:], ", "))
		}
	}
	return set, nil
}

func (s Set) String() string {
	var names []string
	for k, on := range s {
		if on {
			names = append(names, kindNames[k])
		}
	}
	return strings.Join(names, ",")
}

// Candidate is one way an action succeeds: block Block goes to To at
// timestep At. A candidate for a block created before At is a transfer at
// At; at the block's first timestep it changes where the block is first
// put.
type Candidate struct {
	Kind  Kind
	Block int
	At    int
	From  state.Pos // where the block is at At before the action
	To    state.Pos
	// Reused is the block whose space a Reuse candidate takes over, -1 for
	// the other actions.
	Reused int
	// Evicted lists, for an Evict candidate, the blocks sent to slower
	// levels and where they go: constants for their whole life, idle
	// activations (timeline model) from At on.
	Evicted []Eviction
	// Lead is, for a Prefetch candidate, how many timesteps before At its
	// copy is issued (state.Seg.Lead); 0 for the other actions.
	Lead int32
}

// Eviction is one block an Evict candidate moves out of the way: a
// constant sent to To for its whole life, or, under the timeline model,
// an idle activation copied to To at the candidate's At (Copy).
type Eviction struct {
	Block int
	To    state.Pos
	// Copy is set for an idle activation: a transfer at At (its segments
	// before At stay), whose copy is issued Lead timesteps before At
	// (state.Seg.Lead).
	Copy bool
	Lead int32
}

// Partner returns the block that shares block b's start address at
// timestep t by reuse (see state.ReusePair), if any. Reuse pairs never
// chain: a block in a pair is never taken over again at the same timestep.
func Partner(p *state.Problem, v state.View, b, t int) (int, bool) {
	segs := v.BlockSegs(b)
	if len(segs) == 0 {
		return 0, false
	}
	pos := state.SegAt(segs, t).Pos()
	match := func(c int) bool {
		if c == b || !state.ReusePair(p, b, c, t) {
			return false
		}
		cs := v.BlockSegs(c)
		return len(cs) > 0 && state.SegAt(cs, t).Pos() == pos
	}
	// A partner that hands its space over is reusable and ends at t; one
	// that takes b's space starts at t, and then b is reusable and ends
	// at t. (Timestep 0 may create thousands of constants: look at them
	// only when b could give its space away.)
	for _, ci := range p.Dying(t) {
		if c := int(ci); p.Block(c).Reusable && match(c) {
			return c, true
		}
	}
	if blk := p.Block(b); blk.Reusable && blk.Last == t {
		for _, ci := range p.Created(t) {
			if c := int(ci); match(c) {
				return c, true
			}
		}
	}
	return 0, false
}

// Eligible reports whether an action on block b at timestep t can change
// anything: b is alive at t and either starts there (its first placement
// can change) or lives on after t (a transfer at t). A block at its last
// timestep that it did not start at is not eligible: moving it costs a
// transfer and frees nothing the plan could use, since every block of t is
// already placed and b is gone at t+1. Nor is a block that ends at t and
// shares its space with a block created at t.
func Eligible(p *state.Problem, v state.View, b, t int) bool {
	blk := p.Block(b)
	if t < blk.First || t > blk.Last || (blk.First != t && blk.Last == t) {
		return false
	}
	if segs := v.BlockSegs(b); len(segs) > 0 && segs[0].IsResident() {
		return false // the timeline model's resident constants stay put
	}
	if blk.Last == t {
		if c, ok := Partner(p, v, b, t); ok && p.Block(c).First == t {
			return false
		}
	}
	return true
}

// Detach removes block b from occ (the state of timestep t), so that
// candidate positions can be looked for as if it were not there. If b
// shares its space with a reuse partner, the partner gets its whole
// footprint back.
//
// Under the timeline model the reservations of b's later copies that
// have begun by t (a segment after t whose copy starts at or before t)
// are released too: any action at t drops those copies (View.MoveAt).
func Detach(occ *state.Occupancy, v state.View, b, t int) {
	p := occ.Problem()
	segs := v.BlockSegs(b)
	s := state.SegAt(segs, t)
	l := int(s.Level)
	if int(s.From) < t {
		occ.Vacate(b, l, s.Offset) // it was there until t-1 (the free-since log)
	} else {
		occ.Release(b, l, s.Offset)
	}
	if p.Timeline() {
		for _, r := range segs {
			if int(r.From) > t && int(r.Start()) <= t {
				occ.Release(b, int(r.Level), r.Offset)
			}
		}
	}
	if a, ok := Partner(p, v, b, t); ok {
		occ.Release(a, l, s.Offset)
		occ.Place(a, l, s.Offset)
	}
}

// MayEnter reports whether block b may be put into level l at timestep t
// without a copy into a level that cannot take one (Problem.CopyInto: a
// read-only level takes no write). Putting a block into l at t is a copy
// into l when t is after the block's first timestep (a transfer) or, under
// the timeline model, when b is a constant and l is not its home (its
// load). Under the other models a constant's first placement is free
// (FORMATS.md section 4), so a read-only level may take it then. Any
// other level may take anything Problem.Allowed lets in.
func MayEnter(p *state.Problem, b, l, t int) bool {
	if p.CopyInto(l) {
		return true
	}
	if t > p.Block(b).First {
		return false
	}
	return !p.Timeline() || l == p.Home(b)
}

// Options bound the enumeration of candidates.
type Options struct {
	Actions Set
	// Max is the most candidates per action and level, best fit first;
	// zero or negative means no cap.
	Max int
	// Horizon, if positive, keeps evict from touching constants that live
	// more than Horizon timesteps past the action's timestep (the search
	// re-plans until every block it changed has died).
	Horizon int
	// Dur, if not nil, is op u's duration in the state the candidates are
	// for (costmodel.Pricer.Dur of the search's node): Prefetch offers the
	// start that just hides the copy behind the ops before it. Without
	// it, only the earliest start.
	Dur func(u int) float64
}

// Enumerate calls emit for every way the actions can place block b at
// timestep t, in a fixed order: for each level the block may use, fastest
// first, the free gaps that hold it smallest first; in each gap, the
// boundary the initializer would choose (rules 3-4) and then the opposite
// boundary; then the reusable blocks whose space it may take. occ is the
// state of timestep t with b detached (see Detach); it is only read.
// Positions equal to b's current one are skipped.
func Enumerate(occ *state.Occupancy, v state.View, b, t int, o Options, emit func(Candidate)) {
	p := occ.Problem()
	blk := p.Block(b)
	cur := state.SegAt(v.BlockSegs(b), t).Pos()
	for l := 0; l < p.Levels(); l++ {
		if !p.Allowed(b, l) || !MayEnter(p, b, l, t) {
			continue
		}
		kind := Swap
		if int32(l) == cur.Level {
			kind = Move
		}
		// Prefetch: a copy issued early, into a faster level (a prefetch)
		// or, for a block that lives on after t or starts there, into a
		// slower one (an asynchronous eviction: its copy hides behind the
		// ops before t, and the faster level's space is free from t).
		prefetch := o.Actions[Prefetch] && p.Timeline() &&
			(int32(l) < cur.Level || (int32(l) > cur.Level && (blk.Last > t || blk.First == t)))
		if !o.Actions[kind] && !prefetch {
			continue
		}
		f, a := p.Foot(b, l), p.Align(b, l)
		count, pcount := 0, 0
		full := func() bool {
			return o.Max > 0 && (!o.Actions[kind] || count >= o.Max) && (!prefetch || pcount >= o.Max)
		}
		occ.FitGaps(l, f, func(g state.Gap) bool {
			first, ok := Boundary(occ, b, l, g)
			if !ok {
				return true
			}
			// The opposite boundary of the same gap, if it is another place.
			other := state.AlignUp(g.Off, a)
			if other == first {
				other = state.AlignDown(g.End-f, a)
			}
			offs := [2]int64{first, other}
			n := 1
			if other != first && other >= g.Off && other+f <= g.End {
				n = 2
			}
			for _, off := range offs[:n] {
				pos := state.Pos{Level: int32(l), Offset: off}
				if pos == cur {
					continue
				}
				if o.Actions[kind] && (o.Max <= 0 || count < o.Max) {
					emit(Candidate{Kind: kind, Block: b, At: t, From: cur, To: pos, Reused: -1})
					count++
				}
				if prefetch && (o.Max <= 0 || pcount < o.Max) {
					for _, lead := range prefetchLeads(occ, v, b, t, pos, o.Dur) {
						emit(Candidate{Kind: Prefetch, Block: b, At: t, From: cur, To: pos, Reused: -1, Lead: lead})
					}
					pcount++
				}
				if full() {
					return false
				}
			}
			return true
		})
	}
	if !o.Actions[Reuse] || p.Block(b).First != t {
		return
	}
	for _, ai := range p.Dying(t) {
		a := int(ai)
		if a == b || !workload.CanReuse(p.Block(a), p.Block(b)) {
			continue
		}
		segs := v.BlockSegs(a)
		if len(segs) == 0 {
			continue
		}
		s := state.SegAt(segs, t)
		l := int(s.Level)
		if s.Pos() == cur || !p.Allowed(b, l) || !MayEnter(p, b, l, t) || !occ.ReuseFits(a, b, l, s.Offset) {
			continue
		}
		if c, ok := Partner(p, v, a, t); ok && c != b {
			continue // a already shares its space: no chains
		}
		emit(Candidate{Kind: Reuse, Block: b, At: t, From: cur, To: s.Pos(), Reused: a})
	}
}

// Apply carries out a candidate: occ (the state of timestep c.At with the
// block detached) gets the block at its new place, and v records it.
func Apply(occ *state.Occupancy, v state.View, c Candidate) {
	ApplyOcc(occ, v, c)
	for _, e := range c.Evicted {
		if e.Copy {
			v.MoveAt(e.Block, c.At, e.To)
			if e.Lead != 0 {
				segs := slices.Clone(v.BlockSegs(e.Block))
				segs[len(segs)-1].Lead = e.Lead
				v.Set(e.Block, segs)
			}
			continue
		}
		first := v.BlockSegs(e.Block)[0]
		v.SetFirst(e.Block, state.Seg{From: first.From, Level: e.To.Level, Offset: e.To.Offset})
	}
	v.MoveAt(c.Block, c.At, c.To)
	if c.Lead != 0 {
		segs := slices.Clone(v.BlockSegs(c.Block))
		segs[len(segs)-1].Lead = c.Lead
		v.Set(c.Block, segs)
	}
}

// prefetchLeads returns the leads Prefetch offers for block b, at
// timestep t, copied to pos (in a level faster or slower than the one it
// comes from; occ is the state of t with b detached): the earliest
// feasible start,
//
//	s* = max(FreeSince(pos's range), the source segment's From, the last
//	         write before t + 1, t - Horizon, 0),
//
// (for a constant's first placement outside its home, a load: no source,
// no write), and the start that just hides the copy behind the ops before
// t, the latest s with the sum of dur(u) over [s, t-1] at least the copy's
// time x, no earlier than s*; each once, and none if s* is t.
func prefetchLeads(occ *state.Occupancy, v state.View, b, t int, pos state.Pos, dur func(int) float64) []int32 {
	p := occ.Problem()
	blk := p.Block(b)
	segs := v.BlockSegs(b)
	l := int(pos.Level)
	lv := &p.HW.Levels[l]
	s := max(occ.FreeSince(l, pos.Offset, pos.Offset+p.Foot(b, l)), t-p.Horizon(), 0)
	var x float64
	if t == blk.First {
		if blk.Kind != workload.Constant || l == p.Home(b) {
			return nil // no copy to issue early
		}
		x = p.HW.Levels[p.Home(b)].Out.Time(blk.Size) + lv.In.Time(blk.Size)
	} else {
		src := state.SegAt(segs, t-1)
		s = max(s, int(src.From))
		if i := sort.SearchInts(blk.Writes, t); i > 0 {
			s = max(s, blk.Writes[i-1]+1)
		}
		x = p.HW.Levels[src.Level].Out.Time(blk.Size) + lv.In.Time(blk.Size)
	}
	if s >= t {
		return nil
	}
	leads := []int32{int32(t - s)}
	if dur != nil {
		acc := 0.0
		for u := t - 1; u > s; u-- {
			if acc += dur(u); acc >= x {
				leads = append(leads, int32(t-u))
				break
			}
		}
	}
	return leads
}

// ApplyOcc is the occupancy half of Apply: v, the state before the
// candidate, is only read.
func ApplyOcc(occ *state.Occupancy, v state.View, c Candidate) {
	for _, e := range c.Evicted {
		if e.Copy {
			// The copy reads the source until At-1: the free-since log
			// learns that it is free from At.
			src := state.SegAt(v.BlockSegs(e.Block), c.At)
			occ.Vacate(e.Block, int(src.Level), src.Offset)
		} else {
			first := v.BlockSegs(e.Block)[0]
			occ.Release(e.Block, int(first.Level), first.Offset)
		}
		occ.Place(e.Block, int(e.To.Level), e.To.Offset)
	}
	if c.Kind == Reuse {
		occ.Reuse(c.Reused, c.Block, int(c.To.Level), c.To.Offset)
	} else {
		occ.Place(c.Block, int(c.To.Level), c.To.Offset)
	}
}

// SyncReservations makes occ, the state of timestep t, hold the
// reservations at t of the changed blocks' new segments (ch[i].New)
// instead of those of their old ones (FORMATS.md rule 9: a segment whose
// copy starts at or before t and whose From is after t reserves its range
// at t; under the timeline model only): all the old ones are released,
// then the new ones placed. The search calls it when it makes a
// candidate's state from its parent's: re-planning the timesteps after t
// may change a load or a stream whose reservation began by t (the
// initializer's copies start up to Horizon timesteps early). The acted
// block's old reservations are not released: Detach did that.
func SyncReservations(occ *state.Occupancy, t, acted int, ch []costmodel.BlockChange) {
	if !occ.Problem().Timeline() {
		return
	}
	reserved := func(r state.Seg) bool { return int(r.From) > t && int(r.OccStart()) <= t }
	for _, c := range ch {
		if c.Block == acted {
			continue
		}
		for _, r := range c.Old {
			if reserved(r) {
				occ.Release(c.Block, int(r.Level), r.Offset)
			}
		}
	}
	for _, c := range ch {
		for _, r := range c.New {
			if reserved(r) {
				occ.Place(c.Block, int(r.Level), r.Offset)
			}
		}
	}
}
