package actions

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Initializer is seed 003's "pre-configure memory" action: it places the
// blocks of each timestep level by level, highest first, best fit (rules 1-5
// of ALGORITHM.md). It can start from any timestep of any layout, which is
// how the search re-plans the timesteps after the one it changed.
//
// The zero value is not usable; build one with NewInitializer.
type Initializer struct {
	p *state.Problem
	// NoReuse disables rule 5: no block is put over a reusable block's
	// space; every block gets free space of its own.
	NoReuse bool
	ord     Order
	order   [][]int32 // per timestep, the blocks created there in placement order
	// guide, if not nil, steers the placements (SetGuide).
	guide *guide
	// tl is what only the timeline model needs (nil under the others).
	tl *timelineInit
}

// Order is the order in which the initializer places the blocks created at
// one timestep; the seed does not fix it.
type Order uint8

const (
	// WorkloadOrder places them in the workload's block order: the literal
	// reading of the seed, and the default. In traced workloads the
	// constants come first, so at timestep 0 the weights take the fast
	// levels before the first activations.
	WorkloadOrder Order = iota
	// KindOrder places scratch blocks first (so that the op's outputs can
	// take their space by the kind rule), then activations, outputs and
	// inputs, then constants (so that weights fill what the program's own
	// data leaves); ties keep the workload's order. It usually gives a
	// cheaper plan; the search starts from it when it does.
	KindOrder
	// ResidentOrder is KindOrder after a pre-pass that, under the timeline
	// model, makes constants resident in the fastest level (FORMATS.md
	// rule 10: no load, their range kept over the whole run), greedily by
	// their saving per byte, while they fit in the room the blocks other
	// than constants leave there at their peak (their max-live). Vela's
	// Sram_Only mode is this start. Under the other models it is
	// KindOrder.
	ResidentOrder
	// ResidentHalfOrder is ResidentOrder with half that room for the
	// resident constants.
	ResidentHalfOrder
	// BoundOrder is KindOrder guided by the whole-program bound
	// (bounds.Whole's paths, set by SetGuide): each block is placed first
	// in the level its path starts in, then in the slower ones, and only
	// then in the faster ones; so blocks that the prices send to a slow
	// level leave the fast levels to those that pay for them. Without a
	// guide it is KindOrder.
	BoundOrder
	// ResidentLevelsOrder is KindOrder after a pre-pass that, under the
	// timeline model, makes constants resident in every writable level
	// faster than their home, fastest first (residentLevels): in each, by
	// their saving per byte, in the room the blocks other than constants
	// leave there at their peak once the faster levels are full. On a
	// profile whose fastest level the activations need, the weights then
	// stay in a middle level (the K210's general SRAM) instead of
	// streaming from a slow home every run. Under the other models it is
	// KindOrder.
	ResidentLevelsOrder
)

func (o Order) String() string {
	switch o {
	case KindOrder:
		return "kind"
	case ResidentOrder:
		return "resident"
	case ResidentHalfOrder:
		return "resident-half"
	case BoundOrder:
		return "bound"
	case ResidentLevelsOrder:
		return "resident-levels"
	}
	return "workload"
}

// residentShare is the share of the room the order's pre-pass gives
// resident constants (0: no pre-pass).
func (o Order) residentShare() float64 {
	switch o {
	case ResidentOrder:
		return 1
	case ResidentHalfOrder:
		return 0.5
	}
	return 0
}

// NewInitializer returns the initializer for p: workload order, reuse on.
func NewInitializer(p *state.Problem) *Initializer {
	return NewInitializerOrder(p, WorkloadOrder)
}

// NewInitializerOrder returns the initializer for p with the given order.
func NewInitializerOrder(p *state.Problem, ord Order) *Initializer {
	in := &Initializer{p: p, ord: ord, order: make([][]int32, p.Prog.Timesteps())}
	for t := range in.order {
		o := slices.Clone(p.Created(t))
		if ord != WorkloadOrder {
			slices.SortStableFunc(o, func(a, b int32) int {
				return kindRank(p.Block(int(a)).Kind) - kindRank(p.Block(int(b)).Kind)
			})
		}
		in.order[t] = o
	}
	if p.Timeline() {
		in.tl = newTimelineInit(p)
		if share := ord.residentShare(); share > 0 {
			in.tl.resident = residents(p, share)
		} else if ord == ResidentLevelsOrder {
			in.tl.resident = residentLevels(p, false)
		}
	}
	return in
}

