package pack

import (
	"cmp"
	"math"
	"slices"
)

const inf = math.MaxInt64 / 4

// Trail entry kinds: each undoes one change of the search state.
const (
	tH     = iota // h[i] = v
	tHR           // hr[i] = v
	tM            // m[i] = v
	tLB           // lb[i] = v
	tPlace        // unplace buffer i
	tWaste        // pop the wasted-section stack
	tCnt          // cnt[i] = v
)

type trailEntry struct {
	kind uint8
	i    int32
	v    int64
}

// trail is the undo log: a stack of entries kept in chunks of a fixed
// size, so that it grows without moving what it holds. (A contiguous
// slice grows by copying: with millions of entries, on problems of tens
// of thousands of buffers, one such copy took up to a second, a second
// past any deadline.)
type trail struct {
	chunks []*[trailChunk]trailEntry
	n      int
}

const (
	trailBits  = 12
	trailChunk = 1 << trailBits
)

func (tr *trail) push(e trailEntry) {
	c := tr.n >> trailBits
	if c == len(tr.chunks) {
		tr.chunks = append(tr.chunks, new([trailChunk]trailEntry))
	}
	tr.chunks[c][tr.n&(trailChunk-1)] = e
	tr.n++
}

// strategy is one way to order the search; every strategy is complete.
type strategy struct {
	rank rankBy  // static ranking of the buffers: candidate order, and secBest
	sec  secRule // which section to branch on at the level
	seed uint64  // if not zero, jitter the ranking (diversity for restarts)
}

// rankBy orders buffers, best first, by up to three keys, all descending.
type rankBy int

const (
	bySizeSpan rankBy = iota // size, then number of sections
	bySpanSize               // number of sections, then size
	byWAT                    // lifetime, area, busiest section (MiniMalloc's WAT)
	byTAW                    // busiest section, area, lifetime
	byTWA                    // busiest section, lifetime, area
)

// secRule chooses, among the sections at the level, the one to branch on.
type secRule int

const (
	secTight       secRule = iota // least slack, then leftmost
	secLeft                       // leftmost
	secFewest                     // fewest candidates, then least slack
	secFewestTight                // least slack, then fewest candidates
	secBest                       // the tightest section of the best-ranked candidate
)

// searcher is the branch-and-bound state. See doc.go for the method.
type searcher struct {
	in *inst
	C  int64

	h      []int64 // per section: lower bound on the offset of any unplaced buffer alive there
	hr     []int64 // per section: real top of the placed buffers (h >= hr; h > hr after waste)
	D      []int64 // per section: total size of unplaced buffers alive there
	m      []int64 // per section: min lb of unplaced buffers alive there (inf if none)
	cnt    []int32 // per section: how many unplaced buffers alive there have lb = m
	lb     []int64 // per buffer: lower bound on its offset (its canonical offset if it rests now)
	lbc    []int64 // lb of each cover-list entry (inf once placed), for fast section minima
	placed []bool
	off    []int64
	cross  []int32  // per boundary k (between sections k and k+1): unplaced buffers alive on both sides
	V      []uint64 // per section: xor of hz(b, lb[b]) over unplaced buffers b starting there
	Z      []uint64 // random keys per buffer
	Z2     []uint64 // random keys per section

	trail trail
	dirty []int32
	dmark []uint32
	dgen  uint32
	cut   bool

	cstack []int32
	wst    []int32 // wasted sections, in order
	bnd    []int64
	ckey   []int64

	nodes     int64
	limit     int64 // the innermost restart's node limit
	budget    int64 // the whole search's node limit: once spent, it unwinds everything
	aborted   bool  // a limit was hit or stop said so: unwind, record no nogoods
	stopped   bool  // stop said so: unwind everything
	stop      func() bool
	stopMask  int64 // stop is asked every stopMask+1 nodes (a power of two)
	work      int64 // bound raises and section scans since stop was last asked (tick)
	restarts  int
	seed      uint64
	nest      int // restart loops under way (the root's included)
	strat     strategy
	rank      []int32
	rankCache map[rankBy][]int32

	ng     []uint64 // failed subproblems, by hash (lossy cache)
	ngMask uint64
	ngHits int64

	// The level's cover (see coverable): per boundary, stamps saying that
	// the tight sections left of it (fw) or right of it (bw) can be
	// covered at the level; per buffer, a stamp saying it is a candidate.
	fw, bw, cmark []uint32
	free          []uint32 // per section: stamped if its run at the level has no tight section
	vgen          uint32
	ncov          []int32 // per boundary: the viable candidates' cover, by differences
	forced        int32   // a tight section at the level with one viable candidate, or -1

	// Backjumping (see doc.go), over sets of section buckets (see
	// buckets): rm is the reason of the last failure, the sections whose
	// state implies it; cm what the last decision changed; tm what it read
	// beyond masks.hull (the bounds under the floors it recomputed).
	rm, cm, tm uint64
	masks      *reasonMasks
	backjumps  int64
	noJump     bool // tests only: backtrack chronologically (the reasons are kept)
}

