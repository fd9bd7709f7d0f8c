// Package repack improves a complete layout by re-packing one memory level
// at a time with the exact packer (package pack), so that blocks the
// layout left in slower levels move into the faster one.
//
// # Why
//
// The initializer and the search place blocks one at a time: best fit,
// against the neighbour that dies later, from the state of one timestep.
// Whatever they do, the free space of a level fragments: at some timestep
// a block finds enough free bytes in a fast level, but not in one piece,
// and goes to a slower level. The search moves blocks one action at a time
// and cannot undo a fragmentation that many earlier placements made. A
// packer that sees the whole level over the whole program at once can: it
// re-chooses every offset in the level together.
//
// # The method
//
// Given a problem and a complete, valid layout, Run visits the levels from
// the fastest down. For a level l:
//
//  1. Every placement (segment) in l is a packing buffer: alive on
//     [from, to+1) in timesteps, its footprint in l as size and its
//     effective alignment in l as alignment.
//  2. The candidates are the blocks that sit in slower levels: for a block
//     allowed in l (not pinned elsewhere, small enough), each maximal run of
//     its consecutive segments that are all in l or slower, if the run has
//     a segment in a slower level or more than one segment (a move inside
//     l). Replacing the run by one segment in l is the candidate. For a
//     block placed once in a slower level for its whole life (the common
//     case) this promotes the whole block into l. Each candidate's saving is
//     exact: the cost model's price of the block as it is, less its price
//     with the run in l (cost models price blocks independently, so this is
//     the layout's cost less the cost with the candidate applied). Only
//     candidates that save something are kept, the largest saving first
//     (ties: block ID, then the run's start).
//  3. For each candidate, in that order, three steps, the cheapest first.
//     Insertion: if the run fits the free space of l as it is packed now
//     (the lowest offset that overlaps no buffer alive with it), it goes
//     there and nothing else moves. Otherwise the max-live screen: the
//     bytes of l's buffers live at each timestep, with the candidate's run
//     as one more buffer, must fit l's capacity at every timestep (no
//     packing beats max-live). Then packing: pack.Solve packs the buffers
//     plus the candidate within the capacity, under a node budget
//     (Settings.NodeLimit). If it packs, the candidate is accepted: every
//     segment in l takes its new offset, the candidate's run becomes one
//     segment, and a block whose consecutive segments in l ended up at the
//     same offset has them merged (the transfer between them is dropped,
//     which only saves more). A change is kept only if the layout's cost
//     strictly falls.
//  4. After a packing the candidates are recomputed from the new layout.
//     After an insertion the pass goes on down the same list: only the
//     candidate's block changed, and cost models price blocks
//     independently, so the other candidates' savings stand (the block's
//     other runs wait for the next pass). A candidate is packed at most
//     once (l only gets fuller, so one that did not pack would not now),
//     screened out for good (likewise), and inserted at most once per
//     packing of l (a packing moves the free space around; an insertion
//     only takes some). The level is done when a pass accepts nothing; at
//     most Settings.Packings packings are tried in it (insertions and
//     screens are cheap and do not count), and none in a level with more
//     than Settings.MaxBuffers buffers.
//
// Under the seed model the candidates also include heads (splits): a
// block placed once in a slower level may go into l from its first
// timestep to one of its accesses only, and back to its old place by a
// transfer after it (a residual activation written, read at once, then
// read again ten ops later).
//
// When a pass accepts nothing more, under the seed model, the level gets
// one more kind of change: exchange (exchange.go). A candidate the
// max-live screen ruled out may still pay if room is made for it: blocks
// that sit in l over its run, each placed once for its whole life, are
// sent to the fastest slower level with room for them, chosen greedily
// (at the timestep most over the capacity, the one that loses least per
// byte of the excess it covers, priced in the next slower level it may
// use) while what they lose stays below what the candidate saves; then l
// is packed with the candidate and without them. At most Packings
// candidates per level are tried so (a try scans the level; a long
// program has thousands of screened candidates: pricing each victim where
// it would really go made a 1,000-op generated program's planning 18 s
// instead of 1 s).
// The passes go on after an accepted exchange. Every change lowers the
// cost of what the passes had reached, so a level never ends costlier
// than without exchanges (the plan after the search's walks may still
// differ elsewhere). On the 82 shipped seed-model pairs the plans ended
// 1.72% above the whole-program bound on average with single exchanges,
// against 2.07% without (mobilenet_v2-int8 on the Ethos-U55 copy: 5.3%
// less, within 25 cycles of the optimum the MILP tool proves); group
// exchanges and heads took them (with a tighter bound) from 0.82% to
// 0.67%.
//
// Last, under the seed model, a level tries detours (detour.go): a
// candidate placed once in a slower level, with no room in l over some
// timesteps of its life, takes l before and after them (the longest head
// and tail the free space of l holds) and a faster level's free space
// over them, two transfers between fast levels instead of every access
// to the slow one. On the K210 seed copy mobilenet_v2-fp32's weights wait
// out the 4.6 MiB activations that fill SRAM for a few early ops in
// AISRAM, nearly empty there: 57.44 M cycles to 55.56 M (the MILP tool's
// bound 55.32 M).
//
// # Cost on long programs
//
// A long program has tens of thousands of buffers per level, and as many
// candidates. Three things keep the work near linear in them: the max-live
// screen runs before anything scans the level (most candidates stop
// there); insertion finds the buffers alive with the candidate through an
// index by lifetime (a segment tree over the buffers sorted by start, so
// it visits only those that can overlap, O(k log n)); and a pass goes on
// after an insertion instead of starting over. A packing costs at least
// linear time in the level's buffers and the greedy pass of the packer
// visits only conflicting buffers (pack.greedyPack), but a level with
// more than Settings.MaxBuffers buffers (1024: more than the largest
// shipped network has blocks) is not packed at all, and the insertions of
// one level stop after visiting Settings.MaxVisits buffers (2^24), largest
// savings first.
//
// With Settings.Workers > 1 the insertions of upcoming candidates are
// looked for ahead, several at once on the workers, against the level as
// it is; the pass takes their answers in its own order and forgets them
// when an insertion changes the level (see prober), so the result is the
// same with any number of workers.
//
// Insertion alone finds most promotions on the shipped workloads: the
// searched plans leave room in fast levels where a block from a slower one
// fits for its whole life. But the packings are what make room: without
// them (insertion only), repacking gains less than a third of what it
// does.
//
// Going fastest first matters: a block promoted into the fastest level
// frees its space in the level below, which the next level's packing can
// then give to another block. The other way round a slower level's
// changes can leave room in a faster one (a block exchanged or detoured
// out of it), so when a round over the levels lowered the cost another
// begins, up to Settings.Rounds.
//
// # In-place reuse
//
// Two blocks that share space at one timestep by reuse (a's last segment
// ends at t, b's first starts at t at the same offset, the kind rule allows
// it: the op runs in place) would, as two buffers, both be alive at t, and
// the packer would keep them apart. When they have the same footprint in
// the level (every reuse pair of the shipped workloads does), they are one
// buffer instead, over both lifetimes, and so are longer chains: packed at
// one offset they keep their reuse, and the buffer takes exactly the space
// they took. Without this, a level that relies on reuse looks over
// capacity to the max-live screen (69 levels of the searched plans of the
// shipped workloads on the built-in profiles do) and no packing could
// promote anything into it: repacking would gain a third less. Pairs of
// different footprints stay two buffers: conservative, and always valid.
//
// # Under the timeline model
//
// Under the timeline model (FORMATS.md section 6) a segment occupies its
// range from its copy's start (state.Seg.OccStart: a load or a prefetch
// reserves its destination before its From; a resident constant from
// timestep 0) to state.OccEnd (a resident one to the program's end), and
// so do the packing buffers and candidates: a reservation is space like
// any other, never shared by reuse. A run replaced by one segment keeps
// its first segment's copy start (the same source, timestep and writes
// before it, so the start stays valid), except a first segment in the
// block's home level, which has no load. A run brought into a level from
// elsewhere is a copy, so it never goes into a read-only level (a
// transfer, or a constant's load outside its home; under the seed model a
// constant's first placement is free and may). The timeline model is not
// Separable: a stall moves every later op, so a change's saving is not
// the changed blocks' own. There the layout's costmodel.Pricer re-prices
// every candidate (its saving, for the order) and every insertion and
// packing (the change of the cost, exactly), and is derived again after
// each accepted change; the order goes on after an insertion without
// recomputing the other savings (they may have moved: they only order
// the work, each change is priced when it is tried). Under the Separable
// models (seed003, vela-dma) the BlockCost arithmetic is unchanged.
//
// # Guarantees
//
// The result is a valid layout whenever the input is: a change touches one
// level, either placing one run in free space or giving the level's
// segments a packing that is checked (pack.Check) before it is used, and
// blocks enter a level only where the problem allows them (Allowed: pins,
// footprints, and read-only levels, which hold constants only). It never costs more than the input: a change is accepted
// only if it lowers the cost. And it is deterministic: the candidates are
// ordered by exact savings with ties broken by IDs, maps are only looked
// up (or their keys sorted), never ranged over in their own order, and the packer is bounded by a node count, never
// by time; the same problem, layout and settings give the same layout on
// any machine.
//
// # Measured
//
// After the search, on the 82 pairs of shipped workloads and built-in
// profiles that fit (seed-model copies): 60 plans improve, none gets
// worse, and the mean reduction against the initializer's cost goes from
// 19.81% to 20.24% (hieropt bench --format grid with and without
// --repack 0; with heads, exchanges and the search's two walks, each
// repacked).
// When this was measured first, before exchange and the bound start: 45
// plans, 18.81% to 19.12% (resnet50-fp32 on TPU v4 from 66.2% to 69.0%,
// squeezenet1_1-fp32 on the K210 from 88.6% to 89.8%). Repacking took 0.18 s over the 82 plans in
// all (2% of the search's time; at most 24 ms for one plan). It promotes
// 758 blocks, 696 of them into free space and 62 by packings (none of the
// 62 packings fails; the greedy packs most, the branch-and-bound runs in 7
// plans, 1630 nodes in all). More packings per level change nothing on
// these workloads: every gain is reached with 4.
//
// On generated mixed programs on the H100 profile (hieropt bench --gen):
// 1,000 ops, 20 blocks promoted (8 by packings), 0.09% less cost, 0.34 s
// beside 0.42 s of search; 10,000 ops, 38 promoted into free space (the
// levels are too large to pack), 0.005% less, 0.3 s beside 3.4 s. The
// gains are small there: the search leaves little room in these levels.
package repack
