package pack

import (
	"cmp"
	"slices"
)

// Merging a zero-waste instance's buffers, for the splits (see doc.go,
// "Zero-waste instances: splits").
// Two or more buffers merge into one where some perfect packing very
// likely has them so. At a time point t:
//
//   - in time: a size with exactly one buffer that ends at t and exactly
//     one that starts there; both become one buffer of that size from the
//     first's start to the second's end (both at its offset);
//   - at a cut in time: the buffers that end at t, grouped by their start,
//     and those that start there, grouped by their end; a group of each
//     side with the same total, no other group of its side having that
//     total, become one buffer of that total from the one group's start to
//     the other's end (each group stacked from its offset).
//
// A merged buffer merges again; a worklist of time points looks again at
// the ends of each. Merging keeps every section's demand. The splits do
// not pack the merged instance: a merged buffer crosses the cut in time
// it was merged at, and a guillotine instance merged so has neither that
// cut nor, mostly, a split in space (N = 5,000, python seed 2: 259 merged
// buffers from 5,000, which do not split at all, and the branch and bound
// does not pack them within 20,000 nodes). The merges are hints instead
// (mergeTags): where the splits' sharing of starters among parts finds no
// way and parts must join, the parts and starters of one merge that
// balance form a group of their own (taggedGroups). A hint can only be
// wrong, never unsound: the splits check every balance themselves.

// mergeTree is the merged buffers: nodes 0..n-1 are the instance's
// buffers, later ones merged buffers.
type mergeTree struct {
	lo, hi []int32
	size   []int64
	// stacks of a merged node: its two groups (the earlier and the later
	// one), each stacked from the node's offset up; nil for a buffer.
	stacks [][2][]int32
	alive  []bool
}

// mergeTags merges in's buffers and returns their tags (mergeTree.tags).
func mergeTags(in *inst) (tagLo, tagHi []int32) {
	return mergeBuffers(in).tags(in.n)
}

// mergeBuffers merges in's buffers; the live nodes are the merged
// instance.
func mergeBuffers(in *inst) *mergeTree {
	m := &mergeTree{
		lo: slices.Clone(in.lo), hi: slices.Clone(in.hi), size: slices.Clone(in.size),
		stacks: make([][2][]int32, in.n), alive: make([]bool, in.n),
	}
	endsAt := make([][]int32, in.ns+1)
	startsAt := make([][]int32, in.ns+1)
	for b := range in.n {
		m.alive[b] = true
		endsAt[in.hi[b]] = append(endsAt[in.hi[b]], int32(b))
		startsAt[in.lo[b]] = append(startsAt[in.lo[b]], int32(b))
	}
	queue := make([]int32, 0, in.ns)
	queued := make([]bool, in.ns+1)
	push := func(t int32) {
		if t > 0 && t < int32(in.ns) && !queued[t] {
			queued[t] = true
			queue = append(queue, t)
		}
	}
	for t := int32(1); t < int32(in.ns); t++ {
		push(t)
	}
	// live drops the dead nodes from l.
	live := func(l []int32) []int32 {
		return slices.DeleteFunc(l, func(b int32) bool { return !m.alive[b] })
	}
	add := func(lo, hi int32, size int64, a, b []int32) {
		k := int32(len(m.lo))
		for _, x := range slices.Concat(a, b) {
			m.alive[x] = false
		}
		m.lo, m.hi, m.size = append(m.lo, lo), append(m.hi, hi), append(m.size, size)
		m.stacks = append(m.stacks, [2][]int32{a, b})
		m.alive = append(m.alive, true)
		endsAt[hi] = append(endsAt[hi], k)
		startsAt[lo] = append(startsAt[lo], k)
		push(lo)
		push(hi)
	}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		queued[t] = false
		ends, starts := live(endsAt[t]), live(startsAt[t])
		endsAt[t], startsAt[t] = ends, starts
		if len(ends) == 0 || len(starts) == 0 {
			continue
		}
		if m.mergeInTime(t, ends, starts, add) {
			push(t)
			continue
		}
		m.mergeAtCut(ends, starts, add)
	}
	return m
}

