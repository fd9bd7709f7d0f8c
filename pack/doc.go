// Package pack places buffers in memory: given buffers that are each alive
// on a half-open time interval [Lower, Upper) and need Size bytes, it finds
// offsets such that no two buffers alive at the same time overlap, within a
// capacity (or, with Options.Minimize, with the smallest peak it can find
// and prove). This is dynamic storage allocation (DSA), NP-hard in general;
// hieropt uses it for single-level planning, and it solves the eleven
// "challenging" instances of MiniMalloc (Moffitt, ASPLOS 2023) in about half
// a second in total: 0.51 s against MiniMalloc's 28.7 s, 56 times less, when
// the two ran side by side (see Measured).
//
// # The problem in sections
//
// Only the order of the time points matters. The distinct values of Lower
// and Upper cut time into sections: section k runs from the k-th time point
// to the next. A buffer is
// alive on a contiguous range of sections, and two buffers conflict exactly
// when their ranges meet: one that ends at t and one that starts at t do
// not. A section's demand is the total size alive in it; the largest demand,
// max-live (MaxLive), is the classic lower bound on any packing's peak. Eight
// of MiniMalloc's eleven instances are tight: max-live equals the capacity,
// so the busiest sections must be packed without a byte of slack.
//
// # First: a greedy portfolio
//
// Most real instances are not tight. Solve first runs a greedy portfolio
// (its start-order pass before anything else: see Deadlines): six orders
// (size, area, lifetime, busiest section, start time, number of conflicts;
// the first is TFLite's "greedy by size") times two rules (best fit: the
// smallest gap between placed conflicting buffers that holds the buffer;
// first fit: the lowest such gap), each placing the buffers one by one. If
// a packing fits the capacity it is returned at once (with Minimize: if it
// reaches max-live, which proves it optimal). Twelve passes over a few
// hundred buffers take a few milliseconds. From 1,024 buffers on the
// busiest-section order goes first: on idealloc's Y_1 and its prefixes of
// 16,000 and 32,000 rows it reaches max-live at once, where the numbered
// order ran four to six passes first (on the larger compiler traces and on
// SOMAS copies no order does, and every pass runs whatever the order). A
// pass is given up as soon as its peak, which only grows as it places
// buffers, shows that it cannot be the packing kept (above the stop, and
// above the first pass's peak or not below the best one's): the packing
// kept is the same as with every pass finished (tested).
//
// The gaps come from an occupancy tree, not from the placed buffers one by
// one: a segment tree over the sections whose nodes hold unions of memory
// intervals as sorted runs. A placed buffer goes, as its interval, into
// the O(log) nodes that decompose its sections (each node's own union)
// and into the union of everything below each node above them; a new
// buffer reads the below-unions of the nodes that decompose its sections
// and the own unions of their ancestors, and merges them: the holes of
// that union are exactly the gaps between the placed buffers it conflicts
// with (tests compare the offsets with a scan of those buffers). A pass
// costs O(n log n) insertions plus the runs the queries read, which stay
// few where conflicts are many: over a long time range the union is
// nearly solid; the top levels of the tree cache the union of the own
// lists on their path to the root. On idealloc's Y_1 (62,185 buffers, 180
// million conflicting pairs) seven passes took about 1.8 s, where a scan
// of the placed buffers took 24 s; a pass takes 0.15-0.35 s, and the
// first one tried now reaches max-live. TFLM's first-fit walk uses the same
// tree. Below 1,024 buffers a scan of the placed buffers is faster (twice
// on the challenging set), and the passes and TFLM scan.
//
// # Then: branch and bound on canonical packings
//
// Any packing can be pushed down until every buffer rests on the top of a
// conflicting buffer below it, or on 0, rounded up to its alignment; such
// packings are canonical, and one of them is optimal. The search builds a
// canonical packing bottom up, in order of offset, like a sweep line moving
// up the address axis: a placed buffer is never revisited, and nothing is
// ever placed below the level already reached. Its state is:
//
//   - per buffer not yet placed, a bound lb: no offset below it is possible.
//     Placing a buffer at L lifts the bound of every conflicting buffer to at
//     least L+size (aligned);
//   - per section, the real top hr of the buffers placed there, the demand D
//     left, and the floor m, the least bound among the buffers left there;
//   - the level L, the least floor over all sections.
//
// Inference is cheap and incremental: every section must keep
// m + D <= capacity (the buffers left in a section are stacked above its
// floor), every buffer lb + size <= capacity; a trail undoes every change on
// backtracking. Offsets only ever take values in the lattice of the gcd g of
// all sizes and alignments, which lets "strictly above L" mean "at least
// L+g". Each section also counts the buffers at its floor (lb = m): a
// raise that takes the last of them lifts the floor by g at least, so a
// tight section fails at once, in the middle of a placement, and only a
// section whose floor lost its last buffer is rescanned for its new
// floor. (A placement lifts the bound of every buffer above it; on perfect
// packings most candidates used to fail only after all those raises and a
// rescan of every section they touched: 15 placements per node.)
//
// Branching is on sections, not on buffers. At the level L the search picks
// one section s whose floor is L (by a rule: least slack, leftmost, fewest
// candidates, or the tightest section of the best-ranked candidate) and asks
// what occupies s at L. Either some buffer does: a candidate is a buffer
// alive in s whose bound is L and which rests at L on a real top (its
// canonical offset), and each candidate is one branch. Or nothing does: the
// last branch, allowed only while the section's slack allows any waste,
// leaves s empty at L. Then every buffer alive in s must later rest on a top
// that does not exist yet, made by some conflicting buffer c placed later, so
// its bound rises to the least lb(c)+size(c) (and at least L+g). A section
// at the level with no candidate at all takes that branch by force. The
// branches split the canonical packings into disjoint sets, so the search is
// complete: it proves infeasibility when it fails without limits. For the
// tight instances the branching degenerates into what matters: a zero-slack
// section at the level must be covered there, by one of its few candidates.
//
// The level is also checked as a whole. A section at the level whose slack
// is below g (tight) cannot be left empty: some candidate must sit at
// exactly L over it. Buffers at L do not overlap in time, and a candidate
// lies within its run of sections at the level (it conflicts with the
// higher tops around the run: so at the left end of a valley every
// candidate starts there and ends within the valley). So each run's tight
// sections must be covered by disjoint candidates, a path over the run's
// boundaries whose steps are candidates or single sections that are not
// tight: one pass forward and one backward over the run find whether one
// exists (if not, the state fails before any branching) and which
// candidates lie on one; only those are branched on. A tight section that
// only one of them covers is branched on first, whatever the section rule
// (its only branch is forced). This costs the sections at the level and
// the buffers that start there, about one placement, per node.
//
// Three reductions cut the tree further:
//
//   - Symmetry: buffers with the same sections, size and alignment are
//     interchangeable; only the first one left of each class is a candidate.
//   - Dominance: among the packings, those of least offset sum suffice. If a
//     buffer's real rest r is below the level and nothing that can still be
//     placed can reach into [r, r+size) over its sections, any completion
//     could move the buffer down: the state is cut. The same test prunes
//     leaving a section empty under a buffer that could have sat there.
//   - Decomposition: when no unplaced buffer crosses some section boundary,
//     the two sides no longer interact; each region is solved on its own,
//     and when one fails, the other's packings are not retried.
//
// Failed subproblems are remembered: a 64-bit hash of a region's state (the
// buffers left and their bounds, the real tops, which sections were left
// empty) goes into a table, and the search backs off at once when it meets
// the same state again, whatever path led there (stacking the same buffers
// in another order often does). The table is a lossy cache that grows with
// the search, from 16K to 4M entries; a hash collision could only make the
// search miss a packing, never return a wrong one, and every packing is
// checked before it is returned in the tests.
//
// Failures are explained, and the search backjumps. Every failure carries
// a reason: a set of sections (kept as 64 buckets of equal length, one bit
// each, an over-approximation) such that any state on the current path
// that agrees with the failing one there fails too. A buffer's bound and
// whether it is placed belong to its first section; floors, tops, demands
// and counts to their section. A dead end's reason is what its test read:
// for a level's run that cannot be covered, the run and its two
// neighbours and the first sections of the class predecessors of the
// buffers starting in it (a buffer alive in the run that starts before it
// or ends after it is alive in a neighbour, whose floor above L bars it);
// for a section left empty, the sections of every buffer alive there and
// the first sections of the buffers alive with them; for a table hit or a
// dominated hole, the whole region. Each decision (a placement, a section
// left empty) records what it changed: the placed buffer's sections, the
// first sections of the buffers whose bounds it raised, the sections whose
// floor count or floor it moved. When a child fails for a reason that its
// decision did not change, its state agreed with its parent's there, so
// the parent fails for the same reason: its other children are not tried
// (Stats.Backjumps). Otherwise the parent's reason gathers every child's
// reason, what each decision read (the sections and first sections of the
// buffers alive with the placed one, the bounds under each floor it
// recomputed) and what choosing the candidates read; the sections left
// empty at the node beforehand (no candidate) add what they read and
// changed. On the eleven challenging instances backjumping cuts the nodes
// from 67,871 to 40,266 in total (H: 13,394 to 1,096; E: 31,047 to
// 16,329; A: 2,520 to 1,933; the rest unchanged), 248-255 ms to 204-211 ms
// (Solve on each, one after another, three runs, load about 2). TestBackjumpSound checks it against chronological backtracking
// (the same depth-first search, one strategy, no restarts) on 2,000
// perturbed guillotine instances. It catches a search that skips every
// sibling, but not reasons made narrower on purpose (dropping the
// children's reasons from a node's, say): these small instances have many
// packings. The argument above is what vouches for the reasons.
//
// # Restarts, per region
//
// How long the search takes depends wildly on its orders: on the same
// instance one strategy finishes in a few hundred nodes while another
// wanders for millions. So every region is solved by a restart loop: a run
// per strategy, eight base strategies (pairs of a buffer ranking, among
// them MiniMalloc's WAT/TAW/TWA orders, and a section rule) and then
// randomized variants of them (the ranking keys jittered by up to 25%, from
// Options.Seed), each run under a node limit that follows the Luby sequence
// (mostly short runs, ever longer ones now and then, so that the loop stays
// complete and in the end refutes an infeasible region). Regions that fall
// apart during a run get restart loops of their own, nested up to six
// deep, whose unit run is about two nodes per buffer left in the region
// (the root's is 4000 nodes, or two per buffer when that is more: a run
// too short to place every buffer is wasted): a hard region deep in the
// search is retried with other orders without giving up the placements
// that led to it.
// Without this, instance E thrashed for 0.7-2.8 million nodes (depending on
// the seed) inside one 35-section region that other orders pack in about a
// hundred nodes; with it, E takes 15 000-110 000. Failed subproblems stay
// valid across all runs and strategies.
//
// Everything is deterministic: the same problem, options and seed give the
// same offsets (deadlines aside, which cut the search wherever they fall).
// Options.NodeLimit is the deterministic way to bound the work: it counts
// branch-and-bound nodes over all runs and probes, so the search stops at
// the same node, with the same answer, on any machine. hieropt's planners
// use it, never a deadline of their own, so that their plans are
// byte-identical (only a time limit the user gives the whole run can cut
// their packings short).
//
// # Minimize
//
// With Minimize, Solve searches the capacity between max-live and the
// greedy's peak, over multiples of g (every canonical peak is one), with
// the branch-and-bound under a node budget per probe (20 000 nodes, and at
// least two per buffer: a packing needs one per buffer): first max-live
// itself (often the optimum: instance C's 1039360 is found and proven in a few
// milliseconds), then the midpoint; when that is undecided, the smallest
// improvement on the best peak, which is usually easy, so the answer keeps
// improving; when both are undecided, the budget doubles. A probe that fails
// within its budget proves its capacity too small; Optimal reports whether
// the bounds met. Proofs can take long (they need a complete search),
// particularly with mixed alignments, which max-live ignores; callers that
// need an answer in time give a Deadline or a context that ends, and get the best packing
// found. In 10 s it packs D in 1014784 and J in 1041408, where MiniMalloc's
// own minimization found nothing within 60 s.
//
// # Deadlines
//
// A deadline (Options.Deadline, or Solve's context ending) is when Solve
// must return, and every phase keeps it: the start-order pass asks for it
// every 256 buffers, compiling the index every 4096 (and the cover lists,
// built only when the branch and bound starts, every 4096), each greedy
// pass every 256, the branch and bound every 1 to 1024 nodes (fewer on
// large problems, where a node costs more), Minimize between its probes.
// Solve then returns the best packing it has, and Stats.Cut names the phase
// the deadline cut (Stats.Phases has the time of each). A packing always
// exists: the first phase is one greedy pass in start order, which needs no
// index (each buffer's placed conflicts are then exactly the buffers still
// alive, disjoint in memory: it keeps the runs they cover, sorted by
// offset, an ended buffer cut out of its run), costs O(n log n) plus the
// runs at each start (thousands of buffers alive on Y_1, few runs: 0.05 s,
// where walking the buffers took 0.3 s), and when the deadline passes in
// it, stacks the buffers it has not reached above the others. It is also
// the portfolio's start-order best-fit pass (same offsets), so it costs
// nothing when the deadline does not cut. The index keeps no list of
// conflicting pairs, which can be quadratically many (75 million on 30 000
// buffers of a compiler trace, 1 GB with the sorting time to match): a
// buffer's conflicts are read off the buffers alive in its first section
// and those that start while it lives. Those cover lists (the buffers alive
// in each section) are as large as the sum of the buffers' section counts
// (193 million entries, 1.5 GB, on Y_1), so only the branch and bound
// builds them (see Memory); the index itself is O(n log n): demands by
// prefix sums, each buffer's busiest section by a range-maximum table. Y_1
// is packed at max-live (proven: the busiest-section order, tried first,
// reaches it) in 0.9-1.2 s and 95-98 MB for the whole command on one core
// (0.5 s of CPU: a load of 6 left it half a core; a quarter to a half of it
// is TFLM's baseline, run for the summary); before, at the same load,
// 3.6-3.7 s (2.3 s of CPU), with eight greedy passes.
//
// # Memory
//
// The branch and bound's memory is mostly its cover lists and the bound of
// each of their entries (16 bytes an entry: as many entries as the buffers'
// section counts add up to), then its per-section and per-buffer state.
// Solve estimates it from the instance's sizes before allocating any of it
// (Stats.SearchBytes: 16 bytes an entry, 76 a section, 101 a buffer, and
// the table of failed subproblems at its largest, 32 MiB; a test checks
// that it covers what the lists and a searcher allocate, within 2x). Above
// Options.MemoryLimit (1 GiB by default) the branch and bound does not run:
// Solve returns the best greedy packing, with Stats.OverMemory set, and
// hieropt pack's summary says so. On Y_1 the branch and bound would need
// 3.1 GB (its greedy reaches max-live, so it never runs). Running the
// branch and bound on the hard core only (the sections whose demand is near
// the peak and the buffers alive there, the rest of the greedy packing
// kept) would need the search to start from buffers placed at given
// offsets, which it cannot yet.
//
// # Scaling
//
// BenchmarkPackScaling fits time ~ n^k over 1k to 64k buffers (Solve with
// Minimize and a node limit of 2000, one core). Measured with the machine
// loaded (4.5-8 on its 2 cores; -benchtime 3x, the fastest run of each
// size), three runs each interleaved with the code before the start-order
// pass kept runs, passes were given up and the busiest-section order went
// first, and a fourth on the final code: on Y_1's prefixes n^1.41-1.66, the
// whole of it in 0.26-0.64 s (before: n^1.73-1.88, 3.0-3.7 s); on the
// generated traces n^1.64-1.83, 64k buffers in 5.0-9.6 s (before:
// n^1.50-1.60, 5.6-11.1 s: no clear change). The traces' exponent rose
// because their small sizes got faster (on 2,000 buffers the
// busiest-section order, now first, reaches max-live at once) while at 64k
// the branch and bound, which the greedy changes do not touch, takes more
// than half the time. Target n^1.3: not met. What grows faster than n is
// not the tree but the answer it gives: a greedy query's union of
// conflicting buffers has the holes of those buffers, and where the buffers
// alive at once grow with n (they do in Y_1's prefixes and in the generated
// traces, whose long-lived tenth lives up to n/8), so do the holes: the
// runs a best-fit query reads grow from 19 to 183-210 between 16k rows of
// Y_1 and all of it, and from 90 to 265-319 on traces from 16k to 62k
// buffers, and their union keeps 84-187 runs, whose holes are nearly all
// large enough for the buffer: cutting the hole [0, inf) by each list in
// turn, dropping the holes too small and skipping the runs under covered
// ranges, read 80% as many runs and was no faster. First fit reads the
// lists' runs in order from a heap of their heads, up to the lowest hole
// that holds the buffer (on average the 2nd to 30th run) or 32 runs, then
// merges the rest: 20% less CPU than merging on the traces' first-fit
// passes, about the same on Y_1, 25-35% more where thousands of long-lived
// buffers are alive and the hole is far up. On the traces the branch and
// bound's cover lists hold about n²/160 entries (n/80 buffers alive per
// section), and its nodes cost as much as the buffers alive where they
// place.
//
// # Measured
//
// Side by side with MiniMalloc's release build on a 2-vCPU VM (the two
// interleaved, 5 runs of each after a warm-up, median whole-process wall
// time; testdata/minimalloc/README.md, second measurement), `hieropt pack`
// takes 0.51 s for the eleven challenging instances at capacity 1048576 and
// MiniMalloc 28.7 s: 56 times less. Times taken apart vary by 2x with the
// machine and its load, so only a side-by-side run compares the two. Alone,
// Solve packs each instance in 6-140 ms (median of three runs; 417-31 000
// nodes, 337-16,329 since backjumping). The same instances mirrored in
// time take
// about 0.8 s; over six seeds both average about 60 000 nodes in total.
// The costliest are D (few nodes, but each is expensive: long-lived buffers
// make every placement lift many bounds over many sections) and E.
//
// Perfect packings are the hard case (shared/tools/perfect_pack.py N SEED:
// a 1 MiB x 4096 strip cut into N buffers by random guillotine cuts, so
// that max-live is feasible with no waste in any section: every section is
// tight at every level; perfect_test.go has a Go port of the generator).
// At max-live, 10 s each, one core, load 5-8: N = 1,000 seeds 1 / 2 / 3 in
// 5,037 nodes 22 ms / 1.32 million 9.5 s / 2,896 nodes 34 ms (before the
// floor counts and the level's cover: 534,143 nodes 1.96-4.0 s /
// unsolved / 3,828 nodes). N = 2,000 and 5,000 (seeds 1-3) and 20,000
// (seed 1, 60 s) stay unsolved: the best peak is the greedy's, 44-58%
// above max-live (BenchmarkPerfectPack: Go seeds, 10 s / 10 s / 60 s).
// Nodes are cheap now (N = 5,000: 1.1 million in 10 s, was 107,000; N =
// 2,000: 0.6-1.2 million, was 455,000; N = 20,000: 1.4 million in 60 s),
// but the search thrashes: no run places more than 200-450 buffers before
// failing, and what fails is not local. An energetic check of a section at
// every bound threshold (the buffers with bound y or more fit in [y, C);
// it subsumes the step rule between neighbouring tops) fired a few
// hundred times in 100,000 nodes at the level and around each placement,
// and was left out; so was a lookahead to each placement's top (the same
// cover test at level L+size), which left the node counts measured
// unchanged. Backjumping (above) helps where the failures are local: on
// the Go generator's instances (perfectProblem, 10 s each, load about 2),
// N = 1,000 seeds 1 / 2 / 3 went from unsolved (1.1 million nodes) /
// 1.0 million nodes 3.9 s / 13,352 nodes 88 ms to 184,056 nodes 1.8 s /
// 178,460 nodes 0.87 s / 13,082 nodes 89 ms. N = 2,000 (seeds 1-3), 5,000
// (seeds 1-3) and 20,000 (seed 1, 60 s) stay unsolved at the greedy's
// peak, mostly with fewer nodes in the time (N = 2,000: 0.10-0.69 million
// against 0.30-1.13 million; N = 20,000: 27,593 against 33,309): most
// reasons still span most of the strip, since a placement raises the
// bounds of long-lived buffers whose first sections lie far away, and a
// section left empty reads the sections of every buffer alive there.
//
// # What it learned from elsewhere
//
// The sweep-line order over canonical packings, the per-section floor and
// demand test, the static rankings WAT/TAW/TWA, temporal decomposition and
// round-robin restarts come from the MiniMalloc paper and its description;
// TFLite's greedy by size is the first greedy order. The section-based
// branching with an explicit "left empty" branch and its rest bound, the
// hole dominance, the table of failed region states and the nested per-region
// Luby restarts are this package's own.
package pack
