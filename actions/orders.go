package actions

import "github.com/hieropt/hieropt/internal/registry"

// Name is the order's registered name: "workload", "kind", "resident",
// "resident-half", "resident-levels" or "bound".
func (o Order) Name() string { return o.String() }

// Doc is a one-line description of the order, for listings.
func (o Order) Doc() string {
	switch o {
	case KindOrder:
		return "scratch blocks first, then activations, outputs and inputs, then constants (weights fill what the program's own data leaves)"
	case ResidentOrder:
		return "timeline model: constants resident in the fastest level (no load), by saving per byte, in the room the other blocks' max-live leaves; then the kind order"
	case ResidentHalfOrder:
		return "timeline model: as resident, in half that room"
	case ResidentLevelsOrder:
		return "timeline model: constants resident in every writable level faster than their home, fastest first, by saving per byte, in the room the other blocks leave there once the faster levels are full; then the kind order"
	case BoundOrder:
		return "seed model: the kind order, each block placed first in the level where the whole-program bound's cheapest path puts it at its first timestep, then slower, then faster levels"
	}
	return "the workload's block order: the seed's literal reading, and the plan cost.initial prices"
}

// orders is the registry of initializer orders.
var orders = registry.New[Order]("actions: initializer order")

func init() {
	orders.MustRegister(WorkloadOrder, KindOrder, ResidentOrder, ResidentHalfOrder, BoundOrder, ResidentLevelsOrder)
}

// LookupOrder returns the initializer order registered under name.
func LookupOrder(name string) (Order, bool) { return orders.Lookup(name) }

// OrderNames returns the registered initializer orders' names, sorted.
func OrderNames() []string { return orders.Names() }

// Orders returns the registered initializer orders, sorted by name (for
// listings).
func Orders() []Order { return orders.Entries() }
