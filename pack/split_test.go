package pack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSplitPerfect: perfect packings that the branch and bound could not
// pack (N = 1,000 seed 1 and every N = 2,000 and 5,000 stay at the
// greedy's peak, 43-58% above max-live, after 10 s) are packed at
// max-live by splits, with no branch-and-bound node. N = 5,000 seeds 2, 5
// and 8 need the merges' hints and the starters of one end shared as one
// (without the tagged groups seed 2 takes 4,219 nodes and seed 5 is not
// packed; without the items of one end seeds 5 and 8 are not). Seeds 23,
// 24 and 39 need the sharing rules after the first (shareRule): 24 walks
// of the first rule leave one part whole, which the branch and bound does
// not pack.
func TestSplitPerfect(t *testing.T) {
	for _, c := range []struct {
		n     int
		seeds []uint64
	}{
		{1000, []uint64{1, 2, 3}},
		{2000, []uint64{1, 2, 3}},
		{5000, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 23, 24, 39}},
	} {
		if c.n == 5000 && testmode.Quick() {
			// Seed 23 needs the sharing rules beyond the first.
			c.seeds = []uint64{1, 23}
		}
		for _, seed := range c.seeds {
			t.Run(fmt.Sprintf("n%d_s%d", c.n, seed), func(t *testing.T) {
				p := perfectProblem(c.n, seed)
				s, err := Solve(context.Background(), p, &Options{NodeLimit: 20000})
				require.NoError(t, err)
				require.True(t, s.Solved, "%+v", s.Stats)
				require.NoError(t, Check(p, s))
				assert.Equal(t, int64(perfectW), s.Peak)
				assert.True(t, s.Optimal)
				assert.True(t, s.Stats.Split)
				assert.Zero(t, s.Stats.Nodes)
			})
		}
	}
}

// startsOf returns starters (buffers of in) of the given sizes, ending at
// the given times, all starting at time 0.
func startsOf(sizes []int64, ends []int32) (*inst, []int32) {
	p := &Problem{Capacity: 1 << 20}
	var starts []int32
	for i, s := range sizes {
		p.Buffers = append(p.Buffers, Buffer{Lower: 0, Upper: int64(ends[i]), Size: s})
		starts = append(starts, int32(i))
	}
	in := newInst(p, func() bool { return false })
	return in, starts
}

// classSums adds up, per class, the sizes of the starters it was given.
func classSums(in *inst, starts []int32, groupOf []int, n int) []int64 {
	sums := make([]int64, n)
	for i, c := range groupOf {
		sums[c] += in.size[starts[i]]
	}
	return sums
}

// itemsOf returns the items shareStarters gives fewestItems: the
// starters of one end together where some end together, else each.
func itemsOf(in *inst, starts []int32) [][]int {
	b, fewer, singles := startItems(starts, in.hi)
	if fewer {
		return b
	}
	return singles
}

// TestFewestItems: the smallest class takes the fewest items that add up
// to its sum, the largest the rest; starters of one end stay together.
func TestFewestItems(t *testing.T) {
	// Class 0 (96) is made by one starter (96) or by four (16, 16, 32, 32).
	in, starts := startsOf([]int64{16, 16, 32, 32, 96, 64}, []int32{3, 4, 5, 6, 7, 8})
	g := make([]int, len(starts))
	require.True(t, fewestItems(in, starts, []int64{96, 160}, itemsOf(in, starts), g))
	assert.Equal(t, []int{1, 1, 1, 1, 0, 1}, g)

	// The sums hold with three classes, the smallest first.
	in, starts = startsOf([]int64{48, 16, 32, 80, 32}, []int32{3, 4, 5, 6, 7})
	g = make([]int, len(starts))
	require.True(t, fewestItems(in, starts, []int64{112, 48, 48}, itemsOf(in, starts), g))
	assert.Equal(t, []int64{112, 48, 48}, classSums(in, starts, g, 3))
	assert.Equal(t, 0, g[3], "the 80 goes to the largest class")

	// 16 and 32 end together: one item of 48, never split.
	in, starts = startsOf([]int64{16, 32, 48}, []int32{5, 5, 7})
	g = make([]int, len(starts))
	require.True(t, fewestItems(in, starts, []int64{48, 48}, itemsOf(in, starts), g))
	assert.Equal(t, g[0], g[1])
	assert.NotEqual(t, g[0], g[2])

	// No subset adds up to the smallest class.
	in, starts = startsOf([]int64{32, 32, 32}, []int32{3, 4, 5})
	assert.False(t, fewestItems(in, starts, []int64{48, 48}, itemsOf(in, starts), make([]int, 3)))
}

