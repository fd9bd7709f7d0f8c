// Package timeline is the simulation behind the timeline cost model
// (FORMATS.md section 6.3) and an incremental re-pricer for the planner's
// search.
//
// The package is pure arithmetic: a Program holds per op its compute time
// c(t) and memory time m(t), the copies (transfers and loads) with their
// windows and times x(k), and the number C of DMA channels; the answers are
// numbers. It knows nothing of workloads, profiles or plans: costmodel
// builds Programs from them.
//
// # The model
//
// Ops 0..n-1 run in order on one compute unit, op t for d(t) =
// max(c(t), m(t)). A copy is issued at the beginning of op Start, runs on a
// DMA channel, and op At waits for its end. With R the time the previous op
// ended and F[j] the time channel j finishes its last copy:
//
//	for t = 0 .. n-1:
//	    for each copy k with Start == t, by (At, Rank):
//	        j = the channel with the least F (lowest index on ties)
//	        begin = max(R, F[j]); end[k] = begin + x(k); F[j] = end[k]
//	    T = max(R, max end[k] over copies with At == t)
//	    R = T + d(t)
//	cost = R
//
// Simulate computes the cost, Breakdown the timeline op by op (begin, end,
// compute, memory, stall = T - R before the op) and copy by copy (issue =
// R before op Start, begin, end, channel). Rank stands for the block name
// of FORMATS.md: the caller passes any rank in the same order.
//
// # Re-pricing a change
//
// The search prices many candidate plans that differ from a base plan in a
// few blocks. A stall moves every later op, so the seed model's trick
// (re-price the changed blocks only) does not apply. Instead, NewBase
// simulates the base once and keeps a checkpoint of the state before every
// op; Reprice simulates a Change (ops retimed, copies removed or added, a
// moved copy being both) from the checkpoint at the first op it touches,
// and stops as soon as the changed program's state has rejoined the base's.
//
// The state before op t is R, the channel ends F[1..C], and the pending
// ends: per op a >= t, the latest end of the copies issued before t for op
// a. Three facts make the scheme exact.
//
// Shift. Every step is built from max and + of a constant (and, below,
// min), so it commutes with adding a constant δ to every component of the
// state: if the state before t is the base's plus δ, and ops t.. and the
// copies issued from t on are the base's, every later value is the base's
// plus δ, and so is the cost.
//
// Canonical state. From t on R never decreases, and the state enters only
// through max(R', ·) with R' >= R: begin = max(R', F[j]) =
// max(R', max(R, F[j])), T = max(R', max(R, pending)). So F[j] matters only
// clamped, as max(F[j], R), and a pending end only as max(end, R). Which
// channel holds which clamped value does not matter either: the channel j
// with the least raw F has the least clamped value (clamping is monotone),
// so begin = max(R', min_i F[i]) is a function of the multiset of clamped
// values; afterwards one least clamped value is replaced by end >= R', and
// any other channel with the same clamped value would have left the same
// multiset. (The channel the rule picks can differ: raw F = [5, 3] with
// R = 10 picks channel 1, clamped values [10, 10] would pick channel 0;
// that is why Breakdown keeps raw F.) So the cost after t is a function of
// the canonical state: R, the clamped channel ends sorted, and per op a >= t
// the clamped latest pending end; Reprice keeps R and compares the rest as
// offsets from R (0 for an idle channel, for an op with nothing in flight).
// Pending ends that are not past R are also not needed: a copy for op a < t
// has ended by R, since op a waited for it.
//
// Nonexpansion. max, min, + of a constant and sorting are 1-Lipschitz in
// the sup norm, hence so is the map from a state to the cost: two states
// that differ by at most τ in every component give costs that differ by at
// most τ.
//
// Reprice therefore:
//
//  1. loads the base's checkpoint before t0, the first op the change
//     touches (an op retimed, or the Start of a removed or added copy);
//     before t0 the two programs are equal, so this state is exact;
//  2. simulates the changed program op by op, issuing the base's copies
//     that stay merged with the added ones in (At, Rank) order;
//  3. before each op t that the change does not touch, compares the state
//     with the base's before t shifted by δ = R − R_base(t). If they match
//     and no touched op is left, the cost is the base's cost + δ. If one is
//     left, at t', the ops between are the base's, so the state before t'
//     is the base's shifted by δ: Reprice loads that and goes on from t'.
//
// A checkpoint is small: R, the C sorted clamped ends, and the in-flight
// copies, which need no list per op. A channel's copies end in the order
// they were issued (begin >= the channel's previous end), so those still in
// flight before op t, issued before t and ending after R(t), are a
// contiguous run of the channel's copies; a checkpoint stores the run's
// bounds per channel (see "Chunks" below for where the runs live). The
// in-flight copies of the changed program are a short list (issued, not
// yet past R); comparing them with the base's uses per-op arrays of the
// Scratch stamped per comparison, so a call allocates nothing once its
// Scratch has grown.
//
// # Deriving a base
//
// The search keeps a beam of states, and each state in it needs a Base of
// its own to price its children. NewBase costs O(n) (14-15 ms at 100,000
// ops); Derive builds the base of a changed program in O(window + K + G +
// n/(K·G)) time and memory (K, G below), sharing the rest with the parent.
//
// Chunks. A Base holds its program and checkpoints in chunks of K = 32 ops:
// a chunk's program (per op c(t) and m(t), and the copies issued at its ops
// in issue order) and its checkpoints (R, the sorted clamped channel ends,
// the latest end in flight, and the in-flight runs). Each chunk is
// self-contained: its copy lists are lane c, the copies in flight before
// its first op sorted by end, then lanes 0..C-1, the copies issued within
// the chunk on each channel of the simulation that built it, in issue
// order; every lane ascends by end, so the in-flight copies before each of
// its ops are a run per lane, stored as two int32 per lane. Chunks are
// immutable and shared by every base whose program and canonical state
// agree there. Chunks are held in groups of G = 32 (1,024 ops); a base is
// a table of groups, n/1,024 entries.
//
// Offsets. A chunk's times are stored less an offset: a base reads a time
// as the stored value plus the chunk's offset plus its group's. The shift
// fact says why this is all a shared chunk needs: once the changed
// program's canonical state before op t equals the parent's shifted by δ
// and the ops from t on are the parent's, every later checkpoint is the
// parent's plus δ. The offsets from R that Reprice compares are taken
// within one chunk, where the offset cancels.
//
// Derive(ch):
//
//  1. checks ch as Reprice does and edits the program of the chunks it
//     touches (each a copy; its ops retimed, its copy list merged);
//  2. loads the parent's checkpoint at the start of the first touched
//     chunk and simulates whole chunks from there, recording new chunks
//     (no offset). Before each chunk the change does not touch it compares
//     the state with the parent's, as Reprice does (same tolerance); if it
//     has rejoined with shift δ, the chunks up to the next touched one are
//     the parent's with δ added to their offsets: a group wholly in that
//     range keeps the parent's group and adds δ to the group's offset, a
//     group in part gets a copy of its 32 chunk entries with δ added to
//     those in the range. If a touched chunk is left, Derive loads the
//     parent's checkpoint there, shifted by δ, and goes on;
//  3. takes the cost as Reprice does: the parent's plus δ, or the
//     simulation's own at the end.
//
// Why exact. Before the first touched chunk the programs agree, so those
// chunks are the parent's. A simulated chunk is the simulation of the
// changed program from a state canonically equal to its own (the parent's
// checkpoint where the programs agree, or the chunk before's end). A
// shared chunk is the parent's plus δ by the shift fact. The canonical
// state before every op is then the one a fresh NewBase would record, up
// to rounding, and Reprice on a derived base works as on a fresh one. The
// channel each copy ran on in a simulated chunk may differ from the one
// NewBase would pick (clamped ends tie where raw ones do not), which is
// why lanes are the builder's channels and only their multiset matters.
//
// Copies are named by their key, CopyKey{Start, At, Rank}: unique within a
// program (Validate), it names the same copy in a parent and all the bases
// derived from it, whatever else is removed or added; Change.Removed lists
// keys, and a copy moved to another Start is removed by its old key and
// added with the new Start.
//
// Memory. A base built by NewBase holds about (n+1)·(44 + 16·C) bytes plus
// 44 bytes per copy (measured: 1.12 MB for 10,000 ops, 5,000 copies, two
// channels).
// A derived base holds its group table (16 bytes a group), the groups it
// copied (768 bytes each) and the chunks it simulated (about 3 KB for 32 ops
// with two channels), and references the rest, never its parent: when the
// parent is dropped, whatever only the parent used is garbage. A chain of
// 10,000 derives on a 10,000-op program, keeping only the last base, keeps
// 1.12 MB alive, what a base built from scratch for the same program holds
// (BenchmarkDeriveChain, retained-B against fresh-B); each derive
// simulated 1.02 chunks on average (TestDeriveChainStaysSmall).
//
// # Floating point
//
// The base and the changed program round differently once they diverge:
// R + δ + x and R + x + δ need not be equal. So the comparison in
// Reprice's step 3 accepts a difference up to τ = 4u·(a+2)·max(R, R_base(t)) per
// component, u = 2^-53 and a the additions (ops and copies) simulated since
// the last checkpoint was loaded: an exact comparison would hold Reprice
// back a step where the offsets differ by an ulp (see the "rejoins despite
// rounding" test). Each addition of a simulation rounds by at most u·cost,
// and errors add up along a chain of additions (max is exact and
// 1-Lipschitz), so Simulate is within (n+k)·u·cost of the exact cost, k the
// copies. The value Reprice returns inherits that error from the base's
// checkpoints and its final cost, the same again from its own additions, at
// most τ per accepted match (nonexpansion), one rounding per component per
// loaded checkpoint and two for δ and the sum. With j checkpoints loaded,
// to first order,
//
//	|Reprice − Simulate(changed program)| <= (7(n+k) + 10j + 2)·u·cost
//
// that is under 5e-13 relative for 200 ops and 400 copies (the randomized
// tests ask for 1e-12), about 1.2e-10 for 100,000 ops and 50,000 copies.
// That is the worst case; on 100,000-op programs the worst error seen in
// 600 random changes was 4.2e-16 relative.
//
// A derived base's checkpoints are a patchwork of simulations, each joined
// to the one before where a rejoin was accepted (within τ) or a checkpoint
// loaded, plus one rounding each for the offsets' sum and for adding it. So
// the bound above holds for Reprice and Cost on a derived base with j the
// checkpoints loaded and rejoins accepted by every derive of its chain
// that still shows in it: it grows at most linearly with the chain's
// length. Chains of up to 50 derives on random programs stay within 1e-12
// of NewBase checkpoint for checkpoint (TestDeriveChainMatchesNewBase);
// after 10,000 derives on 10,000 ops R differs by at most 8e-16 of the
// cost (TestDeriveChainStaysSmall).
//
// # Cost, measured
//
// go test ./costmodel/timeline -bench . -benchmem, on the team's 2-core
// machine, shared with other jobs: the range over three runs. Two channels,
// 0.5 copies per op, windows up to 4 ops (a third with Start == At):
//
//	Simulate                  1k ops 7.5-9.4 µs, 10k 82-83 µs, 100k 1.1-1.5 ms; no allocation
//	NewBase                   1k ops 0.14-0.22 ms, 10k 1.6-1.8 ms, 100k 14-15 ms; 118-121 bytes per op
//	Reprice, 1k ops           an op's memory time   a moved copy   mean (max) ops simulated
//	  compute-bound           0.07-0.08 µs          0.17 µs        1.0 (2), 2.2 (5)
//	  memory-bound            0.07 µs               0.17-0.19 µs   1.1 (3), 2.3 (5)
//	  DMA-bound (62% stall)   0.09-0.10 µs          0.26-0.27 µs   1.4 (8), 4.6 (13)
//	  deep prefetch           1.0-1.2 µs            4.2-4.3 µs     20 (241), 90 (254)
//	Derive                    1k ops      10k ops     100k ops    bytes per call   chunks simulated
//	  compute-bound, op       4.1-5.7 µs  6.6-9.0 µs  5.2-7.3 µs  3.8-5.7 KB       1.0
//	  compute-bound, move     9.5-10 µs   7.2-8.0 µs  5.8-7.6 µs  4.4-6.2 KB       1.1
//	  deep prefetch, op       11-14 µs    10-11 µs    7.8-11 µs   5.0-7.1 KB       1.5-1.6
//	  deep prefetch, move     34-40 µs    19-23 µs    20-23 µs    11-13 KB         3.8
//	Derive chain              10,000 derives on 10k ops: 0.15-0.19 s, with drawing the changes
//
// No Reprice allocates. The steps do not grow with n: at 100k ops they are
// the same, and the time 0.13-1.3 µs outside deep prefetch, 2.3-6.2 µs in
// it (more cache misses, more noise). "Deep prefetch" is the hard case:
// every copy issued 16 to 64 ops ahead and the channels busy 88% of the
// time, so ops rarely stall; a retimed op then moves R but not the copies
// in flight, and the states differ, genuinely, until an op stalls in one
// of the programs.
//
// Derive's time is the chunks it simulates (1-2 µs for 32 ops, more in
// deep prefetch, where more copies are in flight) plus its allocation,
// 4-13 KB a call, and the collection of it; it does not grow with n (the
// group table is 1.6 KB at 100k ops). Smaller programs measure slower
// only because their heap is small, so the collector runs more often for
// the same allocation. The sizes were chosen by measuring Derive at 100k
// ops (µs for an op change in the compute-bound and a moved copy in the
// deep-prefetch regime, bytes for the latter) and the heap of a base of
// 10k ops:
//
//	K = 16    5.2 µs   17 µs (6.4 chunks)    16 KB   1.37 MB
//	K = 32    5.7-7.1  19-22 (3.8)           14      1.12
//	K = 64    9.6      24-25 (2.4)           16      1.09
//	K = 128   10-17    26-29 (1.7)           20
//
// A flat table of chunks instead of groups (K = 64) was O(n/K) a call:
// 47 KB and 18 µs at 100k ops.
//
// # Alternatives
//
// Issue 15 suggests a max-plus product of per-op matrices in a segment
// tree: a change at t re-multiplies the O(log n) nodes above t. It needs a
// state of fixed size on which every op acts max-plus linearly. Neither
// holds in general: with C > 1 the channel rule takes a minimum (begin =
// max(R, min F)), which is not max-plus linear (a composition of such steps
// is a min-max-plus function, which has no fixed-size matrix form), and the
// pending ends grow with the copies' windows. Restricted to C = 1 and
// windows of at most w ops, the state is R, F and w pending ends, and a
// change costs O((w+2)³·log n) ≈ 6³·10 = 2,160 multiply-adds for w = 4 and
// n = 1,000, 1-2 µs, more than the checkpoint scheme's usual 0.1-0.3 µs;
// it would win only in the deep-prefetch case, which it cannot represent
// (long windows).
//
// What might help the deep-prefetch case, keeping the checkpoints: while
// the changed state is the base's with R alone shifted by δ > 0 (channels
// and pending ends unshifted), op t behaves as in the base plus δ unless
// the base's stall at t is positive, or a copy issued at t finds its
// channel's end within δ of R; so Reprice could jump to the first such t
// with a query over per-op slacks recorded per chunk. Measured before
// building it, on the benchmark's deep-prefetch programs (1k and 100k ops,
// 4,000 changes each): a third of the op changes lengthen the op, and
// those simulate 30-33 ops, of which the jump would skip 20-21; the rest
// (shorter ops, which need raw channel ends below R that canonical
// checkpoints drop) and the moved copies would gain nothing: a moved copy
// lands on another channel and reorders the queue, so the channels differ
// from the base's for most of its 80-90 ops (R and the channels matched
// the base's before 1.5 of them on average). At best a third off the op
// changes and nothing off the moves, for 16 bytes per checkpoint and a
// second kind of state to restore: not built.
package timeline