// OrderKind returns the initializer's order.
func (in *Initializer) OrderKind() Order { return in.ord }

func kindRank(k workload.Kind) int {
	switch k {
	case workload.Scratch:
		return 0
	case workload.Constant:
		return 2
	}
	return 1
}

// Order returns the blocks created at t in the order the initializer places
// them. The slice must not be modified.
func (in *Initializer) Order(t int) []int32 { return in.order[t] }

// Run places every block created at timestep from or later, and returns the
// occupancy of the final timestep. Blocks created before from keep their
// segments up to from-1 and stay where they are at from-1 for the rest of
// their lives (segments starting at from or later are dropped): this is
// the re-planning step of the search. Run(lay, 0) plans from empty memory.
//
// In ResidentLevelsOrder, where Run from 0 cannot place a block, the
// residents are chosen again with a margin (residentLevels) and the run
// made again; the initializer keeps them from then on.
func (in *Initializer) Run(lay *state.Layout, from int) (*state.Occupancy, error) {
	return in.runRetry(context.Background(), lay, from)
}

// RunContext is Run(lay, 0) that stops when ctx ends, between timesteps
// (it looks every ctxEvery of them): it returns ctx's error then, and lay
// holds a part of a plan. A run that ctx does not stop is Run's.
func (in *Initializer) RunContext(ctx context.Context, lay *state.Layout) error {
	_, err := in.runRetry(ctx, lay, 0)
	return err
}

// ctxEvery is how many timesteps RunContext places between looks at its
// context.
const ctxEvery = 64

// runRetry is run, made again with the residents' margin where
// ResidentLevelsOrder cannot place a block (see Run).
func (in *Initializer) runRetry(ctx context.Context, lay *state.Layout, from int) (*state.Occupancy, error) {
	occ, err := in.run(ctx, lay, from)
	var ie *InfeasibleError
	if from == 0 && err != nil && errors.As(err, &ie) && in.ord == ResidentLevelsOrder && in.tl != nil && !in.tl.margin {
		in.tl.margin = true
		in.tl.resident = residentLevels(in.p, true)
		return in.run(ctx, lay, 0)
	}
	return occ, err
}

// run is Run, once, stopped by ctx as RunContext says.
func (in *Initializer) run(ctx context.Context, lay *state.Layout, from int) (*state.Occupancy, error) {
	p := in.p
	var occ *state.Occupancy
	if from == 0 {
		occ = state.NewOccupancy(p)
		if in.tl != nil {
			for b := range lay.Segs {
				lay.Segs[b] = nil
			}
			occ.Advance(0)
			for _, r := range in.tl.resident {
				occ.Place(r.b, int(r.s.Level), r.s.Offset)
				lay.SetFirst(r.b, r.s)
			}
		}
	} else {
		for b := range lay.Segs {
			blk := p.Block(b)
			if blk.First < from && blk.Last >= from {
				segs := lay.Segs[b]
				i := len(segs)
				for i > 1 && int(segs[i-1].From) >= from {
					i--
				}
				lay.Segs[b] = segs[:i]
			}
		}
		if p.Timeline() {
			// Blocks created at from or later are placed again: what an
			// earlier plan had for them (a load that starts before from)
			// must not be in the occupancy of from-1. Resident constants
			// are decided before the run and stay.
			for b := range lay.Segs {
				if segs := lay.Segs[b]; p.Block(b).First >= from && len(segs) > 0 && !segs[0].IsResident() {
					lay.Segs[b] = nil
				}
			}
		}
		var err error
		if occ, err = state.OccupancyAt(p, lay, from-1); err != nil {
			return nil, fmt.Errorf("initializer: layout before timestep %d is broken: %w", from, err)
		}
	}
	w := in.NewWalk()
	for t := from; t < p.Prog.Timesteps(); t++ {
		if (t-from)%ctxEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := w.Step(occ, lay, t); err != nil {
			return nil, err
		}
	}
	return occ, nil
}

// Step advances occ from timestep t-1 to t: it frees the blocks whose life
// ended at t-1 and places the blocks created at t, recording their placement
// in v. It assumes that no block moves at t (blocks alive at t-1 and t are
// where they were).
//
// Under the timeline model a constant is first put in its home level
// (unless it is read at once and a load pays), and Stream then decides
// the copies of the constants whose stream point is t; a resident
// constant (placed before the run) is not placed again.
func (in *Initializer) Step(occ *state.Occupancy, v state.View, t int) error {
	return in.step(occ, v, t, &lookback{t: -1})
}

