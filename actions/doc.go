// Package actions holds what may change a memory state: the initializer
// (seed 003's "pre-configure memory": allocate, free, reuse) and, for the
// search, the move, swap and reuse actions.
//
// # The initializer, rule by rule
//
// At timestep t the blocks whose life ended at t-1 are freed, then the
// blocks created at t are placed, one at a time:
//
//  1. A pinned block goes to its level. Otherwise the levels are tried from
//     the highest (fastest) down; a level that cannot hold the block passes
//     it to the next.
//  2. Within a level the free gaps are taken smallest first (then lowest
//     address) and the first that holds the block's footprint at its
//     alignment wins: best fit.
//  3. The block goes against one boundary of that gap.
//  4. Against the neighbour that is destroyed later, so that the
//     earlier-dying neighbour's space will merge with what stays free. A
//     side of the gap that is the level's own edge counts as a neighbour
//     that is never destroyed. If both neighbours die at the same step, the
//     block goes to the side nearer the level's own edge (address 0 or the
//     capacity); remaining ties go to the lower address.
//  5. Reuse: before looking for free space in a level, a block may take over
//     the space of a reusable block that ends at t, under the kind rule of
//     FORMATS.md (an input or activation's space to the op's scratch,
//     activations and outputs; a scratch's space to its activations and
//     outputs). The new block starts at the reused block's offset (the op
//     runs in place), so one block reuses at most one other; if it is
//     larger, the rest of its range must be free. Reusable space that is
//     not taken over is freed when the op ends, like any other.
//
// # Settled points beyond ALGORITHM.md
//
// The order in which the blocks created at one timestep are placed is not
// fixed by the seed. By default (WorkloadOrder) they are placed in the
// workload's block order, the literal reading. KindOrder places scratch
// first (so that the op's outputs can take its space), then activations,
// outputs and inputs, then constants (so that weights fill what the
// program's own data leaves); it usually gives cheaper plans, and the
// search starts from it when it does. Among several reusable blocks a new
// block could take over, the first in block order that fits wins.
//
// BoundOrder is KindOrder steered by a guide (SetGuide; hieropt's search
// sets it from the whole-program bound's cheapest paths, under the seed
// model): a level per block, and the load it implies, per level and
// timestep, the footprints of the blocks guided there. A block goes to the
// fastest level where it fits by rules 2-5 and where the load, with it,
// stays within the capacity over its whole life; only where no level
// passes that test does it follow its guide (its level, then slower, then
// faster) wherever it fits. Each walk of the initializer (Run, the
// search's re-planning) keeps the load of its own state: the blocks placed
// elsewhere than their guide count in the level they are in, so
// re-planning from any timestep gives the plan of a run from the start
// (tested).
//
// # Read-only levels
//
// No action, initializer step or fallback plan copies a block into a
// read-only level (state.Problem.CopyInto: the level takes no write),
// under every model: MayEnter says whether putting a block into a level
// at a timestep is a copy there: a transfer (after the block's first
// timestep) or, under the timeline model, a constant's load (its first
// placement outside its home). Under the seed models a constant's first
// placement is free (FORMATS.md section 4), so a read-only level may take
// it then, as before; the plan checker's rule 7 (constants only) binds
// everywhere.
//
// # Under the timeline model
//
// Bound with state.Semantics{Timeline: true} (FORMATS.md section 6), the
// initializer, Replay and the actions follow these rules; under the other
// models none of this happens (the plans are byte for byte what they
// were).
//
//   - A constant's home is its pinned level, else the last
//     (state.Problem.Home). At its first timestep a constant is put in its
//     home, with no load, unless it is read there too: then, as at a
//     stream point, a load into a faster level is kept if it pays.
//   - Its stream point is its first read. There Step decides, after
//     placing the blocks created at that timestep, constants in block
//     order, whether to copy it from home into a faster level: for each
//     level faster than its home that takes a copy, fastest first, the
//     best fit at the stream point, started at
//     s* = max(FreeSince(range), the source's from, sp - Horizon, 0): a
//     reservation back in time, into a range the free-since log says no
//     segment occupied since s* (see state's package doc). The first level
//     where the copy pays is kept: the saving, the sum over its reads of
//     out(home) - out(L), exceeds the exposed time. The exposed time is
//     what the copy adds to the end of the stream point's op in a small
//     simulation of FORMATS.md 6.3 over the 2*Horizon ops before it, each
//     op taking dmin(u) = max(c(u), its least access cost) (the timeline
//     bound's term, bounds.Timeline: placement-independent, computed once
//     per initializer), with the copies the layout already has there on
//     the DMA channels. With no other copy that is max(0, x - the sum of
//     dmin over [s*, sp-1]), x = out(home) + in(L): the other copies count
//     because a copy issued earlier takes a channel before them (issue
//     order is by start). Else the constant stays home.
//   - Run(lay, from) re-decides: the copies at from or later of blocks
//     alive then are dropped, the blocks created at from or later placed
//     afresh (their old loads' reservations gone), and Step decides every
//     stream point from from on again. So the search, re-planning with
//     Step, re-decides the streams of the timesteps it re-plans; where the
//     view still holds an earlier plan's stream at that timestep, Step
//     releases its reservation and decides again.
//   - Replay follows a layout: at t it releases what died at t-1 (a
//     resident constant never), places the reservations that begin at t
//     (a copy or a load whose start is t, looked for among the blocks
//     touched at t+1 .. t+Horizon; the residents at 0), the blocks created
//     at t, and carries out the copies at t (sources released, then
//     destinations not reserved before placed). It rebuilds exactly what
//     state.OccupancyAt gives.
//   - Resident starts (ResidentOrder, ResidentHalfOrder; hieropt.Plan's
//     search starts from them too under this model): before the kind
//     order's run, constants are made resident in the fastest level (no
//     load, the range kept over the whole run), greedily by saving per
//     byte, while their footprints fit the room (or half of it) that the
//     other blocks' max-live leaves there. ResidentLevelsOrder does the
//     same in every writable level faster than the constant's home,
//     fastest first, each level's room what the other blocks need there
//     once the faster levels are full (where the run cannot place a
//     block so, chosen again keeping room for the largest other block
//     below the fastest level). No action touches a resident constant
//     (Eligible).
//   - Actions: move and swap make a synchronous copy (start == at);
//     Detach vacates the block's range at t (it was there until t-1: the
//     free-since log learns it) and releases the reservations of its later
//     copies (the action drops them). Prefetch (TimelineAll; it offers
//     nothing under the other models) is a swap whose copy starts early:
//     at s* = max(FreeSince, the source's from, the last write before
//     t + 1, t - Horizon, 0) and at the latest start whose ops before t
//     (Options.Dur) hide the copy, no earlier than s*. Into a faster level
//     it is a prefetch; into a slower one, for a block that lives on after
//     t, an asynchronous eviction: the copy out runs behind ops s .. t-1
//     instead of stalling op t, holding a DMA channel and the destination
//     range from its start (FORMATS.md rules 8, 9), and the faster level's
//     range is free from t as after a synchronous one. The same conditions
//     make it valid both ways: the destination range free since s* (the
//     free-since log), no write of the block in [s, t-1], the source
//     segment begun by s, and never a read-only destination (MayEnter).
//     It needs a block of t last written before t-1: on the shipped
//     networks, whose activations are read right after they are written,
//     there is none. A constant's first placement outside its home is a
//     load and may be issued early the same way, into any level.
//   - Evict sends the constants in the way back home for their whole life:
//     a first placement in the home level is no copy at all (the stored
//     bytes are there), so a read-only home takes them too; they "go back"
//     by being dropped, never copied into it (a transfer into a read-only
//     level is what MayEnter forbids). Only constants placed once with no
//     early load and not resident are evicted. Evict also copies idle
//     activations out (IdleEvictable): a block other than a constant in
//     the window, created before t and alive after it, that op t neither
//     reads nor writes (a residual kept for a later add, a KV cache) and
//     that has no copy at t or later. It goes to the fastest slower level
//     that takes a copy (never a read-only one), at a position free at t
//     beside the other evicted blocks, by a transfer at t whose copy is
//     issued at the earliest feasible start s* (as prefetch's: the range
//     free since s*, the source segment begun and the block last written
//     before s*, within the horizon) or, as a second candidate, at the
//     start that just hides it behind the ops before t: the copy runs
//     behind ops s .. t-1 and op t finds the window free. Its later reads
//     are from the slower level until an action at one of its later
//     timesteps (prefetch at its next read) brings it back. The search
//     prices the candidate exactly (its Pricer) and re-plans until the
//     activation dies, so the range stays its own for the rest of its
//     life. These are the only copies made at a timestep that does not
//     touch their block (state.Problem.Touched); they are made only at
//     the search's current timestep, which the walks that find copies by
//     Touched (Step, Replay, the search's re-planning) have passed, so
//     only Step's lateness estimate, which looks back at copies by
//     Touched, does not see them (an estimate, not a rule). An activation
//     of t itself goes to a slower level by swap (a copy at t) or
//     prefetch (the copy issued early, above).
//   - The search keeps its candidates' states right with
//     SyncReservations: re-planning after t may change a copy whose
//     reservation began by t.
//
// # The fallback plan
//
// Best fit can fragment a level so that a block finds enough free bytes
// but not in one piece (InfeasibleError), although the blocks could be
// packed: every one of MiniMalloc's eleven challenging instances, planned
// in one level of their capacity, defeats the initializer this way. Where
// the initializer (workload order, reuse on) cannot place a block, hieropt
// does not give up: FallbackPlan makes a plan that exists, and cost.initial
// is then that plan's cost (InitialPlan: FORMATS.md section 3, rule 6).
// The settled points:
//
//   - The levels are packed fastest first, each with the exact packer
//     (package pack, through arena.PackWithin) at the level's capacity:
//     any packing that fits, not the least peak. Each block is placed once
//     for its whole life: no transfer, and no in-place reuse (blocks alive
//     at one timestep never share space, so where only reuse makes room,
//     the fallback finds no plan).
//   - For a level, a block that may live there (its pin, and its
//     footprint within the capacity) and in no slower level must go there;
//     the others that may live there are candidates. Candidates are taken
//     by their saving per byte, highest first (their cost, by the plan's
//     cost model, in the next slower level they may use, less their cost
//     in this one, over their footprint here; ties by block ID), each while
//     the bytes live over its lifetime stay within the capacity
//     (max-live); those that would overflow it go down to the next level.
//   - The packer then packs the blocks that must go there and the
//     candidates kept, in block ID order. If it finds no packing, the
//     longest prefix of the candidates (in that order) it packs is kept,
//     found by bisection, and the rest go down too. If it cannot pack the
//     blocks that must go there, there is no fallback plan: the error is
//     the initializer's, which says so (InfeasibleError.Fallback).
//   - It is deterministic: each packing is bounded by a node count
//     (arena.WithinNodeLimit), never by time, so that the plan checker
//     (verify.Check, given InitialCost through VerifyInitial) gets the
//     same plan again to check cost.initial. The packer's orders weigh
//     lifetimes by their length in time (workload.Times: the ops' times
//     when they are named "t<time>", as import minimalloc names them, else
//     the timesteps), as `hieropt pack --workload` does, so that an
//     imported MiniMalloc instance is packed as the CSV would be.
//
// The search starts from the fallback plan (or from the initializer in
// kind order, when that finds a plan and it is cheaper) and re-plans with
// the initializer after each action, as always; a candidate whose
// re-planning cannot place a block is dropped, and the committed plan
// stays the fallback's until a cheaper one is found.
package actions
