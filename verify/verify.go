package verify

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/workload"
)

// DefaultMaxViolations is how many violations Check lists when
// Options.MaxViolations is 0; it counts the rest (Report.Omitted).
const DefaultMaxViolations = 1000

// RelTolerance is the largest relative difference between a stated cost
// and the recomputed one that rule 6 accepts (FORMATS.md section 3).
const RelTolerance = 1e-9

// Options configure Check. The zero value (or nil) is the documented
// default of every field.
type Options struct {
	// Doc names the plan document in errors, e.g. `plan "p.json"`
	// (plan.DocName); "" names it "plan".
	Doc string
	// Initial, if not nil, returns the cost the plan must state as
	// cost.initial: the cost of the plan the initializer alone makes (or
	// of the planner's fallback plan where the initializer fails), which
	// only the planner can compute (the caller runs it; for hieropt's
	// planner, actions.VerifyInitial). of names that plan in a message
	// ("the initializer's plan" when ""). An error from it is a rule-6
	// violation ("cannot be checked"). nil: cost.initial is not checked
	// and Report.InitialCost is NaN.
	Initial func() (cost float64, of string, err error)
	// MaxViolations caps the list of violations; the rest are counted in
	// Report.Omitted. 0 (or less): DefaultMaxViolations.
	MaxViolations int
}

// Violation is one broken rule.
type Violation struct {
	// Rule is the rule's number in FORMATS.md: 1-6 of section 3, 7-10 of
	// section 6.2.
	Rule int
	// Block is the block the violation is about ("" for the plan as a
	// whole, e.g. its cost); for an overlap, the later-placed of the two.
	Block string
	// Timesteps are the first and last timesteps the violation concerns
	// (for the plan as a whole, the whole program).
	Timesteps [2]int
	// Message says what is wrong in one line, naming the block(s) and the
	// timesteps.
	Message string
}

// String returns the violation as one line: "rule N: message".
func (v Violation) String() string { return fmt.Sprintf("rule %d: %s", v.Rule, v.Message) }

// Report is what Check found.
type Report struct {
	// Violations are the broken rules, rule by rule in the order of the
	// rule numbers, each rule's in a deterministic order (blocks, levels
	// and timesteps ascending, placements in document order).
	Violations []Violation
	// Omitted counts the violations found beyond Options.MaxViolations.
	Omitted int
	// Cost is the plan's cost recomputed from the workload, the profile and
	// the placements and transfers (NaN when the placements do not tile the
	// lifetimes, so that there is no level to price an access in).
	Cost float64
	// InitialCost is what Options.Initial returned (NaN without one, or if
	// it failed).
	InitialCost float64
	// Model is the name of the cost model the plan is priced with.
	Model string
}

// Valid reports whether the plan broke no rule.
func (r *Report) Valid() bool { return len(r.Violations) == 0 && r.Omitted == 0 }

// Check checks pl against prog and prof: every rule of FORMATS.md section
// 3, under the plan's cost model (DefaultModel when it names none). None
// of the three may be nil, and none is modified; prog and prof need not
// have been validated (Check makes its own checks of what the rules depend
// on). The error, an
// *inputerr.Error, says that the plan cannot be checked against prog and
// prof at all; broken rules are in the Report.
func Check(prog *workload.Program, prof *hw.Profile, pl *plan.Plan, opt *Options) (*Report, error) {
	var o Options
	if opt != nil {
		o = *opt
	}
	if o.Doc == "" {
		o.Doc = "plan"
	}
	if o.MaxViolations <= 0 {
		o.MaxViolations = DefaultMaxViolations
	}
	c := &checker{prog: prog, prof: prof, pl: pl, opt: o,
		rep: &Report{Cost: math.NaN(), InitialCost: math.NaN()}}
	if err := c.header(); err != nil {
		return nil, err
	}
	if err := c.checkProfile(); err != nil {
		return nil, err
	}
	if err := c.checkProgram(); err != nil {
		return nil, err
	}
	if err := c.index(); err != nil {
		return nil, err
	}
	for _, r := range rules {
		r.check(c)
	}
	return c.rep, nil
}

