package pack

import (
	"math"
	"slices"
)

// The hard core. On large instances the branch and bound over the whole
// instance rarely gets far: each node costs as much as the buffers alive
// where it places, and a packing takes a node per buffer. But the
// greedy's packing is usually wrong only near its peak. So before it,
// Solve searches the hard core: it keeps the greedy's placement of the
// buffers low in memory and lets the branch and bound place the buffers
// near the top (and those in the way below them) under a smaller
// capacity, above the kept ones. Each success lowers the peak; the next
// core is taken from the new packing (a large-neighbourhood search whose
// neighbourhoods are searched exactly).

// coreFrom is the number of buffers, in the largest part of the instance
// that no buffer's life crosses out of (the whole search splits the
// instance there and packs the parts apart), from which Solve searches
// hard cores before the whole instance: below it the whole-instance
// search is cheap. 20 SOMAS copies that do not meet in time (parts of
// 1,042 buffers) are packed at max-live by the whole search in 20,840
// nodes (2.2-2.6 s); a core search first made it 25,230 (2.7-4.2 s). The
// challenging set (150-450 buffers) never gets there.
const coreFrom = 2048

// coreFracs are the capacities a hard-core step tries, in order, as
// fractions of the way from max-live to the peak: the first that the core
// search packs is kept. Half the way, tried first at first, failed on a
// 32,000-buffer trace after 4,044 nodes (1.8 s), where three quarters
// packed in 714 nodes (71 ms); on the SOMAS copies only nine tenths gives
// a core small enough to search (4,549 buffers).
var coreFracs = [...]float64{0.75, 0.9}

// coreRounds bounds the rounds in which coreOf grows a core until every
// section has room for it; a core grows by the kept buffers above a
// section's floor minus twice its excess, four, eight and sixteen times
// from rounds 16, 32 and 48 on. On the SOMAS copies twice throughout took
// 17 to 40 rounds to the core of 4,549 buffers; doubling the factor every
// four rounds found no core there in 24 rounds at nine tenths, and one of
// 19,868 buffers at three quarters.
const coreRounds = 64

// coreShare bounds a core: at most one buffer in coreShare. Larger cores
// are not searched: on 20 SOMAS copies a core of 15,416 of 20,840 buffers
// took 9 s to fail, where one of 4,549 was packed in 2.1 s.
const coreShare = 4

// coreBudget is the node budget of one core search: four nodes per core
// buffer (a packing takes one), and at least this many.
const coreBudget = 2000

// hardCore lowers the best packing's peak by core searches (see above)
// while it is above what was asked (max-live with Minimize, else the
// capacity), until a step finds nothing at any of its capacities, the node
// limit is spent or stop says so. Every packing it keeps is valid (see
// searchCore); a core search that fails proves nothing, so hardCore never
// claims a capacity infeasible. It runs from coreFrom buffers on (in the
// largest part), and reports whether the solution is final: what was asked is reached, or
// stop or the node limit ended it (Stats.Limited).
func (s *solver) hardCore() bool {
	sol, in := s.sol, s.in
	if largestPart(in) < coreFrom {
		return false
	}
	defer func() {
		if s.outOfNodes() {
			sol.Stats.Limited = true
		}
	}()
	want := s.lb
	if !s.o.Minimize {
		want = s.limitCap
	}
	for sol.Peak > want && !s.stop() && !s.outOfNodes() {
		gap := sol.Peak - s.lb
		found := false
		for _, f := range coreFracs {
			C := max(s.lb+int64(f*float64(gap)), want)
			if C >= sol.Peak {
				continue
			}
			free := coreOf(in, sol.Offsets, C-gap, C, in.n/coreShare, s.stop)
			if free == nil {
				continue
			}
			budget := min(max(coreBudget, 4*int64(countTrue(free))), s.nodesLeft())
			r := searchCore(in, s.p, sol.Offsets, free, C, budget, s.memoryLimit(), s.o.Seed, s.stop)
			sol.Stats.Nodes += r.nodes
			if r.offs != nil {
				sol.Offsets, sol.Peak = r.offs, peakOf(s.p, r.offs)
				sol.Stats.Cores++
				sol.Solved = sol.Peak <= s.limitCap
				sol.Optimal = sol.Peak == s.lb
				found = true
				break
			}
			if r.stopped || s.outOfNodes() {
				return true
			}
		}
		if !found {
			break
		}
	}
	return sol.Peak <= want || s.stop() || s.outOfNodes()
}

// largestPart returns the number of buffers in the largest part of in
// that no buffer's life crosses out of: the runs of sections between the
// boundaries that no buffer is alive on both sides of.
func largestPart(in *inst) int {
	cross := make([]int32, in.ns+1) // by differences: buffers alive across boundary k (after section k)
	for b := 0; b < in.n; b++ {
		cross[in.lo[b]]++
		cross[in.hi[b]-1]--
	}
	largest, part := 0, 0
	var c int32
	for k := 0; k < in.ns; k++ {
		part += int(in.loStart[k+1] - in.loStart[k])
		if c += cross[k]; c == 0 {
			largest, part = max(largest, part), 0
		}
	}
	return max(largest, part)
}

