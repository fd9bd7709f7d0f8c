package bounds

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// # Relax-and-cut: above the linear relaxation
//
// Each block's subproblem is a shortest path, whose linear relaxation has
// integral optima, so the best L(y) equals the optimum of R's linear
// relaxation: where blocks would fill a capacity row exactly only by
// splitting one of them, the bound lets them. Whole lifts it with valid
// inequalities of R's integer points that the linear relaxation breaks,
// all in the same variables x[b][l][t] ("b sits in l at t"):
//
//   - tightened capacities: the footprints that can sit in l at t are
//     whole, so what they take is one of their subset sums; a row's
//     capacity becomes the largest subset sum of its members' footprints
//     within it (tighten; exact by a bitset over the footprints' common
//     divisor, where that is small enough);
//   - cardinality cuts: of the members of a row with footprints at least
//     f, at most k sit there, k the most of their smallest that fit;
//   - extended covers: where the cheapest paths overfill a row, the
//     largest of the blocks there, C, until they exceed the capacity,
//     cannot all sit there; nor can |C| of C and the members at least as
//     large as C's largest: at most |C|-1 of them.
//
// A cut is priced like a row: a price lambda >= 0 (per byte of the cut's
// scale, so that rows and cuts take steps of one size) adds to the cost
// of each state it counts and subtracts lambda times its right-hand side.
// The subproblems stay shortest paths, and for any prices >= 0 of valid
// inequalities L stays a lower bound on R's optimum. Cuts are found
// (separate) from the current paths: where a row is over its capacity
// the paths' blocks there break a cut of each kind (relax-and-cut:
// Lucena, 2005). The step rule prices rows and cuts alike.

// member is a state that takes bytes from a row: block b's state k (step
// k/L, level k%L), bytes its footprint there.
type member struct {
	b, k  int32
	bytes float64
}

// cut is a valid inequality of R: at most rhs of the states members sit
// in their level at the row's timestep; scale converts a count to bytes.
type cut struct {
	row        int32
	members    []member
	rhs, scale float64
}

// subsetWork bounds the words the bitset subset sums of tighten visit in
// all (about a millisecond; 2e7 took a tenth of the time of resnet50-int8's
// bound on the U55 copy, and the mean gap to the MILP's optimum on the
// shipped pairs where it solves was 0.23% with it (53 pairs), 0.22% with
// 2e6 (54)).
const subsetWork = 2e6

// sortMembers sorts each row's members, largest first, ties by block.
func (w *whole) sortMembers() {
	for _, ms := range w.members {
		slices.SortFunc(ms, func(a, b member) int {
			if a.bytes != b.bytes {
				if a.bytes > b.bytes {
					return -1
				}
				return 1
			}
			return int(a.b) - int(b.b)
		})
	}
}

// tighten lowers each row's capacity to the largest subset sum of its
// members' footprints within it, where the bitset over their common
// divisor stays within subsetWork.
func (w *whole) tighten() {
	work := 0.0
	for r := range w.rows {
		ms := w.members[r]
		var g uint64
		for _, m := range ms {
			g = gcd(g, uint64(m.bytes))
		}
		if g == 0 {
			continue
		}
		n := uint64(w.rows[r].cap) / g // the capacity in units of g
		words := n/64 + 1
		if work += float64(words) * float64(len(ms)); work > subsetWork {
			break
		}
		reach := make([]uint64, words) // bit i: a subset sums to i*g
		reach[0] = 1
		for _, m := range ms {
			shiftOr(reach, uint64(m.bytes)/g)
		}
		if extra := words*64 - (n + 1); extra > 0 {
			reach[words-1] &= ^uint64(0) >> extra // sums above the capacity
		}
		for i := int(words) - 1; i >= 0; i-- {
			if reach[i] != 0 {
				top := uint64(i)*64 + uint64(63-bits.LeadingZeros64(reach[i]))
				w.rows[r].cap = float64(top * g)
				break
			}
		}
	}
}

