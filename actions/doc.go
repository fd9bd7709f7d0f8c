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
