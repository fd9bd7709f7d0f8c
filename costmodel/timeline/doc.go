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
// contiguous run of the channel's copies; NewBase stores the run's bounds
// per op and channel. Memory: about (n+1)·(36 + 16·C) bytes plus 52 bytes
// per copy. The in-flight copies of the changed program are a short list
// (issued, not yet past R); comparing them with the base's uses per-op
// arrays of the Scratch stamped per comparison, so a call allocates nothing
// once its Scratch has grown.
//
// # Floating point
//
// The base and the changed program round differently once they diverge:
// R + δ + x and R + x + δ need not be equal. So the comparison in step 3
// accepts a difference up to τ = 4u·(a+2)·max(R, R_base(t)) per component,
// u = 2^-53 and a the additions (ops and copies) simulated since the last
// checkpoint was loaded: an exact comparison would hold Reprice back a step
// where the offsets differ by an ulp (see the "rejoins despite rounding"
// test). Each addition of a simulation rounds by at most u·cost, and
// errors add up along a chain of additions (max is exact and 1-Lipschitz),
// so Simulate is within (n+k)·u·cost of the exact cost, k the copies. The
// value Reprice returns inherits that error from the base's checkpoints
// and its final cost, the same again from its own additions, at most τ
// per accepted match (nonexpansion), one rounding per component per loaded
// checkpoint and two for δ and the sum. With j checkpoints loaded, to
// first order,
//
//	|Reprice − Simulate(changed program)| <= (7(n+k) + 10j + 2)·u·cost
//
// that is under 5e-13 relative for 200 ops and 400 copies (the randomized
// tests ask for 1e-12), about 1.2e-10 for 100,000 ops and 50,000 copies.
// That is the worst case; on 100,000-op programs the worst error seen in
// 600 random changes was 4.2e-16 relative.
//
// # Cost, measured
//
// go test ./costmodel/timeline -bench . -benchmem, on the team's 2-core
// machine, shared with other jobs: the range over three runs. Two channels,
// 0.5 copies per op, windows up to 4 ops (a third with Start == At):
//
//	Simulate                  1k ops 21-24 µs, 10k 0.19-0.24 ms, 100k 2.5-6.4 ms; no allocation
//	NewBase                   1k ops 0.20-0.27 ms, 10k 2.0-3.2 ms, 100k 17-21 ms
//	Reprice, 1k ops           an op's memory time   a moved copy   mean (max) ops simulated
//	  compute-bound           0.14-0.20 µs          0.22-0.43 µs   1.0 (2), 2.2 (5)
//	  memory-bound            0.12-0.29 µs          0.22-0.54 µs   1.1 (3), 2.3 (5)
//	  DMA-bound (62% stall)   0.16-0.29 µs          0.33-0.83 µs   1.4 (8), 4.6 (13)
//	  deep prefetch           1.3-2.2 µs            6.4-10 µs      20 (241), 90 (254)
//
// No Reprice allocates. The steps do not grow with n: at 100k ops they are
// the same, and the time 0.13-2.2 µs outside deep prefetch (more cache
// misses, more noise). "Deep prefetch" is the hard case: every copy issued
// 16 to 64 ops ahead and the channels busy 88% of the time, so ops rarely
// stall; a retimed op then moves R but not the copies in flight, and the
// states differ, genuinely, until an op stalls in one of the programs.
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
// What would help that case, keeping the checkpoints: while the changed
// state is the base's with R alone shifted by δ > 0 (channels and pending
// ends unshifted), op t behaves as in the base plus δ unless the base's
// stall at t is positive, or a copy issued at t finds its channel's end
// within δ of R; so Reprice could jump to the first such t with a
// range-minimum query over per-op slacks precomputed in NewBase (a sparse
// table, O(1) per query), and δ < 0 likewise with the base's stalls and
// idle channels. Not built: the requested regimes are well under the 1 µs
// target.
package timeline