// step is Step within a walk whose lookback is w (see Walk).
func (in *Initializer) step(occ *state.Occupancy, v state.View, t int, w *lookback) error {
	in.Free(occ, v, t)
	if in.tl != nil {
		w.enter(in, v, t)
		return in.stepTimeline(occ, v, t, w)
	}
	for _, b := range in.order[t] {
		pos, ok := in.place(occ, v, int(b), t, w)
		if !ok {
			return in.infeasible(occ, int(b), t)
		}
		v.SetFirst(int(b), state.Seg{From: int32(t), Level: pos.Level, Offset: pos.Offset})
	}
	return nil
}

// stepTimeline is Step's placements under the timeline model, w the
// walk's lookback, entered at t.
func (in *Initializer) stepTimeline(occ *state.Occupancy, v state.View, t int, w *lookback) error {
	p := in.p
	for _, bi := range in.order[t] {
		b := int(bi)
		segs := v.BlockSegs(b)
		if len(segs) == 1 && segs[0].IsResident() {
			continue
		}
		if len(segs) > 0 && int(segs[0].Start()) < t {
			// An earlier plan's load, whose reservation the occupancy may
			// hold (Replay places it at its start): placed again here.
			occ.Release(b, int(segs[0].Level), segs[0].Offset)
		}
		var s state.Seg
		ok := false
		if p.Block(b).Kind == workload.Constant {
			s, ok = in.placeConstant(occ, v, b, t, w)
		} else {
			var pos state.Pos
			pos, ok = in.Place(occ, v, b, t)
			s = state.Seg{From: int32(t), Level: pos.Level, Offset: pos.Offset}
		}
		if !ok {
			return in.infeasible(occ, b, t)
		}
		v.SetFirst(b, s)
	}
	in.stream(occ, v, t, w)
	return nil
}

// Free releases from occ the blocks whose life ended at t-1, at their
// positions in v.
//
// Under the timeline model it first advances occ to t (Occupancy.Advance,
// which the free-since log needs), and a resident constant is not
// released: its range is kept over the whole run.
func (in *Initializer) Free(occ *state.Occupancy, v state.View, t int) {
	if in.tl != nil {
		occ.Advance(t)
	}
	if t == 0 {
		return
	}
	for _, b := range in.p.Dying(t - 1) {
		s := state.SegAt(v.BlockSegs(int(b)), t-1)
		if s.IsResident() {
			continue
		}
		occ.Drop(int(b), int(s.Level), s.Offset) // lazy: see Occupancy.Drop
	}
}

// Replay advances occ from timestep t-1 to t following v, without deciding
// anything: it frees the blocks that died at t-1 and puts the blocks
// created at t where v has them, sharing space with their reuse partners
// (see Partner). The result does not depend on the order the blocks were
// placed in. Blocks must not move at t; a layout that overlaps panics.
//
// Under the timeline model it also places the reservations that begin at
// t (a copy's or a load's destination from its start, at most Horizon
// timesteps before its timestep; the resident constants at timestep 0),
// and carries out the copies at t: their sources released, their
// destinations placed where no reservation holds them already.
func (in *Initializer) Replay(occ *state.Occupancy, v state.View, t int) {
	in.Free(occ, v, t)
	if in.tl != nil {
		in.replayTimeline(occ, v, t)
	}
	// Blocks that end at t first: a block that lives on is never the one
	// whose space is taken over.
	for pass := 0; pass < 2; pass++ {
		for _, bi := range in.order[t] {
			b := int(bi)
			if (in.p.Block(b).Last == t) != (pass == 0) {
				continue
			}
			s := v.BlockSegs(b)[0]
			if s.IsResident() || int(s.Start()) < t {
				continue // placed at its start (or before the run)
			}
			l := int(s.Level)
			if a, ok := Partner(in.p, v, b, t); ok {
				if sp, held := occ.SpanAt(l, s.Offset); held && int(sp.Block) == a {
					occ.Reuse(a, b, l, s.Offset)
					continue
				}
			}
			occ.Place(b, l, s.Offset)
		}
	}
	if in.tl != nil {
		in.copyAt(occ, v, t)
	}
}