// TestGlueClosing: a class whose part goes on keeps starters of its own
// sum; the closing classes that no sharing fits join, with the rest.
func TestGlueClosing(t *testing.T) {
	// Class 0 (100) goes on; classes 1 (30) and 2 (50) close. No starters
	// add up to 30, so 1 and 2 join and take 40 + 40; class 0 takes 60 + 40.
	in, starts := startsOf([]int64{60, 40, 40, 40}, []int32{9, 9, 8, 7})
	classes := []int64{100, 30, 50}
	none := func(s, c int) bool { return false }
	b, fewer, singles := startItems(starts, in.hi)
	w, ok := glueClosing(in, starts, classes, b, fewer, singles, in.hi, none, nil, []bool{false, true, true})
	require.True(t, ok)
	require.Len(t, w.joined, 1)
	assert.ElementsMatch(t, []int{1, 2}, w.joined[0][:])
	first := w.joined[0][0]
	var to0, toFirst int64
	for i, c := range w.groupOf {
		switch c {
		case 0:
			to0 += in.size[starts[i]]
		case first:
			toFirst += in.size[starts[i]]
		default:
			t.Fatalf("starter %d given class %d", i, c)
		}
	}
	assert.Equal(t, int64(100), to0)
	assert.Equal(t, int64(80), toFirst)

	// Without a closing class the rule does not apply.
	_, ok = glueClosing(in, starts, classes, b, fewer, singles, in.hi, none, nil, []bool{false, false, false})
	assert.False(t, ok)
	// Nor when the parts that go on cannot keep to sums of their own.
	_, ok = glueClosing(in, starts, []int64{90, 30, 60}, b, fewer, singles, in.hi, none, nil, []bool{false, true, true})
	assert.False(t, ok)
}

// tetris returns a zero-waste instance that is not cut by guillotine
// cuts: memory w wide is tiled by buffers from time 0; at each time point
// up to span a run of one to three neighbouring buffers ends, and the
// memory they held is tiled again by one to four new buffers, cut at other
// points than theirs (so that a buffer rests on parts of several). Every
// buffer alive at span ends there. Sizes are multiples of q.
func tetris(r *rand.Rand, w, span, q int64) *Problem {
	type col struct{ off, size, from int64 }
	cut := func(off, size int64) []col {
		k := 1 + r.IntN(4)
		var out []col
		for i := 0; i < k && size >= 2*q; i++ {
			s := q * (1 + r.Int64N(size/q-1))
			out = append(out, col{off, s, 0})
			off, size = off+s, size-s
		}
		return append(out, col{off, size, 0})
	}
	p := &Problem{Capacity: w}
	add := func(c col, to int64) {
		p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprint(len(p.Buffers)), Lower: c.from, Upper: to, Size: c.size})
	}
	cols := cut(0, w)
	for t := int64(1); t < span; t++ {
		i := r.IntN(len(cols))
		j := min(len(cols), i+1+r.IntN(3))
		off, size := cols[i].off, int64(0)
		for _, c := range cols[i:j] {
			add(c, t)
			size += c.size
		}
		fresh := cut(off, size)
		for k := range fresh {
			fresh[k].from = t
		}
		cols = append(cols[:i], append(fresh, cols[j:]...)...)
	}
	for _, c := range cols {
		add(c, span)
	}
	return p
}

// TestSplitPackingsValid: whatever the splits return is a packing within
// the capacity, on many kinds of zero-waste instances (guillotine cuts of
// strips of every shape, the tetris instances that no guillotine cuts
// make, alignments), and they pack most of them; on instances with
// slack, or alignments that sums of sizes can break, they do not run.
// The packings claim nothing but themselves (max-live is the bound that
// makes them optimal), so a wrong one is all that could go wrong.
func TestSplitPackingsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	packed, tried := 0, 0
	for iter := 0; iter < 3000; iter++ {
		var p *Problem
		switch iter % 3 {
		case 0:
			p = guillotine(r, 2+r.IntN(60), 16*int64(2+r.IntN(60)), int64(2+r.IntN(40)), 16)
		case 1:
			p = tetris(r, 16*int64(2+r.IntN(60)), int64(2+r.IntN(40)), 16)
		case 2: // alignments that divide every size
			p = guillotine(r, 2+r.IntN(40), 64*int64(2+r.IntN(30)), int64(2+r.IntN(30)), 64)
			for k := range p.Buffers {
				p.Buffers[k].Align = []int64{1, 16, 64}[r.IntN(3)]
			}
		}
		in := newInst(p, func() bool { return false })
		require.True(t, splittable(in, p.Capacity), "iter %d", iter)
		var st Stats
		offs := splitPack(in, p.Capacity, uint64(iter), 1<<30, 1<<30, func() bool { return false }, &st)
		tried++
		if offs == nil {
			continue
		}
		packed++
		require.NoError(t, Check(p, &Solution{Offsets: offs, Peak: peakOf(p, offs)}), "iter %d: %+v", iter, p.Buffers)
	}
	t.Logf("%d of %d packed", packed, tried)
	assert.Greater(t, packed, tried*9/10)

	// Slack, or an alignment that does not divide the sizes: no splits.
	p := guillotine(r, 20, 16*40, 20, 16)
	p.Buffers = p.Buffers[1:]
	assert.False(t, splittable(newInst(p, func() bool { return false }), p.Capacity))
	p = guillotine(r, 20, 16*40, 20, 16)
	p.Buffers[0].Align = 32
	p.Buffers[0].Size = 16
	assert.False(t, splittable(newInst(p, func() bool { return false }), p.Capacity))
}

