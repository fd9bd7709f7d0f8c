package verify

import (
	"cmp"
	"math"
	"sort"
	"strconv"

	"github.com/hieropt/hieropt/hw"
)

// DefaultModel is the cost model of a plan that names none (FORMATS.md
// section 4).
const DefaultModel = "seed003"

// TimelineModel is the name of the timeline model of FORMATS.md section 6.
const TimelineModel = "timeline"

// model is a cost model: its name in plans ("cost_model") and the cost it
// gives a plan whose placements tile every lifetime.
type model struct {
	name string
	doc  string
	cost func(c *checker) float64
	// timeline says the model has the semantics of FORMATS.md section 6:
	// copies issued before their timestep (start), loads of constants and
	// resident constants. Under the other models a plan has none of them
	// (rule 10).
	timeline bool
}

// models are the cost models hieropt registers, each recomputed here from
// its formula. The timeline model of FORMATS.md section 6 goes in as a
// further entry.
var models = []model{
	{DefaultModel, "FORMATS.md section 4: a read pays out(level) = out.latency + d/out.bandwidth, " +
		"a write in(level), a transfer out(from level) + in(to level)",
		func(c *checker) float64 { return c.accessesAndTransfers(seed003Transfer) }, false},
	{"vela-dma", "as seed003, but a transfer costs max(out.latency + d/out.bandwidth of the source, " +
		"d/in.bandwidth of the destination), as Arm Vela prices a DMA",
		func(c *checker) float64 { return c.accessesAndTransfers(velaTransfer) }, false},
	{TimelineModel, "FORMATS.md section 6.3: ops on one compute unit, each taking max(compute, its accesses), " +
		"copies and loads on dma.channels channels from their start; the cost is when the last op ends",
		(*checker).timelineCost, true},
}

// Models returns the names of the cost models Check knows, sorted.
func Models() []string {
	names := make([]string, len(models))
	for i := range models {
		names[i] = models[i].name
	}
	sort.Strings(names)
	return names
}

func lookupModel(name string) (*model, bool) {
	for i := range models {
		if models[i].name == name {
			return &models[i], true
		}
	}
	return nil, false
}

// in and out are the two sides of a level (FORMATS.md section 4):
// writing d bytes into it, reading d bytes out of it.
func in(lv *hw.Level, d int64) float64  { return lv.In.Latency + float64(d)/lv.In.Bandwidth }
func out(lv *hw.Level, d int64) float64 { return lv.Out.Latency + float64(d)/lv.Out.Bandwidth }

func seed003Transfer(from, to *hw.Level, d int64) float64 { return out(from, d) + in(to, d) }

// velaTransfer is a DMA as Arm's Vela prices it: the source's read latency,
// then the slower of the two sides streaming d bytes (the reads and writes
// overlap).
func velaTransfer(from, to *hw.Level, d int64) float64 {
	return max(out(from, d), float64(d)/to.In.Bandwidth)
}

// accessesAndTransfers is the sum over blocks of: each read at t priced
// out(level of the block at t, size), each write in(level at t, size), and
// each of the plan's transfers priced by transfer. The terms are summed in
// block order with compensated summation.
func (c *checker) accessesAndTransfers(transfer func(from, to *hw.Level, d int64) float64) float64 {
	levels := c.prof.Levels
	var sum neumaier
	for b := range c.prog.Blocks {
		blk := &c.prog.Blocks[b]
		d := blk.Size
		for _, t := range blk.Reads {
			sum.add(out(&levels[c.levelAt(b, t)], d))
		}
		for _, t := range blk.Writes {
			sum.add(in(&levels[c.levelAt(b, t)], d))
		}
		for _, j := range c.xfersOf(b) {
			x := &c.xfer[j]
			sum.add(transfer(&levels[x.from], &levels[x.to], d))
		}
	}
	return sum.total()
}

// levelAt returns the level of block b at timestep t of its life; the
// block's placements tile its lifetime (rule 1 holds).
func (c *checker) levelAt(b, t int) int {
	idx := c.placesOf(b)
	k := sort.Search(len(idx), func(k int) bool { return c.place[idx[k]].from > t }) - 1
	if k < 0 || c.place[idx[k]].to < t {
		panic("verify: a tiled block has no placement at a timestep of its life")
	}
	return c.place[idx[k]].l
}

// neumaier is a compensated sum (Neumaier's variant of Kahan summation):
// the error does not grow with the number of terms.
type neumaier struct{ s, comp float64 }

func (n *neumaier) add(x float64) {
	t := n.s + x
	if math.Abs(n.s) >= math.Abs(x) {
		n.comp += (n.s - t) + x
	} else {
		n.comp += (x - t) + n.s
	}
	n.s = t
}

func (n *neumaier) total() float64 { return n.s + n.comp }

// costs is rule 6: cost.final is the cost recomputed under the plan's
// model, and cost.initial what Options.Initial says, each to a relative
// RelTolerance.
func (c *checker) costs() {
	last := len(c.prog.Ops) - 1
	stated := c.pl.Cost
	if c.tiled {
		c.rep.Cost = c.model.cost(c)
		if !costEqual(stated.Final, c.rep.Cost) {
			c.add(6, "", 0, last, "cost.final %s differs from the recomputed cost %s (%s model)", num(stated.Final), num(c.rep.Cost), c.model.name)
		}
	} else {
		c.add(6, "", 0, last, "cost.final %s cannot be checked: the placements do not tile the lifetimes", num(stated.Final))
	}
	if c.opt.Initial == nil {
		return
	}
	initial, of, err := c.opt.Initial()
	if err != nil {
		c.add(6, "", 0, last, "cost.initial %s cannot be checked: %v", num(stated.Initial), err)
		return
	}
	c.rep.InitialCost = initial
	if !costEqual(stated.Initial, initial) {
		c.add(6, "", 0, last, "cost.initial %s differs from the cost %s of %s", num(stated.Initial), num(initial), cmp.Or(of, "the initializer's plan"))
	}
}

// costEqual reports whether stated is recomputed to a relative
// RelTolerance.
func costEqual(stated, recomputed float64) bool {
	d := math.Abs(stated - recomputed)
	return d == 0 || d <= RelTolerance*math.Abs(recomputed)
}

// num formats a cost with every digit a float64 holds.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