// Place puts block b, created at t, into occ by rules 1-5 and returns where.
// It does not record the placement in v (v is read for the positions of
// blocks whose space b might reuse).
func (in *Initializer) Place(occ *state.Occupancy, v state.View, b, t int) (state.Pos, bool) {
	for l := 0; l < in.p.Levels(); l++ {
		if pos, ok := in.placeIn(occ, v, b, l, t); ok {
			return pos, true
		}
	}
	return state.Pos{}, false
}

// placeIn puts block b, created at t, into level l by rules 2-5, if it
// may go there and fits.
func (in *Initializer) placeIn(occ *state.Occupancy, v state.View, b, l, t int) (state.Pos, bool) {
	p := in.p
	if !p.Allowed(b, l) || !MayEnter(p, b, l, t) {
		return state.Pos{}, false
	}
	if !in.NoReuse {
		if a, off, ok := in.reuseTarget(occ, v, b, l, t); ok {
			occ.Reuse(a, b, l, off)
			return state.Pos{Level: int32(l), Offset: off}, true
		}
	}
	if off, ok := BestFit(occ, b, l); ok {
		occ.Place(b, l, off)
		return state.Pos{Level: int32(l), Offset: off}, true
	}
	return state.Pos{}, false
}

// reuseTarget finds, by rule 5, a block a whose space block b (created at
// t) may take over in level l: a ends at t, the kind rule allows it, a
// holds its space, b fits from a's offset, and a is not already in a reuse
// pair at t (pairs never chain). The first such block in ID order wins.
//
// Only blocks placed before b at t count as partners: v may still hold
// stale positions, from an earlier plan, for the blocks of t not placed
// yet.
func (in *Initializer) reuseTarget(occ *state.Occupancy, v state.View, b, l, t int) (a int, off int64, ok bool) {
	p := occ.Problem()
	bb := p.Block(b)
	for _, ai := range p.Dying(t) {
		a := int(ai)
		if a == b || !workload.CanReuse(p.Block(a), bb) {
			continue
		}
		segs := v.BlockSegs(a)
		if len(segs) == 0 {
			continue
		}
		s := state.SegAt(segs, t)
		if int(s.Level) != l || !occ.ReuseFits(a, b, l, s.Offset) || in.paired(v, a, b, t, s.Pos()) {
			continue
		}
		return a, s.Offset, true
	}
	return 0, 0, false
}

// paired reports whether block a, at pos at timestep t, already shares its
// space with a block: one created before t (a then sits over its space),
// or one created at t and placed before b.
func (in *Initializer) paired(v state.View, a, b, t int, pos state.Pos) bool {
	p := in.p
	at := func(c int) bool {
		segs := v.BlockSegs(c)
		return len(segs) > 0 && state.SegAt(segs, t).Pos() == pos && state.ReusePair(p, a, c, t)
	}
	for _, ci := range p.Dying(t) {
		if c := int(ci); c != a && p.Block(c).First < t && at(c) {
			return true
		}
	}
	for _, ci := range in.order[t] {
		c := int(ci)
		if c == b {
			break
		}
		if c != a && at(c) {
			return true
		}
	}
	return false
}

// BestFit finds a place for block b in level l by rules 2-4: the smallest
// free gap that holds its footprint at its alignment (lowest address among
// equals), and in it the boundary chosen by Boundary.
func BestFit(occ *state.Occupancy, b, l int) (int64, bool) {
	p := occ.Problem()
	f := p.Foot(b, l)
	var off int64
	found := false
	occ.FitGaps(l, f, func(g state.Gap) bool {
		off, found = Boundary(occ, b, l, g)
		return !found
	})
	return off, found
}

// never is the death time of a level's own edge: it is never destroyed.
const never = math.MaxInt