// memoryLimit is Options.MemoryLimit, or its default.
func (s *solver) memoryLimit() int64 {
	if s.o.MemoryLimit == 0 {
		return DefaultMemoryLimit
	}
	return s.o.MemoryLimit
}

// countTrue counts the true values of bs.
func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// coreOf picks a core for searchCore at capacity C from the packing offs:
// the buffers whose top (offset+size) is above level, and then, while the
// search would fail at once, more. The kept buffers make a floor in each
// section (their highest top there), each core buffer's bound is the
// highest floor of its sections, and the search needs every section's
// least bound plus its core demand, and every core buffer above its
// bound, within C. Where a section fails, the kept buffers alive there
// above its floor minus twice the excess (more in later rounds: see
// coreRounds) join the core; where a buffer
// does not fit above its bound, those alive with it above C minus its
// size. It returns nil if coreRounds rounds leave a failure, as soon as
// the core has more than most buffers, or when stop (asked every round)
// says so.
func coreOf(in *inst, offs []int64, level, C int64, most int, stop func() bool) []bool {
	free := make([]bool, in.n)
	for b := 0; b < in.n; b++ {
		free[b] = offs[b]+in.size[b] > level
	}
	if countTrue(free) > most {
		return nil
	}
	ns := in.ns
	floors := newSectionTags(ns, false)
	bounds := newSectionTags(ns, true)
	thrs := newSectionTags(ns, true)
	floor := make([]int64, ns)
	dd := make([]int64, ns+1)
	thr := make([]int64, ns)
	for round := range coreRounds {
		if stop() {
			return nil
		}
		floors.reset()
		bounds.reset()
		thrs.reset()
		clear(dd)
		for b := 0; b < in.n; b++ {
			if free[b] {
				dd[in.lo[b]] += in.size[b]
				dd[in.hi[b]] -= in.size[b]
			} else {
				floors.put(in.lo[b], in.hi[b], offs[b]+in.size[b])
			}
		}
		for s := range floor {
			floor[s] = floors.at(s)
		}
		fm := newRangeMax(floor)
		failed := false
		for b := 0; b < in.n; b++ {
			if !free[b] {
				continue
			}
			lb := roundUp(fm.max(in.lo[b], in.hi[b]), in.align[b])
			bounds.put(in.lo[b], in.hi[b], lb)
			if lb+in.size[b] > C {
				failed = true
				thrs.put(in.lo[b], in.hi[b], C-in.size[b])
			}
		}
		var d int64
		for s := range thr {
			d += dd[s]
			thr[s] = thrs.at(s)
			if m := bounds.at(s); m != inf && m+d > C {
				failed = true
				thr[s] = min(thr[s], floor[s]-int64(2<<(round/16))*(m+d-C))
			}
		}
		if !failed {
			return free
		}
		rm := newRangeMin(thr)
		for b := 0; b < in.n; b++ {
			if !free[b] && offs[b]+in.size[b] > rm.min(in.lo[b], in.hi[b]) {
				free[b] = true
			}
		}
		if countTrue(free) > most {
			return nil
		}
	}
	return nil
}

// coreResult is the outcome of one core search.
type coreResult struct {
	offs    []int64 // the whole packing, nil if the search found none
	nodes   int64
	stopped bool // stop ended the search
}