func newSearcher(in *inst, C int64, ngBits int) *searcher {
	t := &searcher{in: in, C: C, budget: math.MaxInt64}
	ns, n := in.ns, in.n
	t.h = make([]int64, ns)
	t.hr = make([]int64, ns)
	t.D = append([]int64(nil), in.demand...)
	t.m = make([]int64, ns)
	t.cnt = make([]int32, ns)
	t.lb = make([]int64, n)
	t.lbc = make([]int64, len(in.cover))
	t.placed = make([]bool, n)
	t.off = make([]int64, n)
	t.cross = make([]int32, max(ns-1, 0))
	t.V = make([]uint64, ns)
	t.Z = make([]uint64, n)
	t.dmark = make([]uint32, ns)
	t.fw = make([]uint32, ns+1)
	t.bw = make([]uint32, ns+1)
	t.cmark = make([]uint32, n)
	t.ncov = make([]int32, ns+1)
	t.free = make([]uint32, ns)
	x := uint64(0x9e3779b97f4a7c15)
	t.Z2 = make([]uint64, ns)
	for s := range t.Z2 {
		t.Z2[s] = splitmix(&x)
	}
	for i := 0; i < n; i++ {
		t.Z[i] = splitmix(&x)
		t.V[in.lo[i]] ^= hz(t.Z[i], 0)
		for k := in.lo[i]; k+1 < in.hi[i]; k++ {
			t.cross[k]++
		}
	}
	for s := 0; s < ns; s++ {
		t.cnt[s] = in.coverStart[s+1] - in.coverStart[s]
		if t.cnt[s] == 0 {
			t.m[s] = inf
		}
	}
	in.buildMasks(nil)
	t.masks = in.masks
	t.ng = make([]uint64, 1<<ngBits)
	t.ngMask = 1<<ngBits - 1
	// A node costs O(n + sections) and more (picking the section, the
	// bounds it lifts, what a section left empty implies): ask for the
	// deadline every 1024 nodes on small problems, down to every node on
	// large ones (from 64K buffers and sections), where one node can take
	// tens of milliseconds.
	t.stopMask = 1023
	for t.stopMask > 0 && (t.stopMask+1)*int64(n+ns) > 1<<16 {
		t.stopMask >>= 1
	}
	return t
}

func splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// hz hashes a value v under a random key z (one multiply: it runs on every
// bound change).
func hz(z uint64, v int64) uint64 {
	x := (z + uint64(v)) * 0x9e3779b97f4a7c15
	return x ^ x>>29
}

func (t *searcher) undo(mark int) {
	if t.stopped || t.nodes >= t.budget {
		// The deadline, or the whole search's budget spent: the search
		// unwinds and its state is dropped (exact and searchCore return
		// without reading it), so undoing millions of changes would only
		// spend time past the deadline (on 20 SOMAS copies, 0.43 s at the
		// end of a probe of 41,680 nodes).
		t.trail.n = min(t.trail.n, mark)
		return
	}
	in := t.in
	for i := t.trail.n - 1; i >= mark; i-- {
		e := t.trail.chunks[i>>trailBits][i&(trailChunk-1)]
		switch e.kind {
		case tH:
			t.h[e.i] = e.v
		case tHR:
			t.hr[e.i] = e.v
		case tM:
			t.m[e.i] = e.v
		case tCnt:
			t.cnt[e.i] = int32(e.v)
		case tLB:
			t.V[in.lo[e.i]] ^= hz(t.Z[e.i], t.lb[e.i]) ^ hz(t.Z[e.i], e.v)
			t.lb[e.i] = e.v
			t.setLBC(e.i, e.v)
			t.countIn(e.i, e.v)
		case tWaste:
			t.wst = t.wst[:len(t.wst)-1]
		case tPlace:
			b := e.i
			t.placed[b] = false
			t.V[in.lo[b]] ^= hz(t.Z[b], t.lb[b])
			t.setLBC(b, t.lb[b])
			t.countIn(b, t.lb[b])
			sz := in.size[b]
			for s := in.lo[b]; s < in.hi[b]; s++ {
				t.D[s] += sz
			}
			for k := in.lo[b]; k+1 < in.hi[b]; k++ {
				t.cross[k]++
			}
		}
	}
	t.trail.n = mark
}

// setLBC writes v as b's bound in the cover lists of all its sections.
func (t *searcher) setLBC(b int32, v int64) {
	in := t.in
	for _, p := range in.pos[in.posStart[b]:in.posStart[b+1]] {
		t.lbc[p] = v
	}
}

// countIn counts b, whose bound is v again, among the buffers at the
// floor of its sections (undoing a raise or a placement: the floors are
// those of the state it left).
func (t *searcher) countIn(b int32, v int64) {
	for s := t.in.lo[b]; s < t.in.hi[b]; s++ {
		if t.m[s] == v {
			t.cnt[s]++
		}
	}
}

// countOut removes b, whose bound was v, from the buffers at the floor of
// its sections. A section whose floor loses its last buffer is dirty (its
// floor rises); it reports false if that leaves a section no room: its
// floor rises by g at least (every bound is a multiple of g) and the
// buffers left there no longer fit under the capacity.
func (t *searcher) countOut(b int32, v int64) bool {
	ok := true
	for s := t.in.lo[b]; s < t.in.hi[b]; s++ {
		if t.m[s] == v {
			t.cm |= t.masks.bit[s]
			t.cnt[s]--
			if t.cnt[s] == 0 {
				t.markDirty(s)
				if t.D[s] > 0 && v+t.in.g+t.D[s] > t.C {
					ok = false
				}
			}
		}
	}
	return ok
}

