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
// # The timeline model
//
// Under the timeline model of FORMATS.md section 6 (Bind with
// Semantics{Timeline: true}) a copy may be issued before the op that
// needs it, and a constant outside its home level (Problem.Home) is
// loaded or resident. A segment says so by its Lead (Seg): its copy is
// issued at Start = From - Lead; a resident constant's only segment has
// Lead Resident. Under the other models every Lead is 0, and nothing
// below happens: no log is kept, no reservation exists.
//
// A segment occupies its range in space and time: from OccStart (its
// copy's start; 0 for a resident segment) to OccEnd (the timestep before
// the next segment's From, else the block's last, else, resident, the
// program's last). Before From that is a reservation (rules 9 and 10): it
// shares no address with anything, and is never a reuse partner. The
// source of a copy stays busy until the copy's timestep - 1, which is
// just its own OccEnd. OccupancyAt(t) holds every segment whose span of
// timesteps contains t.
//
// The walk (the initializer's Step and Replay, the search's re-planning)
// advances an occupancy from t-1 to t: Advance(t), then the releases of
// what ended at t-1 (Drop: a block that died, the source of a copy at t),
// then the placements of what begins at t (a block's first segment, a
// copy at t with no lead, a reservation whose Start is t, the resident
// constants at 0). Blocks are copied only at timesteps that touch them
// (Problem.Touched: that read, write or create them), so the walk finds
// the copies due at t, and the reservations starting at t, among the
// blocks touched at t .. t+Horizon. The one exception is the search's
// evict action, which copies an idle activation out at the timestep it
// acts at: the walks that rebuild occupancies from copies never replay
// the search's current timestep or an earlier one; only the initializer's
// lateness estimate, which looks back at copies, misses them (package
// actions' doc).
//
// # Free since
//
// Copies are decided at their timestep (the initializer's stream
// decision at a constant's first read), into a range that is free then;
// the copy may be issued earlier, from
//
//	s* = max(FreeSince(range), the source's From, the last write + 1, at - H, 0)
//
// where FreeSince is one after the last timestep any part of the range
// was occupied. So that it is known without the layout, each level of an
// occupancy keeps, under the timeline model only, a log of the releases
// of the last H = Horizon timesteps: (range, since), since the timestep
// from which the range is free. Drop and Vacate append to it (the block
// occupied its range until Time()-1); Advance prunes what is older than
// H (it could only hold a copy back past t - H, which s* takes anyway);
// OccupancyAt rebuilds it from the segments whose OccEnd lies in
// [t-H, t-1]. Clones share the log copy-on-write: a clone's log has its
// capacity cut to its length, so whichever appends first copies it.
// Release, unlike Drop, removes a span as if it never was there (a copy
// dropped with its reservation), and logs nothing.
//
// The invariant: at timestep t, a range free now whose FreeSince is s was
// occupied by no segment at any timestep in [s, t-1] of the walk's
// layout. Proof: take a segment that occupied a byte of the range at some
// u in [s, t-1]. It is not busy at t (the range is free), so it ended at
// some e in [u, t-1], and the walk dropped it when it advanced to e+1 <=
// t, appending (its range, e+1) to the log of its level, or the walk
// started at some timestep after e from OccupancyAt, which put the same
// entry in its rebuilt log if e+1 > t-H. An entry is pruned only when its
// since is at most t - H, and FreeSince is at least t - H anyway.
// Otherwise the entry is in the log, it overlaps the range, and s >= e+1
// > u: a contradiction. Segments that the layout gains later only make
// the claim about the layout at t. Two things could break it, and the
// planners avoid both: a segment whose occupancy started before t but
// was never put into the occupancy (a reservation made in the past and
// skipped), which is why the walk places reservations at their Start and
// a decision at t places its own retroactive one at once, busy at t; and
// a span removed with Release that the layout still holds until t-1 (a
// block moved away at t), which is why such a removal is Vacate.
// Conversely, a reservation [s*, at-1] into a range free at at, with s*
// >= FreeSince, overlaps no segment of the layout, and the layout is
// valid under rule 9.
//
// # Overlay
//
// An Overlay is a layout as changes to a shared base Layout; a fork of an
// overlay (Fork) holds only its own changes and reads through the other's.
// The search gives every candidate a fork of its parent's overlay,
// flattens the few it keeps and recycles the rest.
package state
