package tflm

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/hieropt/hieropt/importer/tflite"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/workload"
)

// Exported is an offline plan taken from a hieropt plan.
type Exported struct {
	Offsets []int32
	// Level is the plan's level that holds the arena's tensors.
	Level string
	// Constants counts the constants the plan places in Level at some
	// timestep: TFLM reads them where the model holds them, so their
	// space in the arena stays unused.
	Constants int
}

// FromPlan takes the offline plan out of pl, a plan of the workload w
// that 'hieropt import tflite' made of this model: every tensor TFLM
// places (a block that is not a constant) must sit in one level at one
// offset for its whole life, all of them in the same level; their offsets
// there are the offline offsets. w must be the model's workload: its
// blocks carry the tensors' indexes, sizes and lifetimes as the importer
// derives them from this model. A variable is placed offline too (the
// plan holds it for the whole run). Tensors without a block get Online.
func (m *Model) FromPlan(w *workload.Program, pl *plan.Plan) (*Exported, error) {
	mine, err := tflite.Import(m.File, m.data, tflite.Options{})
	if err != nil {
		return nil, err
	}
	byTensor := map[int]*workload.Block{}
	for i := range w.Blocks {
		b := &w.Blocks[i]
		if b.Tensor == nil {
			return nil, fmt.Errorf("workload %s: block %s has no tensor index: not a workload of a TFLite model (hieropt import tflite)", w.Name, b.Name)
		}
		byTensor[*b.Tensor] = b
	}
	if len(byTensor) != len(mine.Blocks) {
		return nil, fmt.Errorf("workload %s has %d tensor blocks, model %s %d: not this model's workload", w.Name, len(byTensor), m.File, len(mine.Blocks))
	}
	for _, want := range mine.Blocks {
		got, ok := byTensor[*want.Tensor]
		if !ok || got.Size != want.Size || got.First != want.First || got.Last != want.Last || got.Kind != want.Kind {
			return nil, fmt.Errorf("workload %s does not match model %s at tensor %d (%s): want %s of %d B alive at timesteps %d-%d", w.Name, m.File, *want.Tensor, want.Name, want.Kind, want.Size, want.First, want.Last)
		}
	}
	places := map[string][]plan.Placement{}
	for _, x := range pl.Placements {
		places[x.Block] = append(places[x.Block], x)
	}
	e := &Exported{Offsets: make([]int32, len(m.Tensors))}
	for i := range e.Offsets {
		e.Offsets[i] = Online
	}
	var first string // the block that set e.Level
	for i := range w.Blocks {
		b := &w.Blocks[i]
		xs := places[b.Name]
		if b.Kind == workload.Constant {
			continue
		}
		if len(xs) != 1 {
			return nil, fmt.Errorf("block %s (tensor %d) has %d placements: TFLM keeps a tensor at one offset of its arena for its whole life", b.Name, *b.Tensor, len(xs))
		}
		x := xs[0]
		if e.Level == "" {
			e.Level, first = x.Level, b.Name
		} else if x.Level != e.Level {
			return nil, fmt.Errorf("blocks in two levels: %s in %s, %s in %s: TFLM's arena is one memory", first, e.Level, b.Name, x.Level)
		}
		if x.Offset > math.MaxInt32 {
			return nil, fmt.Errorf("block %s (tensor %d): offset %d does not fit TFLM's int32 offsets", b.Name, *b.Tensor, x.Offset)
		}
		e.Offsets[*b.Tensor] = int32(x.Offset)
	}
	for i := range w.Blocks {
		b := &w.Blocks[i]
		if b.Kind != workload.Constant {
			continue
		}
		for _, x := range places[b.Name] {
			if x.Level == e.Level {
				e.Constants++
				break
			}
		}
	}
	return e, nil
}

// Compact returns offline offsets with the offline tensors of offsets
// moved down as far as they go in the order of their offsets (ties in
// tensor order): each sits on the highest of the tensors placed before it
// that are alive with it, or at 0. Tensors alive at a common scope keep
// their order in the arena, so the plan stays valid; an in-place pair at
// one offset stays at one offset where the tensors below allow. A plan
// made for a memory of several levels leaves gaps in the level that holds
// the arena (constants it copied there, buffers of other timesteps): in a
// TFLM arena those bytes would be lost.
func (m *Model) Compact(offsets []int32) []int32 {
	out := make([]int32, len(offsets))
	copy(out, offsets)
	var off []int
	for i, t := range m.Tensors {
		if o := offsets[i]; o != Online && t.Planned(o) {
			off = append(off, i)
		}
	}
	slices.SortStableFunc(off, func(a, b int) int { return cmp.Compare(offsets[a], offsets[b]) })
	life := m.lifeFunc()
	for x, t := range off {
		ft, lt := life(t)
		var lo int64
		partner := -1
		for _, u := range off[:x] {
			fu, lu := life(u)
			if ft > lu || fu > lt {
				continue
			}
			if partner < 0 && m.inPlace(u, t, int64(offsets[u]), int64(offsets[t])) {
				partner = u
				continue
			}
			lo = max(lo, int64(out[u])+m.Tensors[u].Size())
		}
		if partner >= 0 {
			if p := int64(out[partner]); lo <= p {
				lo = p
			} else {
				lo = max(lo, p+m.Tensors[partner].Size())
			}
		}
		out[t] = int32(lo)
	}
	return out
}