func (t *searcher) newDirty() {
	t.dgen++
	if t.dgen == 0 {
		clear(t.dmark)
		t.dgen = 1
	}
	t.dirty = t.dirty[:0]
}

func (t *searcher) markDirty(s int32) {
	if t.dmark[s] != t.dgen {
		t.dmark[s] = t.dgen
		t.dirty = append(t.dirty, s)
	}
}

// raiseLB lifts buffer c's lower bound to nm; it marks the sections whose
// minimum may change. It reports false if c can no longer fit.
func (t *searcher) raiseLB(c int32, nm int64) bool {
	old := t.lb[c]
	if nm <= old {
		return true
	}
	t.trail.push(trailEntry{tLB, c, old})
	t.lb[c] = nm
	in := t.in
	t.cm |= t.masks.bit[in.lo[c]]
	t.V[in.lo[c]] ^= hz(t.Z[c], old) ^ hz(t.Z[c], nm)
	for _, p := range in.pos[in.posStart[c]:in.posStart[c+1]] {
		t.lbc[p] = nm
	}
	return t.countOut(c, old) && nm+in.size[c] <= t.C
}

// settle recomputes m on dirty sections and checks every one of them:
// the unplaced buffers alive in a section must fit between its floor and
// the capacity.
func (t *searcher) settle() bool {
	in := t.in
	for _, s := range t.dirty {
		if t.cnt[s] > 0 {
			// The floor stays (a section made dirty by waste): only
			// the capacity needs checking.
			if mm := t.m[s]; mm != inf && mm+t.D[s] > t.C {
				return false
			}
			continue
		}
		if t.tick(int(in.coverStart[s+1] - in.coverStart[s])) {
			return false
		}
		t.tm |= t.masks.cov[s] // the bounds of every buffer alive in s
		mm, k := minCount(t.lbc[in.coverStart[s]:in.coverStart[s+1]])
		if mm == inf {
			k = 0
		}
		if mm != t.m[s] {
			t.trail.push(trailEntry{tM, s, t.m[s]})
			t.trail.push(trailEntry{tCnt, s, int64(t.cnt[s])})
			t.m[s], t.cnt[s] = mm, k
		}
		if mm != inf && mm+t.D[s] > t.C {
			return false
		}
	}
	return true
}

// place puts buffer b at offset L and propagates. It reports false on a
// dead end; the caller undoes either way.
func (t *searcher) place(b int32, L int64) bool {
	in := t.in
	t.trail.push(trailEntry{tPlace, b, 0})
	t.placed[b] = true
	t.off[b] = L
	t.V[in.lo[b]] ^= hz(t.Z[b], t.lb[b])
	t.setLBC(b, inf)
	sz := in.size[b]
	top := L + sz
	t.changed(in.lo[b], in.hi[b])
	t.newDirty()
	for s := in.lo[b]; s < in.hi[b]; s++ {
		t.D[s] -= sz
		t.trail.push(trailEntry{tH, s, t.h[s]})
		t.trail.push(trailEntry{tHR, s, t.hr[s]})
		t.h[s] = top
		t.hr[s] = top
	}
	for k := in.lo[b]; k+1 < in.hi[b]; k++ {
		t.cross[k]--
		if t.cross[k] == 0 {
			t.cut = true
		}
	}
	if !t.countOut(b, t.lb[b]) {
		return false
	}
	lo := in.lo[b]
	early, late := in.confParts(b)
	for _, c := range early {
		if in.lo[c] < lo && !t.placed[c] && (t.tick(int(in.hi[c]-in.lo[c])) || !t.raiseLB(c, roundUp(top, in.align[c]))) {
			return false
		}
	}
	for _, c := range late {
		if !t.placed[c] && (t.tick(int(in.hi[c]-in.lo[c])) || !t.raiseLB(c, roundUp(top, in.align[c]))) {
			return false
		}
	}
	return t.settle()
}

// waste records that no buffer covers section s at level L. Every unplaced
// buffer b alive in s then sits above L. Unless b already rests on a real top
// above L, its canonical offset will be the top of some buffer c placed
// later in b's sections, so b's bound rises to the lowest such top.
func (t *searcher) waste(s int32, L int64) bool {
	in := t.in
	g := in.g
	t.newDirty()
	newh := int64(inf)
	t.bnd = t.bnd[:0]
	for _, b := range in.coverOf(s) {
		if t.placed[b] {
			continue
		}
		nb := t.lb[b]
		if nb <= L || !t.rests(b, nb) {
			// b could have sat at L: unless something can still reach
			// into that hole, leaving it empty is dominated.
			if nb == L && t.rests(b, L) && !t.canReach(b, L+in.size[b]) {
				return false
			}
			// The lowest top any other buffer alive with b could make.
			r := int64(inf)
			early, late := in.confParts(b)
			for _, c := range early {
				if in.lo[c] < in.lo[b] && !t.placed[c] {
					r = min(r, t.lb[c]+in.size[c])
				}
			}
			for _, c := range late {
				if c != b && !t.placed[c] {
					r = min(r, t.lb[c]+in.size[c])
				}
			}
			nb = max(nb, L+g, r)
		}
		t.bnd = append(t.bnd, nb)
		newh = min(newh, nb)
	}
	if newh == inf {
		return false
	}
	t.trail.push(trailEntry{tH, s, t.h[s]})
	t.trail.push(trailEntry{tWaste, s, 0})
	t.changed(s, s+1)
	t.wst = append(t.wst, s)
	t.h[s] = max(t.h[s], newh)
	t.markDirty(s)
	i := 0
	for _, b := range in.coverOf(s) {
		if t.placed[b] {
			continue
		}
		nb := t.bnd[i]
		i++
		if !t.raiseLB(b, roundUp(nb, in.align[b])) {
			return false
		}
	}
	return t.settle()
}

