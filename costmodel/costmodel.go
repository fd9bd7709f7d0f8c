// Package costmodel prices a layout: how long the program spends reading,
// writing and moving its data, given where every block is at every step.
//
// The default model, "seed003", is the formula of FORMATS.md section 4: a
// read of block b at t costs out(level of b at t, size b), a write costs
// in(level, size), a transfer costs out(from level) + in(to level), with
// in(L, d) = L.in.latency + d / L.in.bandwidth and out likewise. Constants
// are loaded before the program runs, so their first placement is free.
// "vela-dma" prices a transfer as Arm's Vela does. Both are Separable:
// they price each block on its own (BlockCost), and the cost of a layout
// is the sum over blocks in ID order, which is what lets the search
// re-price only the blocks an action changed.
//
// "timeline" is the model of FORMATS.md section 6: ops on one compute
// unit, each lasting the longer of its compute and its own accesses,
// copies and loads on the DMA channels from their starts, the cost the
// time the last op ends (package costmodel/timeline simulates it). A
// stall moves every later op, so the cost is no sum over blocks; its
// Pricer re-prices a change incrementally from checkpoints instead.
//
// Every model gives a Pricer of a layout (Price): its cost, the cost of
// the layout with some blocks' segments replaced (Reprice), the pricer of
// that changed layout (Derive), and each op's duration (Dur). Total is
// the cost of a layout under any model. Models are registered by name
// (Register, Lookup, Names) so that experiments can pick one and the
// command line can list them.
package costmodel

import (
	"github.com/hieropt/hieropt/internal/registry"
	"github.com/hieropt/hieropt/state"
)

// ChargeKind says what a charge pays for.
type ChargeKind uint8

// The kinds of charges.
const (
	Read        ChargeKind = iota // an op reads the block out of its level
	Write                         // an op writes the block into its level
	TransferOut                   // a transfer reads the block out of its old level
	TransferIn                    // a transfer writes the block into its new level
)

var chargeNames = [...]string{"read", "write", "transfer-out", "transfer-in"}

func (k ChargeKind) String() string { return chargeNames[k] }

// Charge is one priced access of one block.
type Charge struct {
	Timestep int
	Level    int
	Kind     ChargeKind
	Bytes    int64
	Time     float64
}

// Model prices layouts. Implementations must be safe for concurrent use.
type Model interface {
	// Name is the registry name, e.g. "seed003".
	Name() string
	// Doc is a one-line description for listings.
	Doc() string
	// Timeline reports whether the model has the semantics of FORMATS.md
	// section 6: plans carry copy starts, loads and resident constants
	// (bind the problem with state.Semantics{Timeline: true}).
	Timeline() bool
	// Price returns the pricer of v, a complete layout of p. v must read
	// the same for as long as the pricer is used.
	Price(p *state.Problem, v state.View) Pricer
	// BlockCost returns the time block b spends on its accesses and
	// transfers (and, under the timeline model, its load) when placed
	// by segs: for a Separable model its share of the cost, for another
	// its work, which the cost overlaps (a heuristic's measure, never
	// the cost).
	BlockCost(p *state.Problem, b int, segs []state.Seg) float64
	// Charges calls emit for each access and transfer of block b, in
	// timestep order; their times sum to BlockCost.
	Charges(p *state.Problem, b int, segs []state.Seg, emit func(Charge))
}

// Separable is a model whose cost is the sum of BlockCost over the
// blocks, in ID order: seed003 and vela-dma. The search re-prices a
// candidate under one by the blocks it changed, as the seed does.
type Separable interface {
	Model
	// Separable marks the model; it does nothing.
	Separable()
}

// Pricer prices one layout and the layouts that differ from it in a few
// blocks. A Pricer is immutable: Reprice and Derive may run concurrently,
// each Reprice with its own Scratch.
type Pricer interface {
	// Cost is the layout's cost, as Total gives it.
	Cost() float64
	// Reprice returns the cost of the layout with each changed block's
	// segments replaced (ch lists every block that differs, each once,
	// with its segments in the priced layout as Old).
	Reprice(ch []BlockChange, sc *Scratch) float64
	// Derive returns the pricer of the changed layout, which v reads as
	// (v must keep reading so while the new pricer is used).
	Derive(v state.View, ch []BlockChange) Pricer
	// Dur is op t's duration in the layout: under the timeline model
	// d(t) = max(c(t), m(t)); under a separable one the time of its
	// accesses, m(t).
	Dur(t int) float64
}

// BlockChange is a block whose segments change from Old to New.
type BlockChange struct {
	Block    int
	Old, New []state.Seg
}

// models is the registry of cost models.
var models = registry.New[Model]("costmodel: model")

// Default is the name of the model plans report unless they name another.
const Default = "seed003"

// Register adds a model to the registry; a duplicate or empty name is an
// error.
func Register(m Model) error { return models.Register(m) }

// Lookup returns the model registered under name.
func Lookup(name string) (Model, bool) { return models.Lookup(name) }

// Names returns the registered model names, sorted.
func Names() []string { return models.Names() }

// Models returns the registered models, sorted by name (for listings).
func Models() []Model { return models.Entries() }

func init() {
	for _, m := range []Model{Seed003{}, VelaDMA{}, Timeline{}} {
		if err := Register(m); err != nil {
			panic(err)
		}
	}
}

// Total returns the cost of a complete layout: for a Separable model the
// sum of BlockCost over the blocks in ID order, for another its Pricer's
// cost.
func Total(m Model, p *state.Problem, lay *state.Layout) float64 {
	if _, ok := m.(Separable); !ok {
		return m.Price(p, lay).Cost()
	}
	var sum float64
	for b := range lay.Segs {
		sum += m.BlockCost(p, b, lay.Segs[b])
	}
	return sum
}