// place is a placement of the plan by dense IDs, with the block's
// alignment and footprint in the placement's level.
type place struct {
	b, l     int // block and level IDs
	from, to int
	off      int64
	align    int64
	foot     int64 // the footprint, or math.MaxInt64 if it overflows (footOK false)
	footOK   bool
}

// end returns off + foot, or math.MaxInt64 where that overflows.
func (p *place) end() int64 {
	if p.off > math.MaxInt64-p.foot {
		return math.MaxInt64
	}
	return p.off + p.foot
}

// xfer is a transfer of the plan by dense IDs.
type xfer struct {
	b, from, to    int // block, source and destination level IDs
	at             int
	start          int  // the issue timestep (FORMATS.md 6.2; == at unless a prefetch)
	load           bool // a load: no from_offset, no source placement (fromOff 0)
	fromOff, toOff int64
}

// checker holds one Check.
type checker struct {
	prog  *workload.Program
	prof  *hw.Profile
	pl    *plan.Plan
	opt   Options
	rep   *Report
	model *model

	blockID map[string]int
	levelID map[string]int
	pin     []int // pinned level per block, -1 when free

	place []place
	xfer  []xfer
	// byBlock lists the placements of block b, sorted by from (ties in
	// document order), as byBlock[blockStart[b]:blockStart[b+1]]; xferBy
	// and xferStart the same for transfers, sorted by at.
	byBlock, blockStart []int
	xferBy, xferStart   []int

	// tiled is set by rule 1: every block's placements tile its lifetime,
	// so that every access has a level to be priced in.
	tiled bool

	// What FORMATS.md section 6 adds (timeline.go): resident marks the
	// constants whose single placement stays reserved over the whole run
	// (under a model with section 6's semantics only); occ are the
	// placements and reservations rule 4's sweep checks (overlap.go), and
	// reservedHits the overlaps it found that involve a reservation, for
	// rules 9 and 10 to report.
	resident     []bool
	occ          []occupant
	reservedHits [2]hits
}

// add records a violation of rule about block over timesteps [from, to].
func (c *checker) add(rule int, block string, from, to int, format string, args ...any) {
	if len(c.rep.Violations) >= c.opt.MaxViolations {
		c.rep.Omitted++
		return
	}
	c.rep.Violations = append(c.rep.Violations, Violation{Rule: rule, Block: block,
		Timesteps: [2]int{from, to}, Message: fmt.Sprintf(format, args...)})
}

// header checks that the plan is for this workload, profile and time unit,
// under a cost model this package knows.
func (c *checker) header() error {
	doc, pl := c.opt.Doc, c.pl
	if pl.Workload != c.prog.Name {
		return inputerr.New(doc, "", "plan is for workload %q, not %q", pl.Workload, c.prog.Name)
	}
	if pl.Hardware != c.prof.Name {
		return inputerr.New(doc, "", "plan is for hardware profile %q, not %q", pl.Hardware, c.prof.Name)
	}
	if pl.TimeUnit != c.prof.TimeUnit {
		return inputerr.New(doc, "", "time_unit %q does not match the profile's %q", pl.TimeUnit, c.prof.TimeUnit)
	}
	name := cmp.Or(pl.CostModel, DefaultModel)
	m, ok := lookupModel(name)
	if !ok {
		return inputerr.New(doc, "", "cost_model %q is not known (known: %s)", pl.CostModel, strings.Join(Models(), ", "))
	}
	c.model = m
	c.rep.Model = m.name
	return nil
}