// Boundary places block b against one boundary of free gap g of level l
// (rules 3 and 4): against the neighbour that dies later, a level edge
// counting as a neighbour that never dies; between neighbours that die
// together, against the side nearer the level's own edge; remaining ties go
// to the lower address. ok is false if b does not fit in g.
func Boundary(occ *state.Occupancy, b, l int, g state.Gap) (off int64, ok bool) {
	p := occ.Problem()
	f, a := p.Foot(b, l), p.Align(b, l)
	capacity := p.HW.Levels[l].Capacity
	leftDeath, rightDeath := never, never
	if g.Off > 0 {
		s, found := occ.SpanEndingAt(l, g.Off)
		if !found {
			panic(fmt.Sprintf("actions: gap [%d,%d) of level %d has no left neighbour", g.Off, g.End, l))
		}
		leftDeath = p.Block(int(s.Block)).Last
	}
	if g.End < capacity {
		s, found := occ.SpanAt(l, g.End)
		if !found {
			panic(fmt.Sprintf("actions: gap [%d,%d) of level %d has no right neighbour", g.Off, g.End, l))
		}
		rightDeath = p.Block(int(s.Block)).Last
	}
	var left bool
	switch {
	case leftDeath > rightDeath:
		left = true
	case rightDeath > leftDeath:
		left = false
	default:
		left = g.Off <= capacity-g.End
	}
	if left {
		off = state.AlignUp(g.Off, a)
	} else {
		off = state.AlignDown(g.End-f, a)
	}
	return off, off >= g.Off && off+f <= g.End
}

// InfeasibleError says that a block fits no level it may use.
type InfeasibleError struct {
	Block    string
	Size     int64
	Timestep int
	// Per level the block may use (fastest first): the footprint it needs
	// and the largest free space there at that timestep.
	Levels  []string
	Need    []int64
	Largest []int64
	// Free is the free bytes in all, per level, at that timestep.
	Free   []int64
	Pinned bool
	// ReadOnly names the read-only levels the block may not use, not being
	// a constant (FORMATS.md rule 7); they are not among Levels.
	ReadOnly []string
	// LiveLargest names the largest blocks live at that timestep, with
	// their sizes and levels, for the message.
	LiveLargest []string
	// Fallback, when set, says why the fallback plan (FallbackPlan) was
	// not found either.
	Fallback string
}

func (e *InfeasibleError) Error() string {
	var parts []string
	for i := range e.Levels {
		parts = append(parts, fmt.Sprintf("%s needs %d B, largest free %d B of %d B free", e.Levels[i], e.Need[i], e.Largest[i], e.Free[i]))
	}
	what := "fits no level"
	if len(e.ReadOnly) > 0 {
		what = "fits no writable level"
	}
	if e.Pinned {
		what = "does not fit its pinned level"
	}
	msg := fmt.Sprintf("block %q (%d B) created at timestep %d %s: %s",
		e.Block, e.Size, e.Timestep, what, strings.Join(parts, "; "))
	if len(e.ReadOnly) > 0 {
		msg += "; read-only " + strings.Join(e.ReadOnly, ", ") + " holds constants only"
	}
	if len(e.LiveLargest) > 0 {
		msg += "; largest blocks live there: " + strings.Join(e.LiveLargest, ", ")
	}
	if e.Fallback != "" {
		msg += "; " + e.Fallback
	}
	return msg
}

func (in *Initializer) infeasible(occ *state.Occupancy, b, t int) error {
	p := in.p
	e := &InfeasibleError{Block: p.Block(b).Name, Size: p.Block(b).Size, Timestep: t, Pinned: p.Pin(b) != state.NoPin}
	for l := 0; l < p.Levels(); l++ {
		if p.Pin(b) != state.NoPin && p.Pin(b) != l {
			continue
		}
		if !p.Writable(b, l) {
			e.ReadOnly = append(e.ReadOnly, p.HW.Levels[l].Name)
			continue
		}
		e.Levels = append(e.Levels, p.HW.Levels[l].Name)
		e.Need = append(e.Need, p.Foot(b, l))
		e.Largest = append(e.Largest, occ.Largest(l))
		e.Free = append(e.Free, p.HW.Levels[l].Capacity-occ.Busy(l))
	}
	// The largest blocks holding space at t.
	type held struct {
		b    int
		l    int
		size int64
	}
	var hs []held
	seen := map[int32]bool{}
	for l := 0; l < p.Levels(); l++ {
		occ.Spans(l, func(s state.Span) bool {
			if !seen[s.Block] {
				seen[s.Block] = true
				hs = append(hs, held{int(s.Block), l, p.Block(int(s.Block)).Size})
			}
			return true
		})
	}
	slices.SortStableFunc(hs, func(a, b held) int {
		if a.size != b.size {
			if a.size > b.size {
				return -1
			}
			return 1
		}
		return a.b - b.b
	})
	for _, h := range hs[:min(3, len(hs))] {
		e.LiveLargest = append(e.LiveLargest, fmt.Sprintf("%q (%d B, %s)", p.Block(h.b).Name, h.size, p.HW.Levels[h.l].Name))
	}
	return e
}
