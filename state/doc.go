// Package state is hieropt's memory state: where every block is at every
// timestep, and what is busy and free in every level.
//
// # Problem
//
// A Problem binds a workload.Program to an hw.Profile. Bind checks both
// against their formats (they are plain data, and may come from code), so
// that a broken document is an input error there, never a panic later.
// Blocks, timesteps and levels are dense integer IDs (the block's index in
// the program, the op's index, the level's index fastest first), so that
// everything downstream is slices, never maps. The Problem precomputes each
// block's effective alignment and footprint per level, and the per-timestep
// indexes the planners read: the blocks created, dying and accessed at each
// timestep (Created, Dying, Accessed), and blocks by name (BlockID).
//
// # Layout
//
// A Layout is a whole plan in compact form: per block, its segments (Seg):
// from a timestep on, the block sits at a level and offset. A second segment
// starts with a transfer. This is exactly the information of a plan
// document (package plan converts between the two), and what cost models
// price.
//
// # Occupancy
//
// An Occupancy is the memory state of one timestep, the busy and free lists
// of seed 003: per level, the busy spans in address order and the free gaps
// sorted smallest first, with adjacent free space always merged. A level
// with few spans keeps them in a slice that clones share until one of them
// writes it (the gaps are derived from the spans); a level with many keeps
// both in copy-on-write B-trees (see levelOcc). Either way Clone costs
// O(levels) and a clone pays only for what it changes; this is how the
// search snapshots states. Check verifies
// the invariants (spans disjoint and inside the level, gaps the exact and
// maximal complement).
//
// An occupancy for any timestep of any layout is built by OccupancyAt; the
// initializer (package actions) advances one from timestep to timestep,
// dropping the blocks that die (Drop: a large level applies such releases
// only when it is next read). Recycle hands an occupancy that is done
// with back for reuse.
//
// # Overlay
//
// An Overlay is a layout as changes to a shared base Layout; a fork of an
// overlay (Fork) holds only its own changes and reads through the other's.
// The search gives every candidate a fork of its parent's overlay,
// flattens the few it keeps and recycles the rest.
package state