// checkProfile checks what the rules depend on in the profile: unique
// level names (plans name levels), capacities and alignments > 0 (rule 3),
// finite latencies and bandwidths > 0 (rule 6), and under the timeline
// model a compute unit with a finite rate > 0 and overhead >= 0, and DMA
// channels >= 0 (0 is the default, 1).
func (c *checker) checkProfile() error {
	doc := fmt.Sprintf("hardware profile %q", c.prof.Name)
	if len(c.prof.Levels) == 0 {
		return inputerr.New(doc, "", "no levels")
	}
	c.levelID = make(map[string]int, len(c.prof.Levels))
	for l := range c.prof.Levels {
		lv := &c.prof.Levels[l]
		item := fmt.Sprintf("level %d %q", l, lv.Name)
		if j, dup := c.levelID[lv.Name]; dup {
			return inputerr.New(doc, item, "level name also used by level %d", j)
		}
		c.levelID[lv.Name] = l
		if lv.Capacity <= 0 {
			return inputerr.New(doc, item, "capacity %d: must be > 0 bytes", lv.Capacity)
		}
		if lv.Alignment <= 0 {
			return inputerr.New(doc, item, "alignment %d: must be > 0 bytes", lv.Alignment)
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"in.latency", lv.In.Latency}, {"in.bandwidth", lv.In.Bandwidth},
			{"out.latency", lv.Out.Latency}, {"out.bandwidth", lv.Out.Bandwidth}} {
			if !(f.v > 0) || math.IsInf(f.v, 0) {
				return inputerr.New(doc, item, "%s %v: must be a finite number > 0", f.name, f.v)
			}
		}
	}
	if cu := c.prof.Compute; cu != nil && c.model.timeline {
		if !(cu.MACsPerUnit > 0) || math.IsInf(cu.MACsPerUnit, 0) {
			return inputerr.New(doc, "", "compute.macs_per_unit %v: must be a finite number > 0", cu.MACsPerUnit)
		}
		if !(cu.OpOverhead >= 0) || math.IsInf(cu.OpOverhead, 0) {
			return inputerr.New(doc, "", "compute.op_overhead %v: must be a finite number >= 0", cu.OpOverhead)
		}
	}
	if c.prof.DMA.Channels < 0 {
		return inputerr.New(doc, "", "dma.channels %d: must be >= 1 (0: the default, 1)", c.prof.DMA.Channels)
	}
	return nil
}

// checkProgram checks what the rules depend on in the workload: unique
// block names (plans name blocks), sizes > 0 and align >= 0 (rule 3),
// known kinds (rule 4), lifetimes inside the program (rule 1), reads and
// writes inside the lifetime (rule 6 prices them where the block is), and
// pins to levels the profile has (rule 5). The rules of section 1 that no
// plan rule depends on (an output lives to the end, a constant has no
// writes, ...) are the workload reader's business.
func (c *checker) checkProgram() error {
	doc := fmt.Sprintf("workload %q", c.prog.Name)
	T := len(c.prog.Ops)
	if T == 0 {
		return inputerr.New(doc, "", "no ops")
	}
	for i := range c.prog.Ops {
		if c.prog.Ops[i].MACs < 0 {
			return inputerr.New(doc, fmt.Sprintf("op %d %q", i, c.prog.Ops[i].Name), "macs %d: must be >= 0", c.prog.Ops[i].MACs)
		}
	}
	c.blockID = make(map[string]int, len(c.prog.Blocks))
	c.pin = make([]int, len(c.prog.Blocks))
	for b := range c.prog.Blocks {
		blk := &c.prog.Blocks[b]
		item := blockItem(blk.Name)
		if j, dup := c.blockID[blk.Name]; dup {
			return inputerr.New(doc, item.String(), "block name also used by block %d", j)
		}
		c.blockID[blk.Name] = b
		if blk.Size <= 0 {
			return inputerr.New(doc, item.String(), "size %d: must be > 0 bytes", blk.Size)
		}
		if blk.Align < 0 {
			return inputerr.New(doc, item.String(), "align %d: must be > 0 bytes when given", blk.Align)
		}
		if int(blk.Kind) >= numKinds {
			return inputerr.New(doc, item.String(), "unknown kind %d", blk.Kind)
		}
		if blk.First < 0 || blk.Last < blk.First || blk.Last >= T {
			return inputerr.New(doc, item.String(), "lifetime [%d,%d]: want 0 <= first <= last < %d (the number of ops)", blk.First, blk.Last, T)
		}
		for _, acc := range []struct {
			name  string
			steps []int
		}{{"reads", blk.Reads}, {"writes", blk.Writes}} {
			for _, t := range acc.steps {
				if t < blk.First || t > blk.Last {
					return inputerr.New(doc, item.String(), "%s [%d] outside lifetime [%d,%d]", acc.name, t, blk.First, blk.Last)
				}
			}
		}
		c.pin[b] = -1
		if blk.Level != "" {
			l, ok := c.levelID[blk.Level]
			if !ok {
				return inputerr.New(doc, item.String(), "pinned to level %q, which hardware profile %q does not have", blk.Level, c.prof.Name)
			}
			c.pin[b] = l
		}
	}
	return nil
}

