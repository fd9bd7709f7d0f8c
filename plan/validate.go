package plan

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/google/btree"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Violation is one broken rule of FORMATS.md section 3.
type Violation struct {
	Rule    int // 1-6, the rule's number in FORMATS.md section 3
	Message string
}

func (v Violation) String() string { return fmt.Sprintf("rule %d: %s", v.Rule, v.Message) }

// MaxViolations is how many violations Validate lists; it counts the rest.
const MaxViolations = 1000

// Result is what Validate found.
type Result struct {
	Violations []Violation
	Omitted    int // violations found beyond MaxViolations
	// Cost is the final cost recomputed from the plan (NaN when the
	// placements are too broken to price).
	Cost float64
	// InitialCost is the cost of the initializer's own plan or, where the
	// initializer cannot place a block, of the fallback plan (NaN if
	// neither exists).
	InitialCost float64
	// InitialFallback says how the fallback plan was made when
	// InitialCost is its cost (nil when it is the initializer's).
	InitialFallback *actions.Fallback
	// Layout is the plan in compact form when the plan is valid, else nil.
	Layout *state.Layout
}

// Valid reports whether the plan broke no rule.
func (r *Result) Valid() bool { return len(r.Violations) == 0 && r.Omitted == 0 }

func (r *Result) add(rule int, format string, args ...any) {
	if len(r.Violations) >= MaxViolations {
		r.Omitted++
		return
	}
	r.Violations = append(r.Violations, Violation{Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// RelTolerance is the largest relative difference between a plan's stated
// cost and the recomputed one that rule 6 accepts.
const RelTolerance = 1e-9

// Validate checks pl against every rule of FORMATS.md section 3 for the
// problem p. doc names the plan document in errors. An error (an
// *inputerr.Error) means the plan cannot be read against this workload and
// profile at all: another workload or profile, an unknown block or level,
// an unknown cost model. Broken rules are listed in the Result.
func Validate(p *state.Problem, pl *Plan, doc string) (*Result, error) {
	if pl.Workload != p.Prog.Name {
		return nil, inputerr.New(doc, "", "plan is for workload %q, not %q", pl.Workload, p.Prog.Name)
	}
	if pl.Hardware != p.HW.Name {
		return nil, inputerr.New(doc, "", "plan is for hardware profile %q, not %q", pl.Hardware, p.HW.Name)
	}
	if pl.TimeUnit != p.HW.TimeUnit {
		return nil, inputerr.New(doc, "", "time_unit %q does not match the profile's %q", pl.TimeUnit, p.HW.TimeUnit)
	}
	model, ok := costmodel.Lookup(cmp.Or(pl.CostModel, costmodel.Default))
	if !ok {
		return nil, inputerr.New(doc, "", "cost_model %q is not known (known: %s)", pl.CostModel, strings.Join(costmodel.Names(), ", "))
	}
	v := &validator{p: p, pl: pl, doc: doc, r: &Result{Cost: math.NaN(), InitialCost: math.NaN()}}
	if err := v.index(); err != nil {
		return nil, err
	}
	tiled := v.checkTiling()
	v.checkTransfers()
	v.checkBounds()
	v.checkOverlaps()
	v.checkPins()
	if tiled {
		v.r.Layout = v.layout()
		if model.Name() == costmodel.Default {
			v.r.Cost = v.referenceCost()
		} else {
			v.r.Cost = costmodel.Total(model, p, v.r.Layout)
		}
		if !costEqual(pl.Cost.Final, v.r.Cost) {
			v.r.add(6, "cost.final %s differs from the recomputed cost %s (%s model)", num(pl.Cost.Final), num(v.r.Cost), model.Name())
		}
	} else {
		v.r.add(6, "cost.final %s cannot be checked: the placements do not tile the lifetimes", num(pl.Cost.Final))
	}
	v.checkInitial(model)
	if !v.r.Valid() {
		v.r.Layout = nil
	}
	return v.r, nil
}

func costEqual(stated, recomputed float64) bool {
	d := math.Abs(stated - recomputed)
	return d <= RelTolerance*math.Max(math.Abs(recomputed), 1e-300) || d == 0
}

type placement struct {
	Placement
	b, l int // block and level IDs
}

type validator struct {
	p     *state.Problem
	pl    *Plan
	doc   string
	r     *Result
	place []placement
	// byBlock[b] lists indexes into place, sorted by From.
	byBlock [][]int
	xfer    [][]int // transfers by block: indexes into pl.Transfers
}

func (v *validator) index() error {
	nb := v.p.Blocks()
	v.byBlock = make([][]int, nb)
	v.xfer = make([][]int, nb)
	v.place = make([]placement, len(v.pl.Placements))
	for i, pp := range v.pl.Placements {
		b, ok := v.p.BlockID(pp.Block)
		if !ok {
			return inputerr.New(v.doc, fmt.Sprintf("placements[%d]", i), "block %q is not in workload %q", pp.Block, v.p.Prog.Name)
		}
		l, ok := v.p.HW.LevelIndex(pp.Level)
		if !ok {
			return inputerr.New(v.doc, fmt.Sprintf("placements[%d]", i), "level %q is not in hardware profile %q", pp.Level, v.p.HW.Name)
		}
		v.place[i] = placement{pp, b, l}
		v.byBlock[b] = append(v.byBlock[b], i)
	}
	for b := range v.byBlock {
		slices.SortStableFunc(v.byBlock[b], func(x, y int) int { return cmp.Compare(v.place[x].From, v.place[y].From) })
	}
	for i, x := range v.pl.Transfers {
		b, ok := v.p.BlockID(x.Block)
		if !ok {
			return inputerr.New(v.doc, fmt.Sprintf("transfers[%d]", i), "block %q is not in workload %q", x.Block, v.p.Prog.Name)
		}
		for _, name := range []string{x.FromLevel, x.ToLevel} {
			if _, ok := v.p.HW.LevelIndex(name); !ok {
				return inputerr.New(v.doc, fmt.Sprintf("transfers[%d]", i), "level %q is not in hardware profile %q", name, v.p.HW.Name)
			}
		}
		v.xfer[b] = append(v.xfer[b], i)
	}
	return nil
}

// checkTiling is rule 1. It reports whether every block is tiled exactly.
func (v *validator) checkTiling() bool {
	ok := true
	for b, idx := range v.byBlock {
		blk := v.p.Block(b)
		if len(idx) == 0 {
			v.r.add(1, "block %q has no placement (lifetime [%d,%d])", blk.Name, blk.First, blk.Last)
			ok = false
			continue
		}
		next := blk.First
		for _, i := range idx {
			pp := v.place[i]
			switch {
			case pp.From > pp.To:
				v.r.add(1, "block %q: placement [%d,%d] is empty (from > to)", blk.Name, pp.From, pp.To)
				ok = false
			case pp.From > next:
				v.r.add(1, "block %q: no placement covers timesteps [%d,%d]", blk.Name, next, pp.From-1)
				ok = false
			case pp.From < next:
				if pp.From < blk.First {
					v.r.add(1, "block %q: placement [%d,%d] starts before the lifetime [%d,%d]", blk.Name, pp.From, pp.To, blk.First, blk.Last)
				} else {
					v.r.add(1, "block %q: placements overlap at timestep %d", blk.Name, pp.From)
				}
				ok = false
			}
			if pp.To+1 > next {
				next = pp.To + 1
			}
		}
		if next-1 > blk.Last {
			v.r.add(1, "block %q: placements reach timestep %d, past the lifetime's end %d", blk.Name, next-1, blk.Last)
			ok = false
		} else if next-1 < blk.Last {
			v.r.add(1, "block %q: no placement covers timesteps [%d,%d]", blk.Name, next, blk.Last)
			ok = false
		}
	}
	return ok
}

// checkTransfers is rule 2.
func (v *validator) checkTransfers() {
	for b, idx := range v.byBlock {
		blk := v.p.Block(b)
		used := make([]bool, len(v.xfer[b]))
		byAt := make(map[int][]int, len(v.xfer[b])) // transfer indexes j by timestep
		for j, xi := range v.xfer[b] {
			at := v.pl.Transfers[xi].At
			byAt[at] = append(byAt[at], j)
		}
		for k := 1; k < len(idx); k++ {
			prev, cur := v.place[idx[k-1]], v.place[idx[k]]
			if prev.Level == cur.Level && prev.Offset == cur.Offset {
				v.r.add(2, "block %q: placements starting at %d and %d are at the same place (%s, offset %d): no move between them",
					blk.Name, prev.From, cur.From, cur.Level, cur.Offset)
			}
			t := cur.From
			match := byAt[t]
			switch len(match) {
			case 0:
				v.r.add(2, "block %q: no transfer at timestep %d, where it moves from %s@%d to %s@%d",
					blk.Name, t, prev.Level, prev.Offset, cur.Level, cur.Offset)
			case 1:
				x := v.pl.Transfers[v.xfer[b][match[0]]]
				if x.FromLevel != prev.Level || x.FromOffset != prev.Offset || x.ToLevel != cur.Level || x.ToOffset != cur.Offset {
					v.r.add(2, "block %q: transfer at %d says %s@%d -> %s@%d, the placements say %s@%d -> %s@%d",
						blk.Name, t, x.FromLevel, x.FromOffset, x.ToLevel, x.ToOffset, prev.Level, prev.Offset, cur.Level, cur.Offset)
				}
			default:
				v.r.add(2, "block %q: %d transfers at timestep %d, want exactly one", blk.Name, len(match), t)
			}
			for _, j := range match {
				used[j] = true
			}
		}
		for j, xi := range v.xfer[b] {
			if !used[j] {
				v.r.add(2, "block %q: transfer at timestep %d is not at a boundary between two of its placements", blk.Name, v.pl.Transfers[xi].At)
			}
		}
	}
}

// checkBounds is rule 3.
func (v *validator) checkBounds() {
	for _, pp := range v.place {
		blk := v.p.Block(pp.b)
		a, f := v.p.Align(pp.b, pp.l), v.p.Foot(pp.b, pp.l)
		capacity := v.p.HW.Levels[pp.l].Capacity
		if pp.Offset < 0 {
			v.r.add(3, "block %q: offset %d in level %s is negative", blk.Name, pp.Offset, pp.Level)
			continue
		}
		if pp.Offset%a != 0 {
			v.r.add(3, "block %q: offset %d in level %s is not a multiple of its alignment %d", blk.Name, pp.Offset, pp.Level, a)
		}
		if pp.Offset > capacity-f {
			v.r.add(3, "block %q: [%d,%s) ends past the capacity %d of level %s (footprint %d)",
				blk.Name, pp.Offset, endOf(pp.Offset, f), capacity, pp.Level, f)
		}
	}
}

// endSat returns off+f, or math.MaxInt64 where that overflows (an offset
// rule 3 rejects, whose overlaps rule 4 still reports).
func endSat(off, f int64) int64 {
	if off > math.MaxInt64-f {
		return math.MaxInt64
	}
	return off + f
}

func endOf(off, f int64) string {
	if off > math.MaxInt64-f {
		return "overflow"
	}
	return fmt.Sprint(off + f)
}

// checkPins is rule 5.
func (v *validator) checkPins() {
	for _, pp := range v.place {
		if pin := v.p.Pin(pp.b); pin != state.NoPin && pin != pp.l {
			v.r.add(5, "block %q is pinned to level %s but placed in %s during [%d,%d]",
				pp.Block, v.p.HW.Levels[pin].Name, pp.Level, pp.From, pp.To)
		}
	}
}

// active is a placement in the overlap sweep, possibly trimmed to the tail
// that a reusing block left it.
type active struct {
	off, end int64
	i        int // index into v.place
}

func activeLess(a, b active) bool {
	if a.off != b.off {
		return a.off < b.off
	}
	return a.i < b.i
}

// checkOverlaps is rule 4: a sweep over time per level. The active set is
// kept non-overlapping (reuse trims the reused block to its tail), so the
// neighbours of a new placement in address order are the only candidates
// for overlap; once a violation leaves two placements overlapping, the
// level falls back to scanning its whole active set.
func (v *validator) checkOverlaps() {
	nl := v.p.Levels()
	perLevel := make([][]int, nl)
	for i, pp := range v.place {
		if pp.Offset < 0 || pp.From > pp.To {
			continue // reported by rules 1 and 3
		}
		perLevel[pp.l] = append(perLevel[pp.l], i)
	}
	for l := 0; l < nl; l++ {
		v.sweepLevel(perLevel[l])
	}
}

func (v *validator) sweepLevel(idx []int) {
	starts := slices.Clone(idx)
	slices.SortStableFunc(starts, func(x, y int) int {
		return cmp.Or(cmp.Compare(v.place[x].From, v.place[y].From), cmp.Compare(v.place[x].b, v.place[y].b))
	})
	ends := slices.Clone(idx)
	slices.SortStableFunc(ends, func(x, y int) int { return cmp.Compare(v.place[x].To, v.place[y].To) })
	set := btree.NewG(16, activeLess)
	cur := make(map[int]active, 16) // placement -> its entry in set
	dirty := false
	e := 0
	for _, i := range starts {
		t := v.place[i].From
		for e < len(ends) && v.place[ends[e]].To < t {
			if a, ok := cur[ends[e]]; ok {
				set.Delete(a)
				delete(cur, ends[e])
			}
			e++
		}
		x := active{v.place[i].Offset, endSat(v.place[i].Offset, v.p.Foot(v.place[i].b, v.place[i].l)), i}
		var hits []active
		if dirty {
			set.Ascend(func(y active) bool {
				if y.off >= x.end {
					return false
				}
				if y.end > x.off {
					hits = append(hits, y)
				}
				return true
			})
		} else {
			set.DescendLessOrEqual(active{x.off, 0, -1}, func(y active) bool {
				if y.off < x.off && y.end > x.off {
					hits = append(hits, y)
				}
				return false
			})
			set.AscendGreaterOrEqual(active{x.off, 0, -1}, func(y active) bool {
				if y.off >= x.end {
					return false
				}
				hits = append(hits, y)
				return true
			})
		}
		for _, y := range hits {
			switch {
			case v.reuses(y.i, x.i, t):
				// x takes over y's space: y keeps only what x leaves.
				set.Delete(y)
				delete(cur, y.i)
				if y.end > x.end {
					y.off = x.end
					set.ReplaceOrInsert(y)
					cur[y.i] = y
				}
			case v.reuses(x.i, y.i, t):
				// y (already placed) took over x's space: x keeps its tail.
				if x.end > y.end {
					x.off = y.end
				} else {
					x.off = x.end
				}
			default:
				v.overlap(y.i, x.i, max(y.off, x.off), min(y.end, x.end))
				dirty = true
			}
		}
		if x.off < x.end {
			set.ReplaceOrInsert(x)
			cur[i] = x
		}
	}
}

// reuses reports whether placement bi may sit over placement ai at t by the
// reuse exception of rule 4.
func (v *validator) reuses(ai, bi, t int) bool {
	a, b := v.place[ai], v.place[bi]
	ba, bb := v.p.Block(a.b), v.p.Block(b.b)
	return ba.Last == t && bb.First == t && b.From == t && a.To == t &&
		a.l == b.l && a.Offset == b.Offset && workload.CanReuse(ba, bb)
}

func (v *validator) overlap(ai, bi int, lo, hi int64) {
	a, b := v.place[ai], v.place[bi]
	v.r.add(4, "blocks %q and %q overlap in level %s at timesteps [%d,%d], bytes [%d,%d)",
		a.Block, b.Block, a.Level, max(a.From, b.From), min(a.To, b.To), lo, hi)
}

// layout turns a tiled plan into a state.Layout.
func (v *validator) layout() *state.Layout {
	lay := state.NewLayout(v.p.Blocks())
	for b, idx := range v.byBlock {
		for _, i := range idx {
			pp := v.place[i]
			lay.Segs[b] = append(lay.Segs[b], state.Seg{From: int32(pp.From), Level: int32(pp.l), Offset: pp.Offset})
		}
	}
	return lay
}

// referenceCost recomputes FORMATS.md section 4 straight from the plan's
// placements and transfers, without package costmodel, so that the two
// implementations check each other.
func (v *validator) referenceCost() float64 {
	levels := v.p.HW.Levels
	levelAt := func(b, t int) int {
		for _, i := range v.byBlock[b] {
			if v.place[i].From <= t && t <= v.place[i].To {
				return v.place[i].l
			}
		}
		panic("plan: tiled block without a placement at a timestep of its life")
	}
	var total float64
	for b := range v.byBlock {
		blk := v.p.Block(b)
		d := float64(blk.Size)
		for _, t := range blk.Reads {
			lv := levels[levelAt(b, t)]
			total += lv.Out.Latency + d/lv.Out.Bandwidth
		}
		for _, t := range blk.Writes {
			lv := levels[levelAt(b, t)]
			total += lv.In.Latency + d/lv.In.Bandwidth
		}
		for _, xi := range v.xfer[b] {
			x := v.pl.Transfers[xi]
			from, _ := v.p.HW.LevelIndex(x.FromLevel)
			to, _ := v.p.HW.LevelIndex(x.ToLevel)
			total += levels[from].Out.Latency + d/levels[from].Out.Bandwidth
			total += levels[to].In.Latency + d/levels[to].In.Bandwidth
		}
	}
	return total
}

// checkInitial is the second half of rule 6: cost.initial is the cost of the
// initializer's own plan or, where the initializer cannot place a block, of
// the fallback plan (actions.InitialPlan), computed here again.
func (v *validator) checkInitial(model costmodel.Model) {
	lay, fb, err := actions.InitialPlan(context.Background(), v.p, model)
	if err != nil {
		v.r.add(6, "cost.initial %s cannot be checked: the initializer finds no plan (%v)", num(v.pl.Cost.Initial), err)
		return
	}
	v.r.InitialCost = costmodel.Total(model, v.p, lay)
	v.r.InitialFallback = fb
	if !costEqual(v.pl.Cost.Initial, v.r.InitialCost) {
		what := "the initializer's plan"
		if fb != nil {
			what = fmt.Sprintf("the fallback plan (the initializer cannot place block %q at timestep %d)", fb.Cause.Block, fb.Cause.Timestep)
		}
		v.r.add(6, "cost.initial %s differs from the cost %s of %s", num(v.pl.Cost.Initial), num(v.r.InitialCost), what)
	}
}
