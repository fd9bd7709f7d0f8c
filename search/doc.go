// Package search is hieropt's optimizer: seed 003's hierarchical search
// over move, swap and reuse actions, with re-planning and local-optimal
// segments. Walk is the walk from a start plan; hieropt.Plan, the entry
// point for compilers, chooses the start, walks, and repacks.
//
// The files follow the ideas: settings.go (Settings and their defaults),
// result.go (Result, Stats, Status), walk.go (Walk and the walk over the
// timesteps, step by step: act, keep the beam, end a segment, commit,
// advance), expand.go (a timestep's candidates: enumerated, evaluated by
// re-planning, on the workers), pool.go (the workers).
//
// # The algorithm
//
// The initializer (package actions) gives a first plan: each timestep's new
// blocks placed level by level, fastest first, best fit. It is greedy and
// blind to the future: a block that grabs the fast level now may push a
// more important block out of it later. The search repairs that. Where
// the initializer cannot place a block at all, the first plan is the
// fallback plan (actions.FallbackPlan: the levels packed by the exact
// packer at their capacities); the walk re-plans with the initializer all
// the same, drops the candidates whose re-planning cannot place a block,
// and keeps the fallback plan until it finds a cheaper one. Which plan the
// walk starts from, and which initializer re-plans, is Walk's Start
// (hieropt.Plan starts from the cheaper of the initializer's plans in
// workload and kind order).
//
// It visits the timesteps in execution order. At timestep t it takes each
// block of the timestep (the blocks the op reads, writes or creates; at
// timestep 0 that includes every constant, whose first placement is decided
// there) and tries each action of the set on it:
//
//   - move: another free position in the same level;
//   - swap: a free position in another level, faster or slower;
//   - reuse: the space of a reusable block that ends at t, when the kind
//     rule of FORMATS.md allows it.
//
// Each way an action succeeds (each free gap that holds the block, at the
// boundary the initializer would choose and at the opposite one; each
// reusable block) is a candidate. For a block created before t the
// candidate is a transfer at t, which the cost model charges; at the
// block's first timestep it only changes where the block is first put.
// After each candidate the initializer re-plans every later timestep from
// the changed state, and the candidate is priced in full.
//
// Timesteps are grouped into local-optimal segments (package segments).
// Inside a segment the search keeps a beam of states, cheapest first, and
// expands every one of them at the next timestep, so that actions are
// weighed in combination; a state with no action at t stays in the beam
// beside its children. At the segment's last timestep the cheapest state is
// committed if it beats the committed one. A timestep whose blocks all sit
// in the highest level is skipped: nothing there can get faster.
//
// # Why it is fast
//
// Re-planning is the hot path: every candidate re-plans the rest of the
// program. It is incremental. A candidate holds only its changes to the
// committed plan (a state.Overlay) and the occupancy of its timestep as a
// copy-on-write snapshot (state.Occupancy.Clone is O(levels)). The
// re-planner walks forward tracking the blocks whose position differs from
// the parent's; the initializer's decisions at a timestep depend only on
// the memory state there, so once every differing block has died, the rest
// of the plan is the parent's and the walk stops. (That rest is valid
// whoever made it, the fallback included: it starts from the same memory
// state as in the parent.) The cost is updated by
// the blocks that changed, since the seed's cost models price blocks
// independently (the timeline model re-prices them: see below).
// Typical re-plans touch a few timesteps, not the whole program. A
// candidate's overlay is a fork of its parent's (state.Overlay.Fork: it
// reads through the parent's patch and holds only its own changes), and
// what a candidate leaves behind (its occupancy, the overlay of one left
// out of the beam) is recycled for the next ones.
//
// Candidates are independent, so they are evaluated on all cores; their
// results go to fixed slots in generation order and ties are broken by
// it, so the plan is the same whatever the number of workers. Per
// timestep the caller and helpers that live for the whole search (pool)
// enumerate the (block, state) pairs' candidates, longest-lived block
// first, and then evaluate them from a list sorted by how long their
// re-planning looks, taken with an atomic counter; the beam states'
// replays and copies between timesteps run on the same workers.
//
// # Under the timeline model
//
// The timeline model (costmodel.Timeline, FORMATS.md section 6) is not
// Separable: a stall moves every later op, so a block's change is not
// priced by the block alone. Under such a model every state carries a
// costmodel.Pricer of its layout: the walk's start is priced with
// Model.Price, a candidate's cost is its parent's Pricer's Reprice of the
// blocks whose segments the candidate and its re-planning changed (Old
// the parent's, New the candidate's, taken as the action wrote them, copy
// starts included; a Scratch per evaluation), and a candidate that
// enters the beam gets the pricer of its layout by Derive from its
// parent's (materialize). Every cost in the beam is so exact, and the
// committed cost is costmodel.Total of the committed plan (Settings.Check
// verifies it after every commit). Under Separable models (seed003,
// vela-dma) none of this runs: the BlockCost arithmetic above is kept
// operation for operation, and so are their plans.
//
// Re-planning under the timeline model runs the initializer's Step, which
// also decides the copies of constants from their home (stream points),
// and it may stop later than under the seed's: a copy that the parent's
// plan issues up to Problem.Horizon timesteps before its timestep may
// reserve space in the period where the candidate changed the memory. The
// walk goes on until every changed block's occupancy has ended
// (state.OccEnd: a resident constant's range is kept to the end), and
// then while a copy of the parent's later plan has its reservation begin
// in that changed period (at most H timesteps more), so that such copies
// are decided again; replanTimeline argues it.
//
// A segment occupies its range from its copy's start (Seg.OccStart) to
// OccEnd: the skip rule counts a block below the highest level until its
// segment's OccEnd, the space evictions may use excludes every range a
// segment of the committed plan occupies at any timestep (reservations
// included), and Check compares the occupancy with state.OccupancyAt,
// which holds reservations.
//
// # Then: repacking
//
// The walk moves one block at a time, and every position it tries is a
// free gap of the memory as the earlier placements left it; it cannot undo
// the fragmentation those placements made. So after the walk, hieropt.Plan
// repacks the committed plan (package repack): level by level, fastest
// first, the blocks left in slower levels are promoted, the largest saving
// first, into free space where it exists, else by re-packing the whole
// level with the exact packer (package pack) under a node budget. Every
// change is checked to lower the cost; the budget
// (hieropt.Settings.Repack, packings per level) is counted in nodes and
// packings, never in time, so the plan stays the same on any machine. On
// the shipped workloads and profiles it costs a few milliseconds per plan
// and lowers the mean cost by 0.3% of the initializer's.
//
// # Anytime
//
// The committed plan is complete and valid at every moment. When Walk's
// context ends (its deadline, or a cancellation), the walk stops between
// candidates and returns it, with Status saying why and Stats.CutTimestep
// where. hieropt.Plan gives the walk its time limit less what verifying
// the plan needs, and repacking what is left (see
// hieropt.Settings.TimeLimit). Without a limit nothing depends on time.
package search