// index resolves the plan's block and level names to IDs and sorts the
// placements and transfers by block.
func (c *checker) index() error {
	doc := c.opt.Doc
	c.place = make([]place, len(c.pl.Placements))
	for i, pp := range c.pl.Placements {
		b, ok := c.blockID[pp.Block]
		if !ok {
			return inputerr.New(doc, fmt.Sprintf("placements[%d]", i), "block %q is not in workload %q", pp.Block, c.prog.Name)
		}
		l, ok := c.levelID[pp.Level]
		if !ok {
			return inputerr.New(doc, fmt.Sprintf("placements[%d]", i), "level %q is not in hardware profile %q", pp.Level, c.prof.Name)
		}
		a := alignment(&c.prog.Blocks[b], &c.prof.Levels[l])
		f, fok := footprint(c.prog.Blocks[b].Size, a)
		c.place[i] = place{b: b, l: l, from: pp.From, to: pp.To, off: pp.Offset, align: a, foot: f, footOK: fok}
	}
	c.xfer = make([]xfer, len(c.pl.Transfers))
	for i, x := range c.pl.Transfers {
		item := transferItem(i)
		b, ok := c.blockID[x.Block]
		if !ok {
			return inputerr.New(doc, item.String(), "block %q is not in workload %q", x.Block, c.prog.Name)
		}
		from, ok := c.levelID[x.FromLevel]
		if !ok {
			return inputerr.New(doc, item.String(), "level %q is not in hardware profile %q", x.FromLevel, c.prof.Name)
		}
		to, ok := c.levelID[x.ToLevel]
		if !ok {
			return inputerr.New(doc, item.String(), "level %q is not in hardware profile %q", x.ToLevel, c.prof.Name)
		}
		c.xfer[i] = xfer{b: b, from: from, to: to, at: x.At, start: x.Start, load: x.Load, fromOff: x.FromOffset, toOff: x.ToOffset}
	}
	nb := len(c.prog.Blocks)
	c.byBlock, c.blockStart = groupBy(len(c.place), nb,
		func(i int) int { return c.place[i].b },
		func(i, j int) int { return cmp.Compare(c.place[i].from, c.place[j].from) })
	c.xferBy, c.xferStart = groupBy(len(c.xfer), nb,
		func(i int) int { return c.xfer[i].b },
		func(i, j int) int { return cmp.Compare(c.xfer[i].at, c.xfer[j].at) })
	c.findResident()
	return nil
}

// groupBy sorts the items 0..n-1 by key (a counting sort over nk keys) and
// each key's items by less, ties in item order. It returns the items and,
// for each key k, where its items start (start[k]..start[k+1]).
func groupBy(n, nk int, key func(int) int, less func(i, j int) int) (items, start []int) {
	start = make([]int, nk+1)
	for i := 0; i < n; i++ {
		start[key(i)+1]++
	}
	for k := 0; k < nk; k++ {
		start[k+1] += start[k]
	}
	items = make([]int, n)
	next := slices.Clone(start[:nk])
	for i := 0; i < n; i++ {
		k := key(i)
		items[next[k]] = i
		next[k]++
	}
	for k := 0; k < nk; k++ {
		slices.SortStableFunc(items[start[k]:start[k+1]], less)
	}
	return items, start
}

// placesOf returns the placements of block b, sorted by from.
func (c *checker) placesOf(b int) []int { return c.byBlock[c.blockStart[b]:c.blockStart[b+1]] }

// xfersOf returns the transfers of block b, sorted by at.
func (c *checker) xfersOf(b int) []int { return c.xferBy[c.xferStart[b]:c.xferStart[b+1]] }

// blockItem names a block in errors, lazily: the name is formatted only
// when an error is.
type blockItem string

func (b blockItem) String() string { return fmt.Sprintf("block %q", string(b)) }

// transferItem names transfers[i] in errors.
type transferItem int

func (i transferItem) String() string { return fmt.Sprintf("transfers[%d]", int(i)) }

// span formats timesteps [from, to] for a message.
func span(from, to int) string {
	if from == to {
		return fmt.Sprintf("timestep %d", from)
	}
	return fmt.Sprintf("timesteps [%d,%d]", from, to)
}
