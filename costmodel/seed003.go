package costmodel

import (
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
)

// Seed003 is the latency/bandwidth model of seed 003 (FORMATS.md section 4).
type Seed003 struct{}

var _ Separable = Seed003{}

// Name implements Model.
func (Seed003) Name() string { return "seed003" }

// Timeline implements Model: the seed model has no copy starts, loads or
// residents.
func (Seed003) Timeline() bool { return false }

// Separable implements Separable.
func (Seed003) Separable() {}

// Price implements Model.
func (m Seed003) Price(p *state.Problem, v state.View) Pricer { return priceSum(m, p, v) }

// Doc implements Model.
func (Seed003) Doc() string {
	return "seed 003: each read/write pays latency + bytes/bandwidth of its level; a transfer pays out of the old level plus into the new one"
}

// BlockCost implements Model.
func (m Seed003) BlockCost(p *state.Problem, b int, segs []state.Seg) float64 {
	return accessCost(p, b, segs) + transfersCost(p, b, segs, seed003Transfer)
}

// Charges implements Model.
func (m Seed003) Charges(p *state.Problem, b int, segs []state.Seg, emit func(Charge)) {
	charges(p, b, segs, emit, func(from, to *hw.Level, d int64) (float64, float64) {
		return from.Out.Time(d), to.In.Time(d)
	})
}

func seed003Transfer(from, to *hw.Level, d int64) float64 {
	return from.Out.Time(d) + to.In.Time(d)
}

// accessCost is the reads and writes part shared by the models: reads pay
// out(level at t), writes in(level at t).
func accessCost(p *state.Problem, b int, segs []state.Seg) float64 {
	blk := p.Block(b)
	levels := p.HW.Levels
	d := blk.Size
	var sum float64
	i := 0
	for _, t := range blk.Reads {
		for i+1 < len(segs) && int(segs[i+1].From) <= t {
			i++
		}
		sum += levels[segs[i].Level].Out.Time(d)
	}
	i = 0
	for _, t := range blk.Writes {
		for i+1 < len(segs) && int(segs[i+1].From) <= t {
			i++
		}
		sum += levels[segs[i].Level].In.Time(d)
	}
	return sum
}

func transfersCost(p *state.Problem, b int, segs []state.Seg, price func(from, to *hw.Level, d int64) float64) float64 {
	var sum float64
	levels := p.HW.Levels
	d := p.Block(b).Size
	for i := 1; i < len(segs); i++ {
		sum += price(&levels[segs[i-1].Level], &levels[segs[i].Level], d)
	}
	return sum
}

// charges emits the accesses and transfers of block b in timestep order.
// price splits a transfer's time into its out and in parts.
func charges(p *state.Problem, b int, segs []state.Seg, emit func(Charge), price func(from, to *hw.Level, d int64) (out, in float64)) {
	blk := p.Block(b)
	levels := p.HW.Levels
	d := blk.Size
	ri, wi, si := 0, 0, 1
	cur := 0
	for {
		// The next event: a transfer at segs[si].From comes before the
		// accesses of that timestep (the op sees the block where it moved).
		next := -1
		if si < len(segs) {
			next = int(segs[si].From)
		}
		rt, wt := -1, -1
		if ri < len(blk.Reads) {
			rt = blk.Reads[ri]
		}
		if wi < len(blk.Writes) {
			wt = blk.Writes[wi]
		}
		t := minPositive(next, rt, wt)
		if t < 0 {
			return
		}
		if t == next {
			from, to := segs[si-1].Level, segs[si].Level
			out, in := price(&levels[from], &levels[to], d)
			emit(Charge{Timestep: t, Level: int(from), Kind: TransferOut, Bytes: d, Time: out})
			emit(Charge{Timestep: t, Level: int(to), Kind: TransferIn, Bytes: d, Time: in})
			cur = si
			si++
			continue
		}
		if t == rt {
			emit(Charge{Timestep: t, Level: int(segs[cur].Level), Kind: Read, Bytes: d, Time: levels[segs[cur].Level].Out.Time(d)})
			ri++
		}
		if t == wt {
			emit(Charge{Timestep: t, Level: int(segs[cur].Level), Kind: Write, Bytes: d, Time: levels[segs[cur].Level].In.Time(d)})
			wi++
		}
	}
}

// minPositive returns the smallest non-negative argument, or -1.
func minPositive(vs ...int) int {
	m := -1
	for _, v := range vs {
		if v >= 0 && (m < 0 || v < m) {
			m = v
		}
	}
	return m
}
