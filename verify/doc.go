// Package verify is the independent checker of plan documents: it checks a
// plan ("hieropt.plan/v1", FORMATS.md section 3) against the workload and the
// hardware profile it is for, rule by rule, and recomputes its cost.
//
// # What it checks
//
// Check takes the workload, the profile and the plan as plain data and
// reports every violation of the rules of FORMATS.md section 3 and of
// section 6.2 (the timeline model), as settled in docs/FORMATS.md 6.4:
//
//  1. each block's placements tile its lifetime [first, last] exactly;
//  2. consecutive placements of a block differ, and at each boundary there
//     is exactly one transfer of that block, with matching levels and
//     offsets; there are no other transfers;
//  3. an offset is a non-negative multiple of the effective alignment (the
//     larger of the level's alignment and the block's align), and
//     offset + footprint <= capacity, the footprint being the size rounded
//     up to the effective alignment;
//  4. two placements in one level that share a timestep share no address,
//     except where a block created at t takes over, at the same offset, the
//     space of a reusable block that ends at t and the kind rule of section
//     1 allows it (the pair is judged alone: what the new block's range
//     holds besides is judged pair by pair like any other);
//  5. a pinned block stays in its level;
//  6. cost.final is the cost of the plan under its cost model (section 4,
//     or another model the plan names), to a relative 1e-9; and
//     cost.initial, when the caller says how to compute it
//     (Options.Initial), is that cost;
//  7. (every model) only constants are placed in a read-only level;
//  8. a transfer's start lies in [0, at]; a copy between placements starts
//     no earlier than its source placement, and the block is not written
//     in [start, at-1];
//  9. a copy's (or a load's) destination is reserved over [start, at-1]:
//     it shares no address with any other placement or reservation, the
//     block's own source placement included, and allows no reuse;
//  10. a constant first placed outside its home level has exactly one
//     load, matching that placement, or is resident (no load, one
//     placement, its range reserved over the whole run); one in its home
//     has no load; under any model but the timeline there are no loads
//     and every start is at.
//
// Each violation names the rule, the block and the timesteps (Violation).
// An error, an *inputerr.Error, means the plan cannot be read against this
// workload and profile at all: a plan for another workload, profile or time
// unit, naming a block or level they do not have or an unknown cost model;
// or a workload or profile broken in a way the rules depend on (a lifetime
// outside the program, two blocks of one name, a level with no capacity).
//
// # Why it is independent
//
// A checker that shares its helpers with the planner it checks shares its
// bugs: a footprint rounded down by the planner's footprint function, or a
// kind rule that lets a scratch block take another scratch block's space,
// gives plans that break the format and a checker that accepts them, since
// both ask the same function. So this package imports nothing of the
// planner (state, actions, costmodel, search, repack, arena, pack,
// segments), not even through the documents it reads (TestDependencies
// runs `go list -deps` to hold it to that), and none of workload's
// helpers (CanReuse, Validate): it reads the fields of workload.Program,
// hw.Profile and plan.Plan as plain data (TestIndependence reads this
// package's source for that too) and has its own footprint and alignment
// arithmetic (footprint.go), its own kind rule (a table written from the
// text of FORMATS.md section 1, kind.go) and its own code for every cost
// model hieropt registers (cost.go): "seed003" (section 4), "vela-dma"
// (a transfer costs max(source out.latency + d/source out.bandwidth,
// d/destination in.bandwidth)) and "timeline" (section 6.3, its
// simulation transcribed in timeline.go, owing nothing to the planner's
// engine in costmodel/timeline; it knows the model before the planner
// registers it). The one thing it cannot recompute on its
// own is cost.initial, the cost of the plan the initializer alone would
// make: that is the planner's own output, so the caller passes a function
// that computes it (Options.Initial; hieropt's is actions.VerifyInitial).
//
// The tests plant in the planner's plans what a footprint bug and a kind
// rule bug would produce and show that Check rejects them; and the tests of
// the rules themselves fail if this package's own footprint or kind rule is
// wrong.
//
// Compilers that apply hieropt's plans should run Check on every plan before
// they apply it: it is the contract between the planner and its users.
//
// # How
//
// The rules are a table of functions (rules), run in order; the cost
// models a table by name (models). Rule 4 is a sweep over time per level:
// the placements of a level sorted by start (under the timeline model with
// the reservations of rules 9 and 10 among them, as placements that allow
// no reuse, whose overlaps those rules report), and an index over addresses
// (a max-end segment tree over the level's placements in offset order)
// that finds the live placements overlapping a new one in O(log n), and
// O(log n) more per placement found: a plan of 200,000 blocks takes about
// a quarter of a second (BenchmarkCheck), and a plan broken everywhere
// still gives every pair.
// Costs are summed with compensated (Neumaier) summation in block order
// (the timeline's per-op access times too; its clock R is a plain sum, as
// the text writes it).
package verify