// rests reports whether b, at level L, would rest on a real top (or on the
// floor 0), i.e. L is its canonical offset over the placed buffers. At its
// own bound (L = lb) the first section whose top rounds up to L settles
// it: b's bound is at least the rounded top of every placed buffer it
// conflicts with, so no top rounds up above L.
func (t *searcher) rests(b int32, L int64) bool {
	in := t.in
	a := in.align[b]
	if L == t.lb[b] {
		for s := in.lo[b]; s < in.hi[b]; s++ {
			if roundUp(t.hr[s], a) == L {
				return true
			}
		}
		return false
	}
	var top int64
	for s := in.lo[b]; s < in.hi[b]; s++ {
		top = max(top, t.hr[s])
	}
	return roundUp(top, a) == L
}

// candidates pushes onto cstack the buffers that may cover section s at
// level L, in the strategy's order, and returns the start index.
func (t *searcher) candidates(s int32, L int64) int {
	in := t.in
	start := len(t.cstack)
	free := t.free[s] == t.vgen
	for _, b := range in.coverOf(s) {
		if free {
			if !t.isCand(b, L) {
				continue
			}
		} else if t.cmark[b] != t.vgen || t.fw[in.lo[b]] != t.vgen || t.bw[in.hi[b]] != t.vgen {
			continue
		}
		t.cstack = append(t.cstack, b)
	}
	// Sort by key, descending (insertion sort: lists are short).
	c := t.cstack[start:]
	t.ckey = t.ckey[:0]
	for _, b := range c {
		t.ckey = append(t.ckey, t.candKey(b, L))
	}
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && t.ckey[j] > t.ckey[j-1]; j-- {
			t.ckey[j], t.ckey[j-1] = t.ckey[j-1], t.ckey[j]
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
	return start
}

func (t *searcher) candKey(b int32, L int64) int64 {
	return -int64(t.rank[b])
}

// setStrategy installs a strategy and its static buffer ranking (cached
// for the base strategies).
func (t *searcher) setStrategy(sg strategy) {
	t.strat = sg
	if sg.seed == 0 {
		if r, ok := t.rankCache[sg.rank]; ok {
			t.rank = r
			return
		}
	}
	in := t.in
	t.rank = make([]int32, in.n)
	if sg.seed == 0 {
		if t.rankCache == nil {
			t.rankCache = map[rankBy][]int32{}
		}
		t.rankCache[sg.rank] = t.rank
	}
	keys := func(b int) [3]int64 {
		sz, ln, sec, tot := in.size[b], in.length[b], int64(in.hi[b]-in.lo[b]), in.total[b]
		switch sg.rank {
		case bySizeSpan:
			return [3]int64{sz, sec, 0}
		case bySpanSize:
			return [3]int64{sec, sz, 0}
		case byWAT:
			return [3]int64{ln, sz * ln, tot}
		case byTAW:
			return [3]int64{tot, sz * ln, ln}
		default:
			return [3]int64{tot, ln, sz * ln}
		}
	}
	idx := make([]int, in.n)
	for i := range idx {
		idx[i] = i
	}
	kk := make([][3]int64, in.n)
	x := sg.seed
	for b := range kk {
		kk[b] = keys(b)
		if sg.seed != 0 {
			// Up to ±25% on the primary key.
			j := int64(splitmix(&x)%501) - 250
			kk[b][0] += kk[b][0] * j / 1000
		}
	}
	slices.SortFunc(idx, func(i, j int) int {
		ki, kj := kk[i], kk[j]
		for k := 0; k < 3; k++ {
			if ki[k] != kj[k] {
				return cmp.Compare(kj[k], ki[k])
			}
		}
		return cmp.Compare(i, j)
	})
	for r, b := range idx {
		t.rank[b] = int32(r)
	}
}

// pick returns the level (lowest floor) of region [a, c) and the section to
// branch on there, or -1 if the region has nothing left to place.
func (t *searcher) pick(a, c int32) (int64, int32) {
	L := int64(inf)
	best := int32(-1)
	var bestD int64
	for s := a; s < c; s++ {
		ms := t.m[s]
		if ms > L {
			continue
		}
		if ms < L {
			L, best, bestD = ms, s, t.D[s]
			continue
		}
		// Same level: prefer the tightest section (least slack).
		if t.D[s] > bestD {
			best, bestD = s, t.D[s]
		}
	}
	if L == inf {
		return inf, -1
	}
	switch t.strat.sec {
	case secLeft:
		for s := a; s < c; s++ {
			if t.m[s] == L {
				return L, s
			}
		}
	case secBest: // the best-ranked buffer that can go at L; its tightest section
		// The buffers that start in the region, not all n: on a large
		// instance split into many regions that is most of a node's cost.
		// Ranks are distinct, so the order they are visited in does not
		// matter.
		bb := int32(-1)
		in := t.in
		for _, b := range in.byLo[in.loStart[a]:in.loStart[c]] {
			if t.lb[b] == L && !t.placed[b] && (bb < 0 || t.rank[b] < t.rank[bb]) && t.isCand(b, L) {
				bb = b
			}
		}
		if bb >= 0 {
			best, bestD = -1, -1
			for s := t.in.lo[bb]; s < t.in.hi[bb]; s++ {
				if t.D[s] > bestD {
					best, bestD = s, t.D[s]
				}
			}
		}
	case secFewest, secFewestTight:
		bc := int(math.MaxInt32)
		for s := a; s < c; s++ {
			if t.m[s] != L || (t.strat.sec == secFewestTight && t.D[s] != bestD) {
				continue
			}
			n := t.countCands(s, L, bc)
			if n < bc || (n == bc && t.D[s] > t.D[best]) {
				bc, best = n, s
				if n == 0 {
					break
				}
			}
		}
	}
	return L, best
}

// coverable checks the level L of region [a, c) as a whole. A section at
// the level whose slack is below g (tight) cannot be left empty there: some
// buffer must sit at exactly L over it. Buffers placed at L do not overlap
// in time, and only the candidates at L (bound L, resting at L) can go
// there, each within the run of sections at the level that holds it (the
// sections around the run are higher). So every run's tight sections must
// be covered by disjoint candidates: a path over the run's boundaries whose
// steps are candidates, or single sections that are not tight. coverable
// reports false if some run has no such path; otherwise it stamps, for the
// candidates call that follows, the candidates that lie on one (fw: the
// tight sections left of its start can be covered; bw: those right of its
// end), the only ones that can go at L (a run without a tight section is
// stamped free: any of its candidates can). It also sets forced to the first
// tight section that only one of those covers (-1 if none): branching
// there first has one child (fail first). O(sections at the level and the
// buffers that start there).
func (t *searcher) coverable(a, c int32, L int64) bool {
	in := t.in
	t.vgen++
	if t.vgen == 0 {
		clear(t.fw)
		clear(t.bw)
		clear(t.cmark)
		clear(t.free)
		t.vgen = 1
	}
	gen := t.vgen
	t.forced = -1
	for s := a; s < c; {
		if t.m[s] != L {
			s++
			continue
		}
		r0 := s
		for s < c && t.m[s] == L {
			s++
		}
		r1 := s
		tight := false
		for x := r0; x < r1 && !tight; x++ {
			tight = L+in.g+t.D[x] > t.C
		}
		if !tight {
			// Nothing to cover: every candidate of the run may go at L.
			for x := r0; x < r1; x++ {
				t.free[x] = gen
			}
			continue
		}
		t.fw[r0] = gen
		for x := r0; x < r1; x++ {
			reach := t.fw[x] == gen
			for _, b := range in.byLo[in.loStart[x]:in.loStart[x+1]] {
				if t.isCand(b, L) {
					t.cmark[b] = gen
					if reach {
						t.fw[in.hi[b]] = gen
					}
				}
			}
			if reach && L+in.g+t.D[x] <= t.C {
				t.fw[x+1] = gen
			}
		}
		if t.fw[r1] != gen {
			t.rm = 0
			t.readsRun(a, c, r0, L)
			return false
		}
		t.bw[r1] = gen
		for x := r1 - 1; x >= r0; x-- {
			ok := t.bw[x+1] == gen && L+in.g+t.D[x] <= t.C
			for _, b := range in.byLo[in.loStart[x]:in.loStart[x+1]] {
				if ok {
					break
				}
				ok = t.cmark[b] == gen && t.bw[in.hi[b]] == gen
			}
			if ok {
				t.bw[x] = gen
			}
		}
		if t.forced < 0 {
			// ncov: the number of viable candidates over each section,
			// by differences.
			for x := r0; x <= r1; x++ {
				t.ncov[x] = 0
			}
			for x := r0; x < r1; x++ {
				if t.fw[x] != gen {
					continue
				}
				for _, b := range in.byLo[in.loStart[x]:in.loStart[x+1]] {
					if t.cmark[b] == gen && t.bw[in.hi[b]] == gen {
						t.ncov[x]++
						t.ncov[in.hi[b]]--
					}
				}
			}
			var k int32
			for x := r0; x < r1; x++ {
				k += t.ncov[x]
				if k == 1 && L+in.g+t.D[x] > t.C {
					t.forced = x
					break
				}
			}
		}
	}
	return true
}

func (t *searcher) isCand(b int32, L int64) bool {
	if t.placed[b] || t.lb[b] != L {
		return false
	}
	if p := t.in.classPrev[b]; p >= 0 && !t.placed[p] {
		return false
	}
	return t.rests(b, L)
}

func (t *searcher) countCands(s int32, L int64, stopAt int) int {
	n := 0
	for _, b := range t.in.coverOf(s) {
		if t.isCand(b, L) {
			n++
			if n > stopAt {
				break
			}
		}
	}
	return n
}

// key hashes the state of region [a, c): which buffers are left and their
// bounds, the real tops and which sections were left empty. Everything the
// search does in the region depends on these alone, so equal keys (up to
// hash collisions) mean equal subproblems.
func (t *searcher) key(a, c int32) uint64 {
	var k uint64
	for s := a; s < c; s++ {
		if t.m[s] == inf {
			continue
		}
		z := t.Z2[s]
		if t.h[s] != t.hr[s] {
			z = ^z // another random key: left empty
		}
		k ^= t.V[s] ^ hz(z, t.hr[s])
	}
	return k
}

// holeDominated reports whether some unplaced buffer b alive in region
// [a, c) could sit lower than it ever will: its real rest r (the aligned top
// of the placed buffers in its sections) is below the level L, and the hole
// [r, r+size) over its sections can never be filled, as every later
// placement is at L or above and every buffer that could reach into the hole
// has a bound at or above its top. Every completion of this state could
// then move b down into the hole: the state leads to no packing of least
// offset sum, and one of those is found elsewhere.
func (t *searcher) holeDominated(a, c int32, L int64) bool {
	in := t.in
	for i := len(t.wst) - 1; i >= 0; i-- {
		s := t.wst[i]
		if s < a || s >= c || t.h[s] == t.hr[s] {
			continue
		}
		for _, b := range in.coverOf(s) {
			if t.placed[b] {
				continue
			}
			var top int64
			for x := in.lo[b]; x < in.hi[b]; x++ {
				top = max(top, t.hr[x])
			}
			r := roundUp(top, in.align[b])
			if r >= L {
				continue // b may still go to r
			}
			hole := r + in.size[b]
			if hole <= L {
				return true
			}
			if !t.canReach(b, hole) {
				return true
			}
		}
	}
	return false
}

// canReach reports whether some unplaced buffer alive with b has a bound
// below y, so that it might reach into b's sections under y.
func (t *searcher) canReach(b int32, y int64) bool {
	in := t.in
	early, late := in.confParts(b)
	for _, d := range early {
		if in.lo[d] < in.lo[b] && !t.placed[d] && t.lb[d] < y {
			return true
		}
	}
	for _, d := range late {
		if d != b && !t.placed[d] && t.lb[d] < y {
			return true
		}
	}
	return false
}

// growNogoods doubles the table of failed subproblems, up to 4M entries,
// once the search has explored twice as many nodes as it has entries: small
// searches stay cheap, long ones keep more of what they learned.
func (t *searcher) growNogoods() {
	if t.nodes < 2*int64(len(t.ng)) || len(t.ng) >= 1<<22 {
		return
	}
	ng := make([]uint64, 2*len(t.ng))
	mask := uint64(len(ng) - 1)
	for _, k := range t.ng {
		if k != 0 {
			ng[k&mask] = k
		}
	}
	t.ng, t.ngMask = ng, mask
}

func (t *searcher) checkStop() {
	if t.nodes >= t.limit {
		t.aborted = true
	}
	if t.nodes&t.stopMask == 0 && t.stop != nil && t.stop() {
		t.aborted, t.stopped = true, true
	}
}

// tick counts n units of work inside a node (bound raises, section
// scans) and asks stop every workPerStop of them: where thousands of
// buffers are alive in every section one placement can take seconds, far
// more than a deadline allows between nodes. It reports whether the
// search must unwind (the node then fails; the trail undoes it).
func (t *searcher) tick(n int) bool {
	t.work += int64(n)
	if t.work >= workPerStop {
		t.work = 0
		if t.stop != nil && t.stop() {
			t.aborted, t.stopped = true, true
		}
	}
	return t.stopped
}

// workPerStop is how much work tick lets pass between two asks of stop:
// a few milliseconds.
const workPerStop = 1 << 16

// maxNest is how deep restart loops nest: the root's, one in each region
// split off from it, one in each region split off from those, and so on.
const maxNest = 6

// solveRestarts solves region [a, c) by restarts: each run uses the next
// strategy (after one pass over the base strategies, randomized variants of
// them) under a node limit that follows the Luby sequence times a unit:
// mostly short runs, ever longer ones now and then, so that the loop stays
// complete and refutes an infeasible region in the end. Failed subproblems
// recorded by any run prune all later ones. A run cut short by an enclosing
// limit ends the loop.
func (t *searcher) solveRestarts(a, c int32, L int64) bool {
	outer := t.limit
	saved, savedRank := t.strat, t.rank
	t.nest++
	defer func() {
		t.limit = outer
		t.nest--
		t.strat, t.rank = saved, savedRank
	}()
	// A nested loop's unit run gets about two nodes per buffer left in its
	// region (at least 100, at most the root's): enough to pack it when the
	// order is right, and short enough that several orders fit in one run
	// of the enclosing loop. The root's is lubyUnit, or two nodes per
	// buffer of its region if that is more: a packing takes a node per
	// buffer, and a run that cannot reach one is wasted (5,000 buffers).
	left := int64(0)
	for _, b := range t.in.byLo[t.in.loStart[a]:t.in.loStart[c]] {
		if !t.placed[b] {
			left++
		}
	}
	unit := max(lubyUnit, 2*left)
	if t.nest > 1 {
		unit = min(lubyUnit, max(100, 2*left))
	}
	for i := 1; ; i++ {
		sg := strategies[(i-1)%len(strategies)]
		limit := unit
		if i > len(strategies) {
			x := t.seed ^ uint64(t.nest)<<56 ^ uint64(i)*0x9e3779b97f4a7c15
			sg.seed = splitmix(&x) | 1
			limit = unit * luby(i-len(strategies))
		}
		t.setStrategy(sg)
		t.growNogoods()
		t.limit = min(outer, t.nodes+limit)
		if t.solve(a, c, L) {
			return true
		}
		if !t.aborted {
			return false // refuted: no packing of this region
		}
		if t.stopped || t.nodes >= outer {
			return false // an enclosing limit: unwind
		}
		t.aborted = false
		t.restarts++
	}
}

// solve searches region [a, c) of sections; on success the placements stay
// in the state, on failure the state is as it was on entry and rm holds
// the failure's reason: sections such that any state on the search path
// that agrees with this one there has no completion either. A child that
// fails for a reason its decision did not change fails its parent too
// (backjumping: the other children would fail for the same reason).
func (t *searcher) solve(a, c int32, prevL int64) bool {
	t.nodes++
	t.checkStop()
	if t.aborted {
		return false
	}
	key := t.key(a, c)
	if key != 0 && t.ng[key&t.ngMask] == key {
		t.ngHits++
		t.rm = t.buckets(a, c)
		return false
	}
	entry := t.trail.n
	// What the deductions made at this node (wasted sections without a
	// candidate) read: every failure below them depends on it.
	var dm uint64
	fail := func() bool {
		t.undo(entry)
		t.rm |= dm
		if !t.aborted && key != 0 {
			t.ng[key&t.ngMask] = key
		}
		return false
	}
	for {
		L, s := t.pick(a, c)
		if s < 0 {
			return true
		}
		if L > prevL {
			if t.holeDominated(a, c, L) {
				t.rm = t.buckets(a, c)
				return fail()
			}
			prevL = L
		}
		if !t.coverable(a, c, L) {
			return fail()
		}
		if t.forced >= 0 {
			s = t.forced
		}
		start := t.candidates(s, L)
		end := len(t.cstack)
		if start == end {
			// Nothing can ever cover s at L: its floor must rise.
			t.rm = 0
			t.readsRun(a, c, s, L)
			t.readsWaste(s)
			rm := t.rm
			t.cm, t.tm = 0, 0
			ok := t.waste(s, L)
			dm |= rm | t.cm | t.tm
			if !ok {
				t.rm = rm
				return fail()
			}
			continue
		}
		// The reason this node fails: each child's reason with what its
		// decision read, and what the choice of candidates read.
		var nm uint64
		mark := t.trail.n
		for i := start; i < end; i++ {
			b := t.cstack[i]
			t.cut = false
			t.cm, t.tm = 0, 0
			ok := t.place(b, L)
			cm, tm := t.cm, t.tm
			if ok {
				if t.descend(a, c, L) {
					t.cstack = t.cstack[:start]
					return true
				}
				if !t.aborted && !t.noJump && t.rm&cm == 0 {
					// Not this decision's fault: nor any sibling's.
					t.backjumps++
					t.cstack = t.cstack[:start]
					return fail()
				}
				nm |= t.rm
			}
			nm |= cm | tm | t.masks.hull[b]
			t.undo(mark)
			if t.aborted {
				break
			}
		}
		// Last branch: nothing covers s at L (if its slack allows).
		if !t.aborted && L+t.in.g+t.D[s] <= t.C {
			t.cm, t.tm = 0, 0
			t.rm = 0
			t.readsWaste(s)
			wm := t.rm
			ok := t.waste(s, L)
			cm, tm := t.cm, t.tm
			if ok {
				if t.solve(a, c, L) {
					t.cstack = t.cstack[:start]
					return true
				}
				if !t.aborted && !t.noJump && t.rm&cm == 0 {
					t.backjumps++
					t.cstack = t.cstack[:start]
					return fail()
				}
				nm |= t.rm
			}
			nm |= wm | cm | tm
			t.undo(mark)
		}
		t.cstack = t.cstack[:start]
		t.rm = nm
		t.readsRun(a, c, s, L) // the state is that of the choice again
		return fail()
	}
}

// descend continues in region [a, c) after a placement. When no unplaced
// buffer crosses some boundary any more, the region falls apart into
// independent subregions: each is solved on its own (by its own restart
// loop, up to maxNest), and one that fails fails them all, without trying
// other packings of its siblings.
func (t *searcher) descend(a, c int32, L int64) bool {
	if !t.cut {
		return t.solve(a, c, L)
	}
	t.cut = false
	regs := t.split(a, c)
	if len(regs) == 1 {
		return t.solve(regs[0][0], regs[0][1], L)
	}
	for i, r := range regs {
		var ok bool
		if t.nest < maxNest {
			ok = t.solveRestarts(r[0], r[1], L)
		} else {
			ok = t.solve(r[0], r[1], L)
		}
		if !ok {
			if i > 0 {
				// The siblings packed before it changed their regions.
				t.because(regs[0][0], regs[i-1][1])
			}
			return false
		}
	}
	return true
}

// split returns the maximal runs of [a, c) that no unplaced buffer crosses,
// trimmed to the sections where buffers are left.
func (t *searcher) split(a, c int32) [][2]int32 {
	var regs [][2]int32
	start := int32(-1)
	for s := a; s < c; s++ {
		if t.m[s] != inf && start < 0 {
			start = s
		}
		if start >= 0 && (s == c-1 || t.cross[s] == 0) {
			e := s + 1
			for e > start && t.m[e-1] == inf {
				e--
			}
			if e > start {
				regs = append(regs, [2]int32{start, e})
			}
			start = -1
		}
	}
	return regs
}

// minCount returns the least of vals (inf if none) and how many equal it:
// a section's floor m and its count from the bounds of the buffers alive
// there.
func minCount(vals []int64) (int64, int32) {
	mm, k := int64(inf), int32(0)
	for _, v := range vals {
		if v < mm {
			mm, k = v, 1
		} else if v == mm {
			k++
		}
	}
	return mm, k
}

// buckets returns the set of the buckets of sections [lo, hi): the
// sections are cut into 64 runs of equal length, one bit each.
func (in *inst) buckets(lo, hi int32) uint64 {
	ns := int64(in.ns)
	x := uint(int64(lo) * 64 / ns)
	y := uint(int64(hi-1) * 64 / ns)
	return (^uint64(0) >> (63 - y)) &^ (1<<x - 1)
}

func (t *searcher) buckets(lo, hi int32) uint64 { return t.in.buckets(lo, hi) }

// reasonMasks are the fixed sets of section buckets that the reasons of
// failures are made of (see doc.go); built once per instance.
type reasonMasks struct {
	bit   []uint64 // per section: its bucket
	hull  []uint64 // per buffer: its sections and the first sections of the buffers alive with it
	run   []uint64 // per section: it and the first sections of the class predecessors of the buffers starting there
	cov   []uint64 // per section: the first sections of the buffers alive there
	waste []uint64 // per section: run and the hull of every buffer alive there
}

// buildMasks builds the instance's reason masks (after ensureCover) unless
// built already; O(the cover lists). It asks stop now and then and reports
// false if stop said so (nothing is kept then).
func (in *inst) buildMasks(stop func() bool) bool {
	if in.masks != nil {
		return true
	}
	n, ns := in.n, in.ns
	m := &reasonMasks{
		hull:  make([]uint64, n),
		run:   make([]uint64, ns),
		cov:   make([]uint64, ns),
		waste: make([]uint64, ns),
		bit:   make([]uint64, ns),
	}
	for s := int32(0); s < int32(ns); s++ {
		m.bit[s] = in.buckets(s, s+1)
	}
	for i := int32(0); i < int32(n); i++ {
		lo := in.lo[i]
		for _, c := range in.coverOf(in.lo[i]) {
			lo = min(lo, in.lo[c])
		}
		m.hull[i] = in.buckets(lo, in.hi[i])
	}
	for s := int32(0); s < int32(ns); s++ {
		rm := in.buckets(s, s+1)
		for _, b := range in.byLo[in.loStart[s]:in.loStart[s+1]] {
			if p := in.classPrev[b]; p >= 0 {
				rm |= in.buckets(in.lo[p], in.lo[p]+1)
			}
		}
		var hm, cm uint64
		for _, b := range in.coverOf(s) {
			hm |= m.hull[b]
			cm |= in.buckets(in.lo[b], in.lo[b]+1)
		}
		m.run[s], m.cov[s], m.waste[s] = rm, cm, rm|hm
		if s&1023 == 1023 && stop != nil && stop() {
			return false
		}
	}
	in.masks = m
	return true
}

// changed adds sections [lo, hi) to what the current decision changed.
func (t *searcher) changed(lo, hi int32) {
	t.cm |= t.buckets(lo, hi)
}

// because adds sections [lo, hi) to the reason of the current failure.
func (t *searcher) because(lo, hi int32) {
	t.rm |= t.buckets(lo, hi)
}

// readsWaste adds to the reason what waste(s) reads: the tops under each
// unplaced buffer alive in s and the bounds of the buffers alive with it
// (a buffer's bound and whether it is placed belong to its first section).
func (t *searcher) readsWaste(s int32) {
	t.rm |= t.masks.waste[s]
}

// readsRun adds to the reason what choosing the candidates at level L over
// section s reads (coverable and candidates): the run of sections at the
// level around s and its neighbours, and the buffers that start in the run
// (their bounds, the tops under them, whether their predecessors in their
// class are placed). A buffer alive in the run that starts before it or
// ends after it is alive in a neighbour, whose floor is above L (L is the
// region's lowest floor), so its bound is above L: the neighbour's floor
// says it is no candidate. A buffer whose bound is L lies in the run.
func (t *searcher) readsRun(a, c, s int32, L int64) {
	r0, r1 := s, s+1
	for r0 > a && t.m[r0-1] == L {
		r0--
	}
	for r1 < c && t.m[r1] == L {
		r1++
	}
	t.because(max(r0-1, a), min(r1+1, c))
	for x := r0; x < r1; x++ {
		t.rm |= t.masks.run[x]
	}
}
