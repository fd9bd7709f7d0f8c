package arena

import (
	"github.com/hieropt/hieropt/pack"
)

// TFLM is TensorFlow Lite Micro's runtime planner (its
// GreedyMemoryPlanner, pack.TFLM) as a single-arena planner: the arena a
// TFLM user gets when the model carries no offline plan. Blocks go by
// decreasing size, ties in decreasing input order, each at the first gap
// from offset 0 up between the placed blocks alive with it, else above
// them. On a workload imported from a .tflite (blocks in tensor order), in
// a level aligned to 16 bytes, it is the runtime's plan.
//
// TFLM places at sums of sizes and relies on every size being a multiple
// of its alignment (it rounds sizes up to 16 bytes). So that every offset
// respects every interval's Align, the greedy runs on sizes rounded up to
// a multiple of every alignment among the intervals (pack.TFLMAligned).
// The arena's peak is taken with the real sizes (Peak), as Place reports
// it. Where the rounded sizes overflow an int64 (alignments whose least
// common multiple is that large) there is no such arena: Offsets returns
// nil, and Place says that the arena fits no level.
type TFLM struct{}

var _ Planner = TFLM{}

// Name implements Planner.
func (TFLM) Name() string { return "tflm" }

// Doc implements Planner.
func (TFLM) Doc() string {
	return "TFLite Micro's runtime planner (GreedyMemoryPlanner): by decreasing size (ties in decreasing block order), each at the first gap from offset 0 between the placed blocks alive with it, else on top; sizes rounded up to the blocks' alignment"
}

// Offsets implements Planner.
func (TFLM) Offsets(iv []Interval) []int64 {
	if len(iv) == 0 {
		return nil
	}
	p := &pack.Problem{Buffers: make([]pack.Buffer, len(iv))}
	for i, x := range iv {
		// Inclusive [First, Last] is the buffer's [First, Last+1).
		p.Buffers[i] = pack.Buffer{Lower: int64(x.First), Upper: int64(x.Last) + 1, Size: x.Size, Align: x.Align}
	}
	off, _, err := pack.TFLMAligned(p, nil)
	if err != nil {
		return nil
	}
	return off
}