// shiftOr sets a |= a << s, bits past the end dropped.
func shiftOr(a []uint64, s uint64) {
	ws, bs := int(s/64), s%64
	for i := len(a) - 1; i >= ws; i-- {
		v := a[i-ws] << bs
		if bs != 0 && i-ws-1 >= 0 {
			v |= a[i-ws-1] >> (64 - bs)
		}
		a[i] |= v
	}
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// separate adds the cuts that the last evaluation's paths break (w.on),
// at most two per row over its capacity (g[r] > 0), each once; it
// returns how many it added.
func (w *whole) separate(g []float64) int {
	added := 0
	var path []int // indices in the row's members of those on the paths
	for r := range w.rows {
		if g[r] <= 0 {
			continue
		}
		ms, capa := w.members[r], w.rows[r].cap
		path = path[:0]
		for i, m := range ms {
			if w.on[m.b][int(m.k)/w.L] == int8(int(m.k)%w.L) {
				path = append(path, i)
			}
		}
		// The most violated cardinality cut: over the thresholds f (the
		// path's footprints), the members at least f (a prefix), the most
		// of them that fit (k) against those the paths put there.
		bestEnd, bestK, bestBy := 0, 0, 0
		for j, i := range path {
			if j+1 < len(path) && ms[path[j+1]].bytes == ms[i].bytes {
				continue // the threshold's last member on the paths
			}
			end := i + 1
			for end < len(ms) && ms[end].bytes == ms[i].bytes {
				end++
			}
			k, sum := 0, 0.0
			for e := end - 1; e >= 0 && sum+ms[e].bytes <= capa; e-- {
				sum += ms[e].bytes
				k++
			}
			if by := j + 1 - k; by > bestBy {
				bestEnd, bestK, bestBy = end, k, by
			}
		}
		if bestBy > 0 {
			added += w.addCut(r, ms[:bestEnd], float64(bestK), fmt.Sprint("k", r, " ", bestEnd))
		}
		// The extended cover of the largest on the paths.
		var sum float64
		var cover []int
		for _, i := range path {
			sum += ms[i].bytes
			cover = append(cover, i)
			if sum > capa {
				break
			}
		}
		if sum <= capa {
			continue
		}
		end := 0 // the members at least as large as the cover's largest
		for end < len(ms) && ms[end].bytes >= ms[cover[0]].bytes {
			end++
		}
		set := slices.Clone(ms[:end])
		var key strings.Builder
		fmt.Fprint(&key, "c", r, " ", end)
		for _, i := range cover {
			if i >= end {
				set = append(set, ms[i])
				fmt.Fprint(&key, " ", i)
			}
		}
		added += w.addCut(r, set, float64(len(cover)-1), key.String())
	}
	return added
}

// cutScale sets a cut's scale, the bytes a unit of its count weighs in the
// step: cutScale times its row's capacity over rhs+1 (about the footprint
// of one of its members). Any scale keeps the bound valid; 0.3 converged
// better than 1 or 3 on the shipped pairs (gpt2-small-like-int8 on the
// TPU copy, 600 steps: 0.67% below the MILP's optimum, 0.94% with 1,
// 1.05% with 3; 0.1 was worse on the mean of the 54 pairs: 0.24%, 0.22%
// with 0.3).
const cutScale = 0.3

// addCut adds the cut "at most rhs of members" to row r's, unless its key
// was added before; it returns 1 if it added it.
func (w *whole) addCut(r int, members []member, rhs float64, key string) int {
	if w.seen[key] {
		return 0
	}
	w.seen[key] = true
	// Valid: the most of the members that fit (the smallest first; the
	// members are sorted, largest first) are at most rhs.
	n, sum := 0, 0.0
	for i := len(members) - 1; i >= 0 && sum+members[i].bytes <= w.rows[r].cap; i-- {
		sum += members[i].bytes
		n++
	}
	if float64(n) > rhs {
		panic(fmt.Sprintf("bounds: cut %s: %d of its members fit, more than %g", key, n, rhs))
	}
	w.cuts = append(w.cuts, cut{row: int32(r), members: slices.Clone(members), rhs: rhs, scale: cutScale * w.rows[r].cap / (rhs + 1)})
	return 1
}