// searchCore searches a packing within capacity C that keeps the buffers
// of offs not marked free where they are and places the free ones (the
// core) by the branch and bound.
//
// The kept buffers make a floor under the core: over each section of the
// core (the time between two consecutive ends of its buffers), the highest
// top of the kept buffers alive there. A core buffer placed at or above
// the floor of each of its sections overlaps no kept buffer alive with it
// (any such one is alive in one of those sections, wholly below its
// floor), so every packing of the core above its floor, with the kept
// buffers, is a packing of the whole. The search starts from the state
// the floor makes (each section's real top is its floor, each buffer's
// bound the highest floor of its sections, rounded up to its alignment;
// the lattice of offsets is that of the sizes, alignments and floors) and
// builds canonical packings of the core over it, bottom up as usual. A
// core search that fails proves nothing about the whole instance (the
// kept buffers could have moved).
//
// budget bounds its nodes; stop is asked as in the branch and bound. A
// core whose search would take more than memLimit bytes (by searchBytes,
// before allocating any) is not searched.
func searchCore(in *inst, p *Problem, offs []int64, free []bool, C, budget, memLimit int64, seed uint64, stop func() bool) coreResult {
	var core []int32
	for b := 0; b < in.n; b++ {
		if free[b] {
			core = append(core, int32(b))
		}
	}
	if len(core) == 0 {
		return coreResult{}
	}
	sub := &Problem{Buffers: make([]Buffer, len(core))}
	times := make([]int64, 0, 2*len(core))
	for i, b := range core {
		sub.Buffers[i] = p.Buffers[b]
		times = append(times, p.Buffers[b].Lower, p.Buffers[b].Upper)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	cin := newInst(sub, stop)
	if cin == nil {
		return coreResult{stopped: true}
	}
	if cin.searchBytes() > memLimit || cin.coverSize > math.MaxInt32 {
		return coreResult{}
	}
	ns := cin.ns
	floors := newSectionTags(ns, false)
	floors.reset()
	for b := 0; b < in.n; b++ {
		if free[b] {
			continue
		}
		// The core's sections that meet [Lower, Upper): from the one
		// that holds Lower (or the first) to the last that starts before
		// Upper.
		bb := p.Buffers[b]
		lo, _ := slices.BinarySearch(times, bb.Lower+1)
		hi, _ := slices.BinarySearch(times, bb.Upper)
		if lo, hi := max(lo-1, 0), min(hi, ns); lo < hi {
			floors.put(int32(lo), int32(hi), offs[b]+in.size[b])
		}
	}
	floor := make([]int64, ns)
	for s := range floor {
		floor[s] = floors.at(s)
		cin.g = gcd(cin.g, floor[s])
	}
	if !cin.ensureCover(stop) {
		return coreResult{stopped: true}
	}
	t := newSearcher(cin, C, 14)
	t.stop, t.seed, t.limit, t.budget = stop, seed, budget, budget
	copy(t.h, floor)
	copy(t.hr, floor)
	for b := int32(0); b < int32(cin.n); b++ {
		var f int64
		for s := cin.lo[b]; s < cin.hi[b]; s++ {
			f = max(f, floor[s])
		}
		f = roundUp(f, cin.align[b])
		if f+cin.size[b] > C {
			return coreResult{}
		}
		t.V[cin.lo[b]] ^= hz(t.Z[b], 0) ^ hz(t.Z[b], f)
		t.lb[b] = f
		t.setLBC(b, f)
	}
	for s := 0; s < ns; s++ {
		mm, k := minCount(t.lbc[cin.coverStart[s]:cin.coverStart[s+1]])
		t.m[s], t.cnt[s] = mm, k
		if mm != inf && mm+t.D[s] > C {
			return coreResult{}
		}
	}
	ok := true
	for _, r := range t.split(0, int32(ns)) {
		if ok = t.solveRestarts(r[0], r[1], -1); !ok {
			break
		}
		t.trail.n = 0 // as in exact: a packed region is never undone
	}
	res := coreResult{nodes: t.nodes, stopped: t.stopped}
	if ok {
		res.offs = append([]int64(nil), offs...)
		for i, b := range core {
			res.offs[b] = t.off[i]
		}
	}
	return res
}

// sectionTags hold values put on ranges of sections, as tags on the nodes
// of a segment tree that decompose each range: at(s) is the largest (or,
// for a min tree, the least) value put on a range holding s. O(log ns) a
// put and an at.
type sectionTags struct {
	leaves int
	tag    []int64
	min    bool
}

func newSectionTags(ns int, min bool) *sectionTags {
	leaves := 1
	for leaves < ns {
		leaves *= 2
	}
	return &sectionTags{leaves: leaves, tag: make([]int64, 2*leaves), min: min}
}

// reset removes every value: at then says 0 (max) or inf (min).
func (t *sectionTags) reset() {
	v := int64(0)
	if t.min {
		v = inf
	}
	for i := range t.tag {
		t.tag[i] = v
	}
}

func (t *sectionTags) fold(a, b int64) int64 {
	if t.min {
		return min(a, b)
	}
	return max(a, b)
}

// put puts v on sections [lo, hi).
func (t *sectionTags) put(lo, hi int32, v int64) {
	for l, r := int(lo)+t.leaves, int(hi)+t.leaves; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			t.tag[l] = t.fold(t.tag[l], v)
			l++
		}
		if r&1 == 1 {
			r--
			t.tag[r] = t.fold(t.tag[r], v)
		}
	}
}

func (t *sectionTags) at(s int) int64 {
	v := t.tag[s+t.leaves]
	for x := (s + t.leaves) >> 1; x >= 1; x >>= 1 {
		v = t.fold(v, t.tag[x])
	}
	return v
}

// rangeMin answers range-minimum queries (a rangeMax of the negated
// values).
type rangeMin struct{ r *rangeMax }

func newRangeMin(v []int64) rangeMin {
	neg := make([]int64, len(v))
	for i, x := range v {
		neg[i] = -x
	}
	return rangeMin{newRangeMax(neg)}
}

// min returns the least of v[a:c] (a < c).
func (m rangeMin) min(a, c int32) int64 { return -m.r.max(a, c) }
