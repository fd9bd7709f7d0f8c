// Package segments decides where the search commits: it splits a program's
// timesteps into local-optimal segments, each ending at a state-update
// timestep (seed 003, step 2).
//
// # Why segments
//
// The search walks the timesteps in order and, at each, tries every action
// on every block of the timestep, re-planning the rest of the program after
// each. If it committed the best candidate after every timestep, it would
// be greedy: an action that costs a little now but makes room for a large
// saving two steps later would never be taken, because at the moment of
// choosing it looks worse. If it never committed, it would have to carry
// every combination of actions to the end: with c candidates per timestep,
// c^T states.
//
// Segments are the compromise. Inside a segment the search keeps several
// candidate states (a beam, best cost first) and expands each of them at
// the next timestep, so combinations of actions within the segment are
// weighed together; at the segment's end it commits the cheapest state if
// it beats the committed one, and starts the next segment from it alone.
// 20 timesteps with 3 candidates each are 3^20 states unsplit, but
// 4 x 3^5 in four segments of five (and fewer still with a bounded beam).
//
// # Where to cut
//
// A good cut falls where the program's past and future interact least, so
// that what is committed does not constrain what follows. In a neural
// network those points are visible in the working set: the bytes of
// activations, inputs, outputs and scratch alive at each timestep. Inside a
// residual block the skip connection keeps the block's input alive while
// the branch computes, and the working set swells; at the block's end the
// add consumes both and only one tensor remains. Attention blocks, MLP
// blocks and downsampling stages behave alike. The local minima of the
// working set are therefore the block boundaries, and "auto" cuts there.
//
// The working set is taken from the program, not from a plan: it leaves
// constants out (weights are loaded before the run and only die, so they
// would turn every timestep into a minimum) and it counts every level, so
// the cuts do not move as the search moves blocks between levels. "auto"
// keeps segments between AutoMinLen and AutoMaxLen timesteps long, so that
// a flat stretch of the network does not become one huge segment.
//
// "every", "fixed:N" and "at:t1,t2,…" are there for experiments and for
// compilers that know their program's structure better.
package segments
