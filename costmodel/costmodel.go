// Package costmodel prices a layout: how long the program spends reading,
// writing and moving its data, given where every block is at every step.
//
// The default model, "seed003", is the formula of FORMATS.md section 4: a
// read of block b at t costs out(level of b at t, size b), a write costs
// in(level, size), a transfer costs out(from level) + in(to level), with
// in(L, d) = L.in.latency + d / L.in.bandwidth and out likewise. Constants
// are loaded before the program runs, so their first placement is free.
//
// Models are registered by name (Register, Lookup, Names) so that
// experiments can pick one and the command line can list them. Every model
// prices each block on its own (BlockCost): the cost of a layout is the sum
// over blocks in ID order. That is what lets the search re-price only the
// blocks an action changed.
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

// Model prices blocks. Implementations must be safe for concurrent use.
type Model interface {
	// Name is the registry name, e.g. "seed003".
	Name() string
	// Doc is a one-line description for listings.
	Doc() string
	// BlockCost returns the time block b spends on its accesses and
	// transfers when placed by segs.
	BlockCost(p *state.Problem, b int, segs []state.Seg) float64
	// Charges calls emit for each access and transfer of block b, in
	// timestep order; their times sum to BlockCost.
	Charges(p *state.Problem, b int, segs []state.Seg, emit func(Charge))
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
	for _, m := range []Model{Seed003{}, VelaDMA{}} {
		if err := Register(m); err != nil {
			panic(err)
		}
	}
}

// Total returns the cost of a complete layout: the sum of BlockCost over the
// blocks in ID order.
func Total(m Model, p *state.Problem, lay *state.Layout) float64 {
	var sum float64
	for b := range lay.Segs {
		sum += m.BlockCost(p, b, lay.Segs[b])
	}
	return sum
}
