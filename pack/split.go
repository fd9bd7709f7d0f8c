package pack

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Splitting a zero-waste instance (see doc.go, "Zero-waste instances:
// splits").
// Where every section's demand is the capacity W, the buffers read as a
// flow of value W through the time points: a buffer carries its size from
// its start to its end, and at every time point inside the span what ends
// equals what starts. Such an instance splits two ways:
//
//   - in time, at a time point no buffer crosses: the two sides never meet;
//   - in space, into a part A whose demand is the same c < W in every
//     section (a sub-flow: at every inner time point what of A ends equals
//     what of A starts) and the rest, whose demand is then W - c: A packed
//     in [0, c) and the rest in [c, W) never overlap.
//
// Each part is again zero-waste, and is split in turn; a part that does
// not split is handed to the branch and bound at its own width. A packing
// put together so is valid whatever splits were chosen (the parts use
// disjoint time or disjoint memory); a bad split can only leave a part
// that does not pack, and then the part it was split from goes to the
// branch and bound. Nothing is proved by a failure. Random guillotine cuts (perfect_pack.py) split down to single
// buffers: a cut across space is a split in space, one across time a
// split in time, once the cuts above it are undone.

// splitter packs a zero-waste instance by splits.
type splitter struct {
	in   *inst
	off  []int64
	seed uint64
	stop func() bool
	st   *Stats
	// work counts the buffers the walks handle at time points and the
	// branch-and-bound nodes; the packing is given up when it reaches
	// limit.
	work, limit int64
	// maxNodes is what st.Nodes may reach (Options.NodeLimit).
	maxNodes int64
	cut      bool // stop said so, or the limit ran out
	// tagLo and tagHi: per buffer, the merged node that joined its start
	// or its end to others (mergeTree.tags), or -1.
	tagLo, tagHi []int32
}

// Settings of the splits: splitWalks was measured on perfect packings
// (see solve); the others bound the work of a search.
const (
	// splitShareNodes bounds the search that shares a time point's
	// starters among the parts of its enders.
	splitShareNodes = 4096
	// splitWalks is the walks tried on a part with each sharing rule:
	// forwards and backwards, with and without affinities, then with ties
	// broken at random.
	splitWalks = 8
	// splitFewestParts: the rule shareFewest applies at time points with at
	// most this many parts.
	splitFewestParts = 4
	// splitFewestRange bounds the totals (in units of the sizes' gcd)
	// that shareFewest tabulates.
	splitFewestRange = 1 << 16
	// splitTriples bounds the values among which cancel looks for three
	// that cancel one (a quadratic search); splitSumRange the totals
	// cancelSums tabulates, in units of the values' gcd.
	splitTriples  = 200
	splitSumRange = 1 << 20
)

// splittable reports whether in is zero-waste at capacity C (every
// section's demand is C) and offsets that are sums of sizes are aligned.
func splittable(in *inst, C int64) bool {
	var gs int64
	for _, s := range in.size {
		gs = gcd(gs, s)
	}
	for _, a := range in.align {
		if gs%a != 0 {
			return false
		}
	}
	for _, d := range in.demand {
		if d != C {
			return false
		}
	}
	return in.ns > 0
}

// splitPack packs in at capacity C by splits, spending at most limit
// work and nodes branch-and-bound nodes (counted in st). It returns the
// offsets, or nil.
func splitPack(in *inst, C int64, seed uint64, limit, nodes int64, stop func() bool, st *Stats) []int64 {
	if !splittable(in, C) {
		return nil
	}
	tagLo, tagHi := mergeTags(in)
	sp := &splitter{in: in, off: make([]int64, in.n), seed: seed, stop: stop, st: st, limit: limit,
		maxNodes: st.Nodes + min(nodes, inf), tagLo: tagLo, tagHi: tagHi}
	all := make([]int32, in.n)
	for i := range all {
		all[i] = int32(i)
	}
	if !sp.solve(all, 0, int32(in.ns), C, 0) {
		return nil
	}
	return sp.off
}

// tick counts n units of work and reports whether to give up.
func (sp *splitter) tick(n int64) bool {
	sp.work += n
	if sp.work >= sp.limit || (sp.work&1023 < n && sp.stop()) {
		sp.cut = true
	}
	return sp.cut
}

// solve packs bufs, whose demand is W in every section of [t0, t1), in
// [base, base+W).
func (sp *splitter) solve(bufs []int32, t0, t1 int32, W, base int64) bool {
	in := sp.in
	if sp.tick(1) {
		return false
	}
	if len(bufs) == 1 {
		sp.off[bufs[0]] = base
		return true
	}
	// In time: the time points inside the span that no buffer crosses.
	cross := make([]int32, t1-t0+1)
	for _, b := range bufs {
		if in.hi[b]-in.lo[b] >= 2 {
			cross[in.lo[b]+1-t0]++
			cross[in.hi[b]-t0]--
		}
	}
	var cuts []int32
	c := int32(0)
	for t := t0 + 1; t < t1; t++ {
		c += cross[t-t0]
		if c == 0 {
			cuts = append(cuts, t)
		}
	}
	if len(cuts) > 0 {
		cuts = append(cuts, t1)
		byLo := slices.Clone(bufs)
		slices.SortStableFunc(byLo, func(x, y int32) int { return cmp.Compare(in.lo[x], in.lo[y]) })
		from := t0
		for _, to := range cuts {
			i, _ := slices.BinarySearchFunc(byLo, from, func(b, t int32) int { return cmp.Compare(in.lo[b], t) })
			j, _ := slices.BinarySearchFunc(byLo, to, func(b, t int32) int { return cmp.Compare(in.lo[b], t) })
			if !sp.solve(byLo[i:j], from, to, W, base) {
				return false
			}
			from = to
		}
		return true
	}
	ix := newSpanIndex(in, bufs)
	// In space: the parts that balance at every inner time point, found
	// walking forwards, else backwards (where the first walk glued parts
	// together, the second often does not), else both without the
	// starters' affinities, else with ties broken at random; these eight
	// walks with each sharing rule in turn (shareRule). Perfect packings
	// of N = 5,000 (python seeds 1-20 and Go seeds 1-40, 60 in all): 47
	// packed with 24 walks of the first rule, 53 with 8 of each rule.
	var parts [][]int32
	for v := 0; v < splitWalks*shareRules && len(parts) <= 1 && !sp.cut; v++ {
		var r *rand.Rand
		w := v % splitWalks
		if w >= 4 {
			r = rand.New(rand.NewPCG(sp.seed, uint64(v)))
		}
		parts = sp.components(ix, bufs, t0, t1, w&1 == 1, w == 2 || w == 3, r, shareFirst+shareRule(v/splitWalks))
	}
	if len(parts) > 1 {
		ok := true
		b0 := base
		for _, p := range parts {
			var w int64
			for _, b := range p {
				if in.lo[b] == t0 {
					w += in.size[b]
				}
			}
			if ok = sp.solve(p, t0, t1, w, b0); !ok {
				break
			}
			b0 += w
		}
		if ok || sp.cut {
			return ok
		}
	}
	// A part that does not split: the branch and bound, at its width.
	return sp.exact(bufs, W, base)
}

// components splits bufs (no time point inside [t0, t1) is crossed by
// none of them) into parts each of which balances at every inner time
// point. It walks the time points in order, joining buffers into parts:
// at each, the buffers that end there fall into the parts they are in
// already, and the buffers that start there are shared among those parts,
// each part getting starters whose sizes add up to its enders' (parts
// whose enders no subset of the starters matches are joined). A part then
// balances wherever it was given its starters, which is everywhere.
// Starters can often be shared more than one way, and a starter given to
// the wrong part later joins it to the right one (on perfect packings,
// gluing whole subtrees together): a starter goes first to a part with a
// buffer that ends when it does (the children of a cut across space all
// end together), unless plain. Walking backwards (reverse), starts and
// ends trade places. The rule says how starters are shared where sums
// leave a choice.
func (sp *splitter) components(ix *spanIndex, bufs []int32, t0, t1 int32, reverse, plain bool, r *rand.Rand, rule shareRule) [][]int32 {
	in := sp.in
	local := make(map[int32]int32, len(bufs))
	for i, b := range bufs {
		local[b] = int32(i)
	}
	uf := make([]int32, len(bufs))
	hi, endsAt, startsAt := in.hi, ix.endsAt, ix.startsAt
	tagS, tagE := sp.tagLo, sp.tagHi
	if reverse {
		hi, endsAt, startsAt = in.lo, ix.startsAt, ix.endsAt
		tagS, tagE = tagE, tagS
	}
	// ends: per part (at its root), how many of its buffers end at each
	// time point; merged smaller into larger. live: per part, how many of
	// its buffers are alive (a buffer not yet given a part counts for
	// itself, and is added to the part it joins).
	ends := make([]map[int32]int32, len(bufs))
	live := make([]int32, len(bufs))
	for i, b := range bufs {
		uf[i] = int32(i)
		ends[i] = map[int32]int32{hi[b]: 1}
		live[i] = 1
	}
	union := func(x, y int32) {
		x, y = ufFind(uf, x), ufFind(uf, y)
		if x == y {
			return
		}
		if len(ends[x]) < len(ends[y]) {
			x, y = y, x
		}
		for k, v := range ends[y] {
			ends[x][k] += v
		}
		ends[y] = nil
		live[x] += live[y]
		uf[y] = x
	}
	for k := t0 + 1; k < t1; k++ {
		t := k
		if reverse {
			t = t0 + t1 - k
		}
		var roots []int32
		sums := map[int32]int64{}
		tags := map[int32]int32{} // per root, its enders' tag, -1 where they differ
		for _, b := range endsAt(t) {
			r := ufFind(uf, local[b])
			live[r]--
			tag := tagE[b]
			if _, ok := sums[r]; !ok {
				roots = append(roots, r)
				tags[r] = tag
			} else if tags[r] != tag {
				tags[r] = -1
			}
			sums[r] += in.size[b]
		}
		slices.Sort(roots)
		starts := startsAt(t)
		if sp.tick(int64(len(starts) + len(roots))) {
			return nil
		}
		classes := make([]int64, len(roots))
		for i, r := range roots {
			classes[i] = sums[r]
		}
		ctag, stag := make([]int32, len(roots)), make([]int32, len(starts))
		for i, r := range roots {
			ctag[i] = tags[r]
		}
		for i, b := range starts {
			stag[i] = tagS[b]
		}
		var closing []bool
		if rule == shareClosing {
			closing = make([]bool, len(roots))
			for i, r := range roots {
				closing[i] = live[r] == 0
			}
		}
		affine := func(s, c int) bool { return !plain && ends[roots[c]][hi[starts[s]]] > 0 }
		w := shareStarters(in, starts, classes, hi, affine, r, ctag, stag, rule, closing)
		for _, k := range w.joined {
			union(roots[k[0]], roots[k[1]])
		}
		for i, b := range starts {
			union(roots[w.groupOf[i]], local[b])
		}
	}
	idx := map[int32]int{}
	var parts [][]int32
	for i, b := range bufs {
		r := ufFind(uf, int32(i))
		k, ok := idx[r]
		if !ok {
			k = len(parts)
			idx[r] = k
			parts = append(parts, nil)
		}
		parts[k] = append(parts[k], b)
	}
	return parts
}

func ufFind(uf []int32, x int32) int32 {
	for uf[x] != x {
		uf[x] = uf[uf[x]]
		x = uf[x]
	}
	return x
}

// sharing gives each starter of a time point a class (the parts of its
// enders), after joining some classes.
type sharing struct {
	groupOf []int
	joined  [][2]int
}

// shareRule says how a walk shares starters where sizes leave a choice. A
// part is closing at a time point when all of its buffers alive before it
// end there (the whole part is cut across time), else it goes on.
type shareRule int

const (
	// shareFirst: the first sharing that fits (shareStarters); where none
	// does, the finest balanced groups that taggedGroups finds join.
	shareFirst shareRule = iota
	// shareClosing: as shareFirst, but where classes must join, the parts
	// that go on past the time point keep to starters of their own sum
	// and only closing parts join (glueClosing). A hole under a part that
	// goes on is a cut across time inside that part; the holes that span
	// several parts are cuts above them, under which every part closes
	// (perfect packings of N = 5,000: python seeds 7 and 18 pack with it,
	// not without; on seed 7 a coincidental merge hint had joined a part
	// that went on to one of another strip).
	shareClosing
	// shareFewest: at time points with at most splitFewestParts classes,
	// the smallest class first takes the fewest items (starters of one
	// end together where some end together) that add up to its sum
	// (shareFewest), before the first sharing that fits: a true hole is
	// the bottom of one piece, a few starters, where sums found by
	// coincidence take many small ones (python seed 9 packs with this rule
	// and shareClosing, not with either alone).
	shareFewest
	shareRules = iota
)

// shareStarters gives each starter a class (the parts of the enders, with
// their sizes' sums) such that the starters given a class add up to its
// sum, trying first the classes the starter has an affinity with, then
// an exact fit: first the starters of one end as one item (siblings of a
// cut across space start and end together; perfect packings of N = 5,000,
// Go seeds 5 and 8: packed with, not without), then each on its own.
// Where it finds no way (within splitShareNodes each), classes are
// joined: it cuts the classes and the starters into the finest groups
// that balance that it finds, those of one merge first (ctag and stag,
// the tags of the classes' enders, -1 where they differ, and of the
// starters), and the classes of a group join. With
// r, the items of one size and the classes are tried in a random order.
// The rule may try another sharing first (shareFewest) or another way to
// join (shareClosing, which needs closing: per class, whether its part
// closes at this time point).
func shareStarters(in *inst, starts []int32, classes []int64, hi []int32, affine func(s, c int) bool, r *rand.Rand, ctag, stag []int32, rule shareRule, closing []bool) sharing {
	groupOf := make([]int, len(starts))
	if len(classes) == 1 {
		return sharing{groupOf: groupOf}
	}
	bundles, fewer, singles := startItems(starts, hi)
	if rule == shareFewest && len(classes) <= splitFewestParts {
		items := singles
		if fewer {
			items = bundles
		}
		if fewestItems(in, starts, classes, items, groupOf) {
			return sharing{groupOf: groupOf}
		}
	}
	cls := make([]int, len(classes)) // the classes in the order tried
	for i := range cls {
		cls[i] = i
	}
	if r != nil {
		r.Shuffle(len(cls), func(i, j int) { cls[i], cls[j] = cls[j], cls[i] })
	}
	if fewer && fitItems(in, starts, bundles, classes, cls, hi, affine, r, groupOf) {
		return sharing{groupOf: groupOf}
	}
	if fitItems(in, starts, singles, classes, cls, hi, affine, r, groupOf) {
		return sharing{groupOf: groupOf}
	}
	if rule == shareClosing {
		if w, ok := glueClosing(in, starts, classes, bundles, fewer, singles, hi, affine, r, closing); ok {
			return w
		}
	}
	// Else the finest groups that balance, classes and starters alike:
	// a class joins the others of its group.
	vals := make([]int64, 0, len(classes)+len(starts))
	vals = append(vals, classes...)
	for _, b := range starts {
		vals = append(vals, -in.size[b])
	}
	same := func(i int) int { return i }
	w, _ := joinGroups(taggedGroups(vals, slices.Concat(ctag, stag), len(classes)), len(classes), same, same, len(starts))
	return w
}

// joinGroups makes a sharing of groups of indices that each balance
// (below nc the classes classAt(i), from nc on the starters
// starterAt(i-nc), of n): the classes of a group join its first one,
// which is given the group's starters. It reports false if a group has no
// class.
func joinGroups(groups [][]int, nc int, classAt, starterAt func(int) int, n int) (sharing, bool) {
	w := sharing{groupOf: make([]int, n)}
	for _, g := range groups {
		first := -1
		for _, i := range g {
			if i < nc {
				if first < 0 {
					first = classAt(i)
				} else {
					w.joined = append(w.joined, [2]int{first, classAt(i)})
				}
			}
		}
		if first < 0 {
			return w, false
		}
		for _, i := range g {
			if i >= nc {
				w.groupOf[starterAt(i-nc)] = first
			}
		}
	}
	return w, true
}

// fitItems gives each item (starters, given one class together) a class
// such that the items given a class add up to its sum, by a depth-first
// search of at most splitShareNodes nodes; it sets groupOf and reports
// whether it found one.
func fitItems(in *inst, starts []int32, items [][]int, classes []int64, cls []int, hi []int32, affine func(s, c int) bool, r *rand.Rand, groupOf []int) bool {
	size := make([]int64, len(items))
	for k, it := range items {
		for _, s := range it {
			size[k] += in.size[starts[s]]
		}
	}
	ord := make([]int, len(items))
	for i := range ord {
		ord[i] = i
	}
	if r != nil {
		r.Shuffle(len(ord), func(i, j int) { ord[i], ord[j] = ord[j], ord[i] })
	}
	slices.SortStableFunc(ord, func(x, y int) int { return cmp.Compare(size[y], size[x]) })
	rem := slices.Clone(classes)
	gOf := make([]int, len(items))
	nodes := 0
	var dfs func(j int) bool
	dfs = func(j int) bool {
		if nodes++; nodes > splitShareNodes {
			return false
		}
		if j == len(ord) {
			return true
		}
		k := ord[j]
		sz := size[k]
		s := items[k][0]
		// Items of one size and end are interchangeable: keep their
		// classes in order.
		from := 0
		if j > 0 {
			if p := ord[j-1]; size[p] == sz && hi[starts[items[p][0]]] == hi[starts[s]] {
				from = slices.Index(cls, gOf[p])
			}
		}
		for pass := 0; pass < 3; pass++ {
			for _, c := range cls[from:] {
				if rem[c] < sz {
					continue
				}
				rank := 2
				if slices.ContainsFunc(items[k], func(s int) bool { return affine(s, c) }) {
					rank = 0
				} else if rem[c] == sz {
					rank = 1
				}
				if rank != pass {
					continue
				}
				rem[c] -= sz
				gOf[k] = c
				ok := dfs(j + 1)
				rem[c] += sz
				if ok {
					return true
				}
			}
		}
		return false
	}
	if !dfs(0) {
		return false
	}
	for k, it := range items {
		for _, s := range it {
			groupOf[s] = gOf[k]
		}
	}
	return true
}

// startItems lists the starters (indices into starts) as items: those of
// one end together, in order of first appearance, and whether that is
// fewer items than starters; and each on its own.
func startItems(starts []int32, hi []int32) (bundles [][]int, fewer bool, singles [][]int) {
	byHi := map[int32]int{}
	for i, b := range starts {
		k, ok := byHi[hi[b]]
		if !ok {
			k = len(bundles)
			byHi[hi[b]] = k
			bundles = append(bundles, nil)
		}
		bundles[k] = append(bundles[k], i)
	}
	singles = make([][]int, len(starts))
	for i := range singles {
		singles[i] = []int{i}
	}
	return bundles, len(bundles) < len(starts), singles
}

// glueClosing joins classes the way shareClosing says: the classes whose
// parts go on each get starters of their own sum, and the closing classes
// together the rest (by fitItems, the bundles first where fewer, then the
// singles: startItems);
// then the closing classes and their starters are cut into the finest
// groups that balance, and the classes of a group join. It reports false
// where there is no closing class, no such sharing, or a group without a
// class.
func glueClosing(in *inst, starts []int32, classes []int64, bundles [][]int, fewer bool, singles [][]int, hi []int32, affine func(s, c int) bool, r *rand.Rand, closing []bool) (sharing, bool) {
	var cont, clos []int
	var pool int64
	for i, c := range closing {
		if c {
			clos = append(clos, i)
			pool += classes[i]
		} else {
			cont = append(cont, i)
		}
	}
	if len(clos) == 0 {
		return sharing{}, false
	}
	// The classes of the first step: those that go on, then the pool.
	cl := make([]int64, 0, len(cont)+1)
	for _, i := range cont {
		cl = append(cl, classes[i])
	}
	cl = append(cl, pool)
	cls := make([]int, len(cl))
	for i := range cls {
		cls[i] = i
	}
	aff := func(s, c int) bool { return c < len(cont) && affine(s, cont[c]) }
	g := make([]int, len(starts))
	ok := fewer && fitItems(in, starts, bundles, cl, cls, hi, aff, r, g)
	if !ok && !fitItems(in, starts, singles, cl, cls, hi, aff, r, g) {
		return sharing{}, false
	}
	var pooled []int
	for i := range starts {
		if g[i] == len(cont) {
			pooled = append(pooled, i)
		}
	}
	vals := make([]int64, 0, len(clos)+len(pooled))
	for _, i := range clos {
		vals = append(vals, classes[i])
	}
	for _, i := range pooled {
		vals = append(vals, -in.size[starts[i]])
	}
	w, ok := joinGroups(balancedGroups(vals), len(clos), func(x int) int { return clos[x] }, func(x int) int { return pooled[x] }, len(starts))
	if !ok {
		return sharing{}, false
	}
	for i := range starts {
		if g[i] < len(cont) {
			w.groupOf[i] = cont[g[i]]
		}
	}
	return w, true
}

// fewestItems shares the starters among the classes the way shareFewest
// says: the classes from the smallest sum up but the largest, each taking
// the fewest items left that add up to its sum (a knapsack by counts over
// the totals in units of the gcd, at most splitFewestRange), and the
// largest class the rest. Items are groups of starters given a class
// together (startItems). It sets groupOf and reports whether it found
// such a sharing.
func fewestItems(in *inst, starts []int32, classes []int64, items [][]int, groupOf []int) bool {
	size := make([]int64, len(items))
	var g int64
	for k, it := range items {
		for _, x := range it {
			size[k] += in.size[starts[x]]
		}
		g = gcd(g, size[k])
	}
	for _, c := range classes {
		g = gcd(g, c)
	}
	if g == 0 {
		return false
	}
	ord := make([]int, len(classes))
	for i := range ord {
		ord[i] = i
	}
	slices.SortStableFunc(ord, func(x, y int) int { return cmp.Compare(classes[x], classes[y]) })
	used := make([]bool, len(items))
	const none = math.MaxInt32
	for _, c := range ord[:len(ord)-1] {
		target := classes[c] / g
		if target > splitFewestRange {
			return false
		}
		// count[x]: the fewest items that add up to x; took[j*w+x]: item
		// idx[j] is the last one of such a set, for the items up to j.
		w := target + 1
		count := make([]int32, w)
		for x := range count {
			count[x] = none
		}
		count[0] = 0
		var idx []int
		for k := range items {
			if !used[k] {
				idx = append(idx, k)
			}
		}
		took := make([]bool, int64(len(idx))*w)
		for j, k := range idx {
			v := size[k] / g
			row := took[int64(j)*w : int64(j+1)*w]
			for x := target; x >= v; x-- {
				if count[x-v] != none && count[x-v]+1 < count[x] {
					count[x] = count[x-v] + 1
					row[x] = true
				}
			}
		}
		if count[target] == none {
			return false
		}
		for j, x := len(idx)-1, target; x > 0; j-- {
			if took[int64(j)*w+x] {
				k := idx[j]
				used[k] = true
				for _, st := range items[k] {
					groupOf[st] = c
				}
				x -= size[k] / g
			}
		}
	}
	last := ord[len(ord)-1]
	var rest int64
	for k := range items {
		if !used[k] {
			rest += size[k]
			for _, st := range items[k] {
				groupOf[st] = last
			}
		}
	}
	return rest == classes[last]
}

// taggedGroups cuts vals, which sum to zero, into groups (of indices)
// that each sum to zero: first, for each merge tag (tags[i], -1 for none),
// the values of that tag if they sum to zero and one is a class (an index
// below nc), then the others by balancedGroups. The merges found a cut in
// time there (mergeBuffers): the balance of the tag's enders and starters
// is no coincidence, while balancedGroups' greedy search for cancelling
// values glues parts by coincidental sums (perfect packings of N = 5,000,
// python seeds 2 and 4: packed with the tagged groups, not without).
func taggedGroups(vals []int64, tags []int32, nc int) [][]int {
	byTag := map[int32][]int{}
	var keys []int32
	for i, k := range tags {
		if k < 0 {
			continue
		}
		if _, ok := byTag[k]; !ok {
			keys = append(keys, k)
		}
		byTag[k] = append(byTag[k], i)
	}
	var groups [][]int
	taken := make([]bool, len(vals))
	for _, k := range keys {
		g := byTag[k]
		var sum int64
		for _, i := range g {
			sum += vals[i]
		}
		if sum == 0 && g[0] < nc {
			groups = append(groups, g)
			for _, i := range g {
				taken[i] = true
			}
		}
	}
	var restIdx []int
	var rest []int64
	for i, v := range vals {
		if !taken[i] {
			restIdx = append(restIdx, i)
			rest = append(rest, v)
		}
	}
	if len(rest) == 0 {
		return groups
	}
	for _, g := range balancedGroups(rest) {
		for x := range g {
			g[x] = restIdx[g[x]]
		}
		groups = append(groups, g)
	}
	return groups
}

// balancedGroups cuts vals, which sum to zero, into groups (of indices)
// that each sum to zero: the value of largest magnitude left with the
// fewest others that cancel it (up to three, else by subset sums), else
// all that are left.
func balancedGroups(vals []int64) [][]int {
	rem := make([]int, len(vals))
	for i := range rem {
		rem[i] = i
	}
	abs := func(v int64) int64 { return max(v, -v) }
	slices.SortStableFunc(rem, func(x, y int) int { return cmp.Compare(abs(vals[y]), abs(vals[x])) })
	var out [][]int
	for len(rem) > 0 {
		g := cancel(vals, rem)
		if g == nil {
			return append(out, rem)
		}
		out = append(out, g)
		rem = slices.DeleteFunc(rem, func(i int) bool { return slices.Contains(g, i) })
	}
	return out
}

// cancel returns rem[0] with the fewest others of rem whose values sum to
// minus its value (one to three by lookup, more by subset sums), or nil.
func cancel(vals []int64, rem []int) []int {
	f, need := rem[0], -vals[rem[0]]
	rest := rem[1:]
	at := make(map[int64][]int, len(rest))
	for _, i := range rest {
		at[vals[i]] = append(at[vals[i]], i)
	}
	// other returns an index of rest with value v, none of used, or -1.
	other := func(v int64, used ...int) int {
		for _, i := range at[v] {
			if !slices.Contains(used, i) {
				return i
			}
		}
		return -1
	}
	if i := other(need); i >= 0 {
		return []int{f, i}
	}
	for _, i := range rest {
		if j := other(need-vals[i], i); j >= 0 {
			return []int{f, i, j}
		}
	}
	if len(rest) <= splitTriples {
		for x, i := range rest {
			for _, j := range rest[x+1:] {
				if k := other(need-vals[i]-vals[j], i, j); k >= 0 {
					return []int{f, i, j, k}
				}
			}
		}
	}
	return cancelSums(vals, rem)
}

// cancelSums returns rem[0] with others of rem whose values cancel it: of
// the values of rem[0]'s sign, the smallest total (rem[0]'s included)
// that the values of the other sign match; nil if none (or the totals, in
// units of the values' gcd, exceed splitSumRange). Each total reached
// keeps the first value that reached it, which rebuilds a subset.
func cancelSums(vals []int64, rem []int) []int {
	abs := func(v int64) int64 { return max(v, -v) }
	f := rem[0]
	var g, same, opp int64
	var sameIdx, oppIdx []int
	for _, i := range rem {
		g = gcd(g, abs(vals[i]))
		if (vals[i] > 0) == (vals[f] > 0) {
			same += abs(vals[i])
			if i != f {
				sameIdx = append(sameIdx, i)
			}
		} else {
			opp += abs(vals[i])
			oppIdx = append(oppIdx, i)
		}
	}
	top := min(same, opp) / g
	if top > splitSumRange {
		return nil
	}
	// sums returns, per total up to top, the index in idx of the value
	// that first reached it, plus one (0: not reached; total 0: -1).
	sums := func(idx []int) []int32 {
		first := make([]int32, top+1)
		first[0] = -1
		for k, i := range idx {
			v := abs(vals[i]) / g
			for x := top; x >= v; x-- {
				if first[x] == 0 && first[x-v] != 0 {
					first[x] = int32(k + 1)
				}
			}
		}
		return first
	}
	rebuild := func(first []int32, idx []int, x int64) []int {
		var out []int
		for x > 0 {
			i := idx[first[x]-1]
			out = append(out, i)
			x -= abs(vals[i]) / g
		}
		return out
	}
	a := abs(vals[f]) / g
	fs, fo := sums(sameIdx), sums(oppIdx)
	for v := a; v <= top; v++ {
		if fo[v] != 0 && fs[v-a] != 0 {
			return append(append([]int{f}, rebuild(fs, sameIdx, v-a)...), rebuild(fo, oppIdx, v)...)
		}
	}
	return nil
}

// exact packs bufs in [base, base+W) by the branch and bound, under the
// work left.
func (sp *splitter) exact(bufs []int32, W, base int64) bool {
	in := sp.in
	p := &Problem{Capacity: W, Buffers: make([]Buffer, len(bufs))}
	for i, b := range bufs {
		p.Buffers[i] = Buffer{Lower: int64(in.lo[b]), Upper: int64(in.hi[b]), Size: in.size[b], Align: in.align[b]}
	}
	sub := newInst(p, func() bool { return false })
	nodes := sp.st.Nodes
	offs, r := exact(sub, W, sp.seed, sp.stop, sp.st, min(sp.maxNodes-sp.st.Nodes, max(minimizeBudget, 2*int64(len(bufs)))))
	if sp.tick(sp.st.Nodes - nodes); r != exactFound {
		sp.cut = sp.cut || r == exactStopped || sp.st.Nodes >= sp.maxNodes
		return false
	}
	for i, b := range bufs {
		sp.off[b] = base + offs[i]
	}
	return true
}

// spanIndex lists a part's buffers by the time point they start and end.
type spanIndex struct {
	byLo, byHi []int32
	lo, hi     []int32 // the instance's
}

func newSpanIndex(in *inst, bufs []int32) *spanIndex {
	ix := &spanIndex{byLo: slices.Clone(bufs), byHi: slices.Clone(bufs), lo: in.lo, hi: in.hi}
	slices.SortStableFunc(ix.byLo, func(x, y int32) int { return cmp.Compare(in.lo[x], in.lo[y]) })
	slices.SortStableFunc(ix.byHi, func(x, y int32) int { return cmp.Compare(in.hi[x], in.hi[y]) })
	return ix
}

func (ix *spanIndex) startsAt(t int32) []int32 {
	i, _ := slices.BinarySearchFunc(ix.byLo, t, func(b, t int32) int { return cmp.Compare(ix.lo[b], t) })
	j, _ := slices.BinarySearchFunc(ix.byLo, t+1, func(b, t int32) int { return cmp.Compare(ix.lo[b], t) })
	return ix.byLo[i:j]
}

func (ix *spanIndex) endsAt(t int32) []int32 {
	i, _ := slices.BinarySearchFunc(ix.byHi, t, func(b, t int32) int { return cmp.Compare(ix.hi[b], t) })
	j, _ := slices.BinarySearchFunc(ix.byHi, t+1, func(b, t int32) int { return cmp.Compare(ix.hi[b], t) })
	return ix.byHi[i:j]
}
