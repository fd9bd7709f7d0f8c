package pack

import (
	"sort"
)

// inst is a problem compiled for the solvers: times replaced by section
// indices, and adjacency in compressed-sparse-row form.
//
// Section k is the elementary time interval [times[k], times[k+1]) between
// two consecutive distinct endpoints. Buffer b is alive on sections
// [lo[b], hi[b]); two buffers conflict exactly when their section ranges
// intersect.
type inst struct {
	n, ns       int
	size, align []int64 // align >= 1
	lo, hi      []int32
	length      []int64 // upper - lower, in time units
	coverStart  []int32 // buffers alive in section s: cover[coverStart[s]:coverStart[s+1]]
	cover       []int32
	posStart    []int32 // where buffer b sits in each of its sections' cover lists:
	pos         []int32 // pos[posStart[b]+s-lo[b]] is an index into cover
	confStart   []int32 // buffers conflicting b: conf[confStart[b]:confStart[b+1]]
	conf        []int32
	classPrev   []int32 // previous buffer of b's symmetry class, or -1
	demand      []int64 // total size alive in each section
	total       []int64 // per buffer: the largest demand among its sections
	g           int64   // every canonical offset is a multiple of g
	maxLive     int64
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func roundUp(x, a int64) int64 {
	if a <= 1 {
		return x
	}
	if r := x % a; r != 0 {
		return x + a - r
	}
	return x
}

func newInst(p *Problem) *inst {
	n := len(p.Buffers)
	in := &inst{n: n}
	times := make([]int64, 0, 2*n)
	for _, b := range p.Buffers {
		times = append(times, b.Lower, b.Upper)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	u := times[:0]
	for i, t := range times {
		if i == 0 || t != times[i-1] {
			u = append(u, t)
		}
	}
	times = u
	ns := max(len(times)-1, 0)
	in.ns = ns
	rank := func(t int64) int32 {
		return int32(sort.Search(len(times), func(i int) bool { return times[i] >= t }))
	}
	in.size = make([]int64, n)
	in.align = make([]int64, n)
	in.lo = make([]int32, n)
	in.hi = make([]int32, n)
	in.length = make([]int64, n)
	in.demand = make([]int64, ns)
	var g int64
	counts := make([]int32, ns+1)
	for i, b := range p.Buffers {
		in.size[i] = b.Size
		in.align[i] = max(b.Align, 1)
		in.lo[i] = rank(b.Lower)
		in.hi[i] = rank(b.Upper)
		in.length[i] = b.Upper - b.Lower
		g = gcd(g, b.Size)
		if b.Align > 1 {
			g = gcd(g, b.Align)
		}
		for s := in.lo[i]; s < in.hi[i]; s++ {
			in.demand[s] += b.Size
			counts[s]++
		}
	}
	if g == 0 {
		g = 1
	}
	in.total = make([]int64, n)
	for i := 0; i < n; i++ {
		for s := in.lo[i]; s < in.hi[i]; s++ {
			in.total[i] = max(in.total[i], in.demand[s])
		}
	}
	in.g = g
	for _, d := range in.demand {
		in.maxLive = max(in.maxLive, d)
	}
	in.coverStart = make([]int32, ns+1)
	for s := 0; s < ns; s++ {
		in.coverStart[s+1] = in.coverStart[s] + counts[s]
	}
	in.cover = make([]int32, in.coverStart[ns])
	fill := append([]int32(nil), in.coverStart[:ns]...)
	in.posStart = make([]int32, n+1)
	for i := 0; i < n; i++ {
		in.posStart[i+1] = in.posStart[i] + in.hi[i] - in.lo[i]
	}
	in.pos = make([]int32, in.posStart[n])
	for i := 0; i < n; i++ {
		for s := in.lo[i]; s < in.hi[i]; s++ {
			in.cover[fill[s]] = int32(i)
			in.pos[in.posStart[i]+s-in.lo[i]] = fill[s]
			fill[s]++
		}
	}
	// Conflicts: sweep buffers by lo.
	byLo := make([]int32, n)
	for i := range byLo {
		byLo[i] = int32(i)
	}
	sort.Slice(byLo, func(a, b int) bool { return in.lo[byLo[a]] < in.lo[byLo[b]] })
	adj := make([][]int32, n)
	for x := 0; x < n; x++ {
		i := byLo[x]
		for y := x + 1; y < n; y++ {
			j := byLo[y]
			if in.lo[j] >= in.hi[i] {
				break
			}
			adj[i] = append(adj[i], j)
			adj[j] = append(adj[j], i)
		}
	}
	in.confStart = make([]int32, n+1)
	for i := 0; i < n; i++ {
		sort.Slice(adj[i], func(a, b int) bool { return adj[i][a] < adj[i][b] })
		in.confStart[i+1] = in.confStart[i] + int32(len(adj[i]))
	}
	in.conf = make([]int32, 0, in.confStart[n])
	for i := 0; i < n; i++ {
		in.conf = append(in.conf, adj[i]...)
	}
	// Symmetry classes: same sections, size and alignment.
	in.classPrev = make([]int32, n)
	type key struct {
		lo, hi      int32
		size, align int64
	}
	last := map[key]int32{}
	for i := 0; i < n; i++ {
		k := key{in.lo[i], in.hi[i], in.size[i], in.align[i]}
		if j, ok := last[k]; ok {
			in.classPrev[i] = j
		} else {
			in.classPrev[i] = -1
		}
		last[k] = int32(i)
	}
	return in
}

func (in *inst) confOf(b int32) []int32 { return in.conf[in.confStart[b]:in.confStart[b+1]] }
func (in *inst) coverOf(s int32) []int32 {
	return in.cover[in.coverStart[s]:in.coverStart[s+1]]
}
