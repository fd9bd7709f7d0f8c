package costmodel

import (
	"github.com/hieropt/hieropt/costmodel/timeline"
	"github.com/hieropt/hieropt/state"
)

// Scratch holds the buffers of Reprice, so that repeated calls allocate
// little once they have grown. The zero value is ready; a Scratch is not
// safe for concurrent use.
type Scratch struct {
	tl     timeline.Scratch
	change timeline.Change
	ts     []int
	olds   []timeline.Copy
	news   []timeline.Copy
}

// sumPricer is the Pricer of a Separable model: the cost is the sum of
// BlockCost, and a change adds each changed block's difference.
type sumPricer struct {
	m    Model
	p    *state.Problem
	v    state.View
	cost float64
}

// priceSum is Price for a Separable model m: the sum of BlockCost over
// v's blocks in ID order, as Total sums it.
func priceSum(m Model, p *state.Problem, v state.View) Pricer {
	var sum float64
	for b := range p.Blocks() {
		sum += m.BlockCost(p, b, v.BlockSegs(b))
	}
	return &sumPricer{m: m, p: p, v: v, cost: sum}
}

func (sp *sumPricer) Cost() float64 { return sp.cost }

func (sp *sumPricer) Reprice(ch []BlockChange, _ *Scratch) float64 {
	c := sp.cost
	for _, x := range ch {
		c += sp.m.BlockCost(sp.p, x.Block, x.New) - sp.m.BlockCost(sp.p, x.Block, x.Old)
	}
	return c
}

func (sp *sumPricer) Derive(v state.View, ch []BlockChange) Pricer {
	return &sumPricer{m: sp.m, p: sp.p, v: v, cost: sp.Reprice(ch, nil)}
}

func (sp *sumPricer) Dur(t int) float64 {
	return memoryAt(sp.p, t, func(b int) []state.Seg { return sp.v.BlockSegs(b) })
}

// memoryAt is m(t) of FORMATS.md 6.3: the reads of op t priced out(level
// of the block at t, size), its writes in(level, size), summed over the
// blocks it accesses in ID order, a block's read before its write. segs
// gives each block's segments. The whole-layout sum (program) adds the
// same terms in the same order, so the two agree to the bit.
func memoryAt(p *state.Problem, t int, segs func(b int) []state.Seg) float64 {
	levels := p.HW.Levels
	m := 0.0
	for _, bi := range p.Accessed(t) {
		b := int(bi)
		blk := p.Block(b)
		read, written := hasStep(blk.Reads, t), hasStep(blk.Writes, t)
		if !read && !written {
			continue // a scratch block at its first timestep, not accessed
		}
		lv := &levels[state.SegAt(segs(b), t).Level]
		if read {
			m += lv.Out.Time(blk.Size)
		}
		if written {
			m += lv.In.Time(blk.Size)
		}
	}
	return m
}

// hasStep reports whether the sorted steps hold t.
func hasStep(steps []int, t int) bool {
	lo, hi := 0, len(steps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if steps[m] < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(steps) && steps[lo] == t
}
