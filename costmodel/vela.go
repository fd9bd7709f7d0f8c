package costmodel

import (
	"math"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
)

// VelaDMA prices reads and writes as seed003 does, but a transfer the way
// Arm's Vela compiler prices a DMA (npu_performance.py): the source's read
// latency plus the slower of the two sides' streaming times,
// max(out.latency + d/out.bandwidth, d/in.bandwidth). It is less
// pessimistic than summing both sides, as real DMAs overlap their reads and
// writes.
type VelaDMA struct{}

var _ Separable = VelaDMA{}

// Name implements Model.
func (VelaDMA) Name() string { return "vela-dma" }

// Timeline implements Model.
func (VelaDMA) Timeline() bool { return false }

// Separable implements Separable.
func (VelaDMA) Separable() {}

// Price implements Model.
func (m VelaDMA) Price(p *state.Problem, v state.View) Pricer { return priceSum(m, p, v) }

// Doc implements Model.
func (VelaDMA) Doc() string {
	return "as seed003, but a transfer costs max(source latency + bytes/source bandwidth, bytes/destination bandwidth), as Arm Vela prices a DMA"
}

func velaTransfer(from, to *hw.Level, d int64) float64 {
	return math.Max(from.Out.Time(d), float64(d)/to.In.Bandwidth)
}

// BlockCost implements Model.
func (VelaDMA) BlockCost(p *state.Problem, b int, segs []state.Seg) float64 {
	return accessCost(p, b, segs) + transfersCost(p, b, segs, velaTransfer)
}

// Charges implements Model. The whole transfer time is charged to the
// source level (transfer-out); the transfer-in charge carries the bytes at
// no time.
func (VelaDMA) Charges(p *state.Problem, b int, segs []state.Seg, emit func(Charge)) {
	charges(p, b, segs, emit, func(from, to *hw.Level, d int64) (float64, float64) {
		return velaTransfer(from, to, d), 0
	})
}
