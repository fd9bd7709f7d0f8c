package repack

import "sort"

// spanIndex finds the items alive at some timestep of a window without
// visiting the others: a long program has tens of thousands of buffers
// in a level, and only those that fit it at one time are alive together.
// The items are sorted by their first timestep, and a segment tree keeps
// the latest last timestep of every range of them: a query takes the
// prefix that starts by the window's end and descends only into ranges
// that live into the window, O(k log n) for k items found.
type spanIndex struct {
	order []int32 // item indices by first timestep (ties: index)
	from  []int   // from[i] = the first timestep of item order[i]
	to    []int   // to[i] = its last
	size  int     // leaves of the tree (a power of two)
	maxTo []int   // maxTo[node]: the latest last timestep under node
	// Items added since the tree was built, scanned one by one.
	extra              []int32
	extraFrom, extraTo []int
}

// add indexes one more item, alive on [from, to].
func (x *spanIndex) add(k int32, from, to int) {
	x.extra = append(x.extra, k)
	x.extraFrom = append(x.extraFrom, from)
	x.extraTo = append(x.extraTo, to)
}

func newSpanIndex(its []item) *spanIndex {
	n := len(its)
	x := &spanIndex{order: make([]int32, n), from: make([]int, n), to: make([]int, n), size: 1}
	for i := range x.order {
		x.order[i] = int32(i)
	}
	sort.SliceStable(x.order, func(a, b int) bool { return its[x.order[a]].from < its[x.order[b]].from })
	for i, k := range x.order {
		x.from[i], x.to[i] = its[k].from, its[k].to
	}
	for x.size < n {
		x.size *= 2
	}
	x.maxTo = make([]int, 2*x.size)
	for i := range x.maxTo {
		x.maxTo[i] = -1
	}
	for i := 0; i < n; i++ {
		x.maxTo[x.size+i] = x.to[i]
	}
	for v := x.size - 1; v >= 1; v-- {
		x.maxTo[v] = max(x.maxTo[2*v], x.maxTo[2*v+1])
	}
	return x
}

// each calls f with the index of every item alive at some timestep of
// [from, to], in no particular order.
func (x *spanIndex) each(from, to int, f func(int32)) {
	hi := sort.SearchInts(x.from, to+1) // items starting after to are out
	// A depth-first walk with its own stack (a recursive closure was a
	// fifth of insertion's time): node v covers leaves [lo, lo+width).
	type frame struct{ v, lo, width int }
	var stack [64]frame
	stack[0] = frame{1, 0, x.size}
	for n := 1; n > 0; {
		n--
		fr := stack[n]
		if fr.lo >= hi || x.maxTo[fr.v] < from {
			continue
		}
		if fr.width == 1 {
			f(x.order[fr.lo])
			continue
		}
		half := fr.width / 2
		stack[n] = frame{2*fr.v + 1, fr.lo + half, half} // right after left
		stack[n+1] = frame{2 * fr.v, fr.lo, half}
		n += 2
	}
	for i, k := range x.extra {
		if x.extraTo[i] >= from && x.extraFrom[i] <= to {
			f(k)
		}
	}
}
