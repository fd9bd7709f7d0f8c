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
package actions
