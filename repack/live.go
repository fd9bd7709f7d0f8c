package repack

// liveTree keeps the bytes a level's buffers keep live at each timestep,
// with both a range update (a buffer joins) and a range query (the most
// bytes live over a candidate's run) in O(log T): a candidate can live for
// most of a long program (weights are loaded before it runs), and scanning
// its timesteps one by one for every candidate would cost O(T) each.
type liveTree struct {
	n    int     // timesteps
	mx   []int64 // mx[v]: the most bytes live under node v, lazy[v] included
	lazy []int64 // bytes added to every timestep under v, not yet pushed down
}

// newLiveTree builds the tree over live (one entry per timestep).
func newLiveTree(live []int64) *liveTree {
	x := &liveTree{n: len(live), mx: make([]int64, 4*max(len(live), 1)), lazy: make([]int64, 4*max(len(live), 1))}
	if x.n > 0 {
		x.build(1, 0, x.n-1, live)
	}
	return x
}

func (x *liveTree) build(v, lo, hi int, live []int64) {
	if lo == hi {
		x.mx[v] = live[lo]
		return
	}
	mid := (lo + hi) / 2
	x.build(2*v, lo, mid, live)
	x.build(2*v+1, mid+1, hi, live)
	x.mx[v] = max(x.mx[2*v], x.mx[2*v+1])
}

// add adds bytes to every timestep of [from, to].
func (x *liveTree) add(from, to int, bytes int64) { x.update(1, 0, x.n-1, from, to, bytes) }

func (x *liveTree) update(v, lo, hi, from, to int, bytes int64) {
	if to < lo || hi < from {
		return
	}
	if from <= lo && hi <= to {
		x.mx[v] += bytes
		x.lazy[v] += bytes
		return
	}
	mid := (lo + hi) / 2
	x.update(2*v, lo, mid, from, to, bytes)
	x.update(2*v+1, mid+1, hi, from, to, bytes)
	x.mx[v] = max(x.mx[2*v], x.mx[2*v+1]) + x.lazy[v]
}

// most returns the most bytes live at one timestep of [from, to].
func (x *liveTree) most(from, to int) int64 { return x.query(1, 0, x.n-1, from, to) }

func (x *liveTree) query(v, lo, hi, from, to int) int64 {
	if from <= lo && hi <= to {
		return x.mx[v]
	}
	mid := (lo + hi) / 2
	var best int64 = -1 << 62
	if from <= mid {
		best = max(best, x.query(2*v, lo, mid, from, to))
	}
	if to > mid {
		best = max(best, x.query(2*v+1, mid+1, hi, from, to))
	}
	return best + x.lazy[v]
}