// TestMergeBuffers: on zero-waste instances (guillotine cuts and the
// tetris instances), every merged buffer is two groups that meet at one
// time point (the earlier group's buffers end there and start together,
// the later group's start there and end together), each adding up to its
// size; every buffer merged is in exactly one merged buffer; the merged
// instance has the demand of the buffers in every section (so it is
// zero-waste at the same capacity); and the tags name the merge at the
// buffer's start and end.
func TestMergeBuffers(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	merged := 0
	for iter := 0; iter < 2000; iter++ {
		var p *Problem
		if iter%2 == 0 {
			p = guillotine(r, 2+r.IntN(80), 16*int64(2+r.IntN(60)), int64(2+r.IntN(40)), 16)
		} else {
			p = tetris(r, 16*int64(2+r.IntN(60)), int64(2+r.IntN(40)), 16)
		}
		in := newInst(p, func() bool { return false })
		m := mergeBuffers(in)
		in2 := len(m.lo)
		parent := make([]int, in2)
		for k := range parent {
			parent[k] = -1
		}
		demand := make([]int64, in.ns)
		for k := range in2 {
			if m.alive[k] {
				for s := m.lo[k]; s < m.hi[k]; s++ {
					demand[s] += m.size[k]
				}
			}
			if k < in.n {
				require.Nil(t, m.stacks[k][0], "iter %d", iter)
				continue
			}
			merged++
			a, b := m.stacks[k][0], m.stacks[k][1]
			require.NotEmpty(t, a)
			require.NotEmpty(t, b)
			at := m.hi[a[0]]
			for side, g := range [][]int32{a, b} {
				var sum int64
				for _, x := range g {
					require.Equal(t, -1, parent[x], "iter %d: node %d merged twice", iter, x)
					parent[x] = k
					require.False(t, m.alive[x])
					sum += m.size[x]
					if side == 0 {
						require.Equal(t, at, m.hi[x])
						require.Equal(t, m.lo[k], m.lo[x])
					} else {
						require.Equal(t, at, m.lo[x])
						require.Equal(t, m.hi[k], m.hi[x])
					}
				}
				require.Equal(t, m.size[k], sum, "iter %d", iter)
			}
		}
		for k := range in2 {
			require.Equal(t, parent[k] < 0, m.alive[k], "iter %d: node %d", iter, k)
		}
		require.Equal(t, in.demand, demand, "iter %d", iter)
		tagLo, tagHi := m.tags(in.n)
		for b := range in.n {
			if k := tagHi[b]; k >= 0 {
				assert.Equal(t, in.hi[b], m.lo[m.stacks[k][1][0]], "iter %d", iter)
			}
			if k := tagLo[b]; k >= 0 {
				assert.Equal(t, in.lo[b], m.hi[m.stacks[k][0][0]], "iter %d", iter)
			}
		}
	}
	t.Logf("%d merged buffers", merged)
	assert.Greater(t, merged, 1000)
}

// TestSplitMinimize: Solve with Minimize packs zero-waste instances at
// max-live, their optimum (brute force agrees on the small ones), through
// the splits or the branch and bound, and the packing checks.
func TestSplitMinimize(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for iter := 0; iter < 400; iter++ {
		var p *Problem
		if iter%2 == 0 {
			p = guillotine(r, 2+r.IntN(6), int64(4+r.IntN(9)), int64(2+r.IntN(6)), 1)
		} else {
			p = tetris(r, int64(4+r.IntN(9)), int64(2+r.IntN(4)), 1)
		}
		if len(p.Buffers) > 7 {
			continue
		}
		opt := bruteForce(p)
		q := *p
		q.Capacity = 0
		s, err := Solve(context.Background(), &q, &Options{Minimize: true})
		require.NoError(t, err)
		require.NoError(t, Check(&q, s), "iter %d", iter)
		require.Equal(t, opt, s.Peak, "iter %d: %+v", iter, p.Buffers)
		require.Equal(t, MaxLive(p), s.Peak, "iter %d", iter)
		require.True(t, s.Optimal)
	}
}