// mergeInTime merges, at t, each size with exactly one ender and one
// starter; it reports whether it merged any.
func (m *mergeTree) mergeInTime(t int32, ends, starts []int32, add func(lo, hi int32, size int64, a, b []int32)) bool {
	bySize := func(l []int32) []int32 {
		l = slices.Clone(l)
		slices.SortFunc(l, func(x, y int32) int { return cmp.Or(cmp.Compare(m.size[x], m.size[y]), cmp.Compare(x, y)) })
		return l
	}
	e, s := bySize(ends), bySize(starts)
	// run returns the end of the run of l's size at i.
	run := func(l []int32, i int) int {
		j := i + 1
		for j < len(l) && m.size[l[j]] == m.size[l[i]] {
			j++
		}
		return j
	}
	merged := false
	for i, j := 0, 0; i < len(e) && j < len(s); {
		switch ie, js := run(e, i), run(s, j); {
		case m.size[e[i]] < m.size[s[j]]:
			i = ie
		case m.size[e[i]] > m.size[s[j]]:
			j = js
		default:
			if ie-i == 1 && js-j == 1 {
				a, b := e[i], s[j]
				add(m.lo[a], m.hi[b], m.size[a], []int32{a}, []int32{b})
				merged = true
			}
			i, j = ie, js
		}
	}
	return merged
}

// mergeAtCut merges, at a time point, a group of enders of one start and
// a group of starters of one end whose totals are equal and unique on
// their sides.
func (m *mergeTree) mergeAtCut(ends, starts []int32, add func(lo, hi int32, size int64, a, b []int32)) {
	type group struct {
		at    int32 // the enders' start or the starters' end
		total int64
		bufs  []int32
	}
	groups := func(l []int32, at []int32) []group {
		l = slices.Clone(l)
		slices.SortFunc(l, func(x, y int32) int { return cmp.Or(cmp.Compare(at[x], at[y]), cmp.Compare(x, y)) })
		var gs []group
		for _, b := range l {
			if len(gs) == 0 || gs[len(gs)-1].at != at[b] {
				gs = append(gs, group{at: at[b]})
			}
			g := &gs[len(gs)-1]
			g.total += m.size[b]
			g.bufs = append(g.bufs, b)
		}
		slices.SortStableFunc(gs, func(x, y group) int { return cmp.Compare(x.total, y.total) })
		return gs
	}
	e, s := groups(ends, m.lo), groups(starts, m.hi)
	run := func(gs []group, i int) int {
		j := i + 1
		for j < len(gs) && gs[j].total == gs[i].total {
			j++
		}
		return j
	}
	for i, j := 0, 0; i < len(e) && j < len(s); {
		switch ie, js := run(e, i), run(s, j); {
		case e[i].total < s[j].total:
			i = ie
		case e[i].total > s[j].total:
			j = js
		default:
			if ie-i == 1 && js-j == 1 {
				add(e[i].at, s[j].at, e[i].total, e[i].bufs, s[j].bufs)
			}
			i, j = ie, js
		}
	}
}

// tags returns, per buffer, the merged node that joined its start to
// what ends there (tagLo) and its end to what starts there (tagHi), or
// -1.
func (m *mergeTree) tags(n int) (tagLo, tagHi []int32) {
	tagLo, tagHi = make([]int32, n), make([]int32, n)
	for i := range n {
		tagLo[i], tagHi[i] = -1, -1
	}
	// leaves sets tag[b] = k for the buffers whose start (side 0) or end
	// (side 1) is that of node x.
	var leaves func(x int32, side int, tag []int32, k int32)
	leaves = func(x int32, side int, tag []int32, k int32) {
		if int(x) < n {
			tag[x] = k
			return
		}
		for _, y := range m.stacks[x][side] {
			leaves(y, side, tag, k)
		}
	}
	for k := n; k < len(m.lo); k++ {
		for _, a := range m.stacks[k][0] {
			leaves(a, 1, tagHi, int32(k))
		}
		for _, b := range m.stacks[k][1] {
			leaves(b, 0, tagLo, int32(k))
		}
	}
	return tagLo, tagHi
}
