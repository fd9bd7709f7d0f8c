package pack

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/inputerr"
)

const challengingCap = 1048576

func loadCSV(t testing.TB, path string) *Problem {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	p, err := ReadCSV(filepath.Base(path), f)
	require.NoError(t, err)
	return p
}

func challenging(t testing.TB) []string {
	files, err := filepath.Glob("../testdata/minimalloc/?.1048576.csv")
	require.NoError(t, err)
	require.Len(t, files, 11)
	return files
}

// TestChallenging solves MiniMalloc's eleven challenging instances at their
// capacity. Each has a generous deadline; together they take well under a
// second.
func TestChallenging(t *testing.T) {
	for _, f := range challenging(t) {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".1048576.csv"), func(t *testing.T) {
			p := loadCSV(t, f)
			p.Capacity = challengingCap
			s, err := Solve(context.Background(), p, &Options{Deadline: time.Now().Add(40 * time.Second)})
			require.NoError(t, err)
			require.True(t, s.Solved, "not solved: %+v", s.Stats)
			require.NoError(t, Check(p, s))
			assert.LessOrEqual(t, s.Peak, int64(challengingCap))
			// Node counts are deterministic: a guard against regressions in
			// the search that does not depend on the machine's speed.
			assert.Less(t, s.Stats.Nodes, int64(100000))
			t.Logf("%d buffers, peak %d, max-live %d, %v, %+v", len(p.Buffers), s.Peak, MaxLive(p), s.Stats.Time, s.Stats)
		})
	}
}

// TestChallengingMirrored runs the instances backwards in time: the same
// packing problems, but every tie in the search breaks the other way. A
// guard against a solver tuned to the instances as given.
func TestChallengingMirrored(t *testing.T) {
	for _, f := range challenging(t) {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".1048576.csv"), func(t *testing.T) {
			p := loadCSV(t, f)
			m := &Problem{Capacity: challengingCap}
			for _, b := range p.Buffers {
				m.Buffers = append(m.Buffers, Buffer{ID: b.ID, Lower: 1<<21 - b.Upper, Upper: 1<<21 - b.Lower, Size: b.Size})
			}
			s, err := Solve(context.Background(), m, &Options{Deadline: time.Now().Add(40 * time.Second)})
			require.NoError(t, err)
			require.True(t, s.Solved, "not solved: %+v", s.Stats)
			require.NoError(t, Check(m, s))
			assert.Less(t, s.Stats.Nodes, int64(1000000))
			t.Logf("%v, %+v", s.Stats.Time, s.Stats)
		})
	}
}

func BenchmarkChallenging(b *testing.B) {
	for _, f := range challenging(b) {
		p := loadCSV(b, f)
		p.Capacity = challengingCap
		b.Run(strings.TrimSuffix(filepath.Base(f), ".1048576.csv"), func(b *testing.B) {
			var nodes int64
			for i := 0; i < b.N; i++ {
				s, err := Solve(context.Background(), p, nil)
				if err != nil || !s.Solved {
					b.Fatalf("not solved: %v", err)
				}
				nodes += s.Stats.Nodes
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
		})
	}
}

// TestMinimizeC: instance C's optimum equals its max-live bound (1039360),
// below the capacity MiniMalloc packs it in; Minimize finds and proves it.
func TestMinimizeC(t *testing.T) {
	p := loadCSV(t, "../testdata/minimalloc/C.1048576.csv")
	s, err := Solve(context.Background(), p, &Options{Minimize: true, Deadline: time.Now().Add(30 * time.Second)})
	require.NoError(t, err)
	require.True(t, s.Solved)
	require.NoError(t, Check(p, s))
	assert.Equal(t, int64(1039360), s.Peak)
	assert.True(t, s.Optimal)
}

func TestInput12(t *testing.T) {
	p := loadCSV(t, "../testdata/minimalloc/input.12.csv")
	require.Len(t, p.Buffers, 5)
	assert.Equal(t, int64(12), MaxLive(p))
	p.Capacity = 12
	s, err := Solve(context.Background(), p, nil)
	require.NoError(t, err)
	require.True(t, s.Solved)
	require.NoError(t, Check(p, s))
	assert.Equal(t, int64(12), s.Peak)
	assert.True(t, s.Optimal)
}

// tflite is the 8-tensor example of the TFLite memory-planning paper, given
// as (first, last, size) with inclusive last steps.
func tflite() *Problem {
	rows := [][3]int64{{0, 1, 32}, {1, 4, 28}, {2, 5, 36}, {3, 5, 16}, {4, 5, 8}, {5, 7, 64}, {6, 8, 10}, {7, 8, 40}}
	p := &Problem{}
	for i, r := range rows {
		p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprintf("t%d", i), Lower: r[0], Upper: r[1] + 1, Size: r[2]})
	}
	return p
}

func TestTFLiteExample(t *testing.T) {
	p := tflite()
	assert.Equal(t, int64(124), MaxLive(p))
	s, err := Solve(context.Background(), p, &Options{Minimize: true})
	require.NoError(t, err)
	require.True(t, s.Solved)
	require.NoError(t, Check(p, s))
	assert.Equal(t, int64(124), s.Peak)
	assert.True(t, s.Optimal)

	// At capacity 124 without Minimize, and infeasible one below.
	p.Capacity = 124
	s, err = Solve(context.Background(), p, nil)
	require.NoError(t, err)
	require.True(t, s.Solved)
	require.NoError(t, Check(p, s))
	p.Capacity = 123
	s, err = Solve(context.Background(), p, nil)
	require.NoError(t, err)
	assert.False(t, s.Solved)
}

// bruteForce returns the least peak over all canonical packings: every
// order of the buffers, each stacked (aligned) on top of the highest
// conflicting buffer placed before it. Some order gives an optimal packing.
func bruteForce(p *Problem) int64 {
	n := len(p.Buffers)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	offs := make([]int64, n)
	best := int64(-1)
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			peak := peakOf(p, offs)
			if best < 0 || peak < best {
				best = peak
			}
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			b := p.Buffers[perm[k]]
			var o int64
			for j := 0; j < k; j++ {
				c := p.Buffers[perm[j]]
				if b.Lower < c.Upper && c.Lower < b.Upper {
					o = max(o, offs[perm[j]]+c.Size)
				}
			}
			offs[perm[k]] = roundUp(o, max(b.Align, 1))
			rec(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0)
	return best
}

func randomProblem(r *rand.Rand, n int, align bool) *Problem {
	p := &Problem{}
	span := int64(8)
	if r.IntN(2) == 0 {
		span = 4 // crowded: optimum often above max-live
	}
	for i := 0; i < n; i++ {
		lo := r.Int64N(span)
		b := Buffer{ID: fmt.Sprint(i), Lower: lo, Upper: lo + 1 + r.Int64N(5), Size: 1 + r.Int64N(9)}
		if r.IntN(4) == 0 {
			b.Size = []int64{2, 3, 4}[r.IntN(3)] // repeats: symmetry classes
			b.Lower, b.Upper = 2, 5
		}
		if align && r.IntN(3) == 0 {
			b.Align = []int64{2, 4}[r.IntN(2)]
		}
		p.Buffers = append(p.Buffers, b)
	}
	return p
}

// TestRandomAgainstBruteForce checks optimality and completeness on tiny
// problems: Minimize finds the brute-force optimum and proves it; at that
// capacity Solve fits, one below it proves that nothing fits.
func TestRandomAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	refuted := 0
	for iter := 0; iter < 3000; iter++ {
		p := randomProblem(r, 1+r.IntN(7), iter%2 == 1)
		opt := bruteForce(p)
		s, err := Solve(context.Background(), p, &Options{Minimize: true})
		require.NoError(t, err)
		require.True(t, s.Solved)
		require.NoError(t, Check(p, s), "iter %d", iter)
		require.GreaterOrEqual(t, s.Peak, MaxLive(p))
		require.Equal(t, opt, s.Peak, "iter %d: %+v", iter, p.Buffers)
		require.True(t, s.Optimal)

		q := *p
		q.Capacity = opt
		s, err = Solve(context.Background(), &q, nil)
		require.NoError(t, err)
		require.True(t, s.Solved, "iter %d", iter)
		require.NoError(t, Check(&q, s))
		q.Capacity = opt - 1
		s, err = Solve(context.Background(), &q, nil)
		require.NoError(t, err)
		require.False(t, s.Solved, "iter %d", iter)

		// The branch-and-bound alone, without the greedy in front.
		in := newInst(p, func() bool { return false })
		var st Stats
		offs, res := exact(in, opt, uint64(iter), nil, &st, math.MaxInt64)
		require.Equal(t, exactFound, res, "iter %d", iter)
		q.Capacity = opt
		require.NoError(t, Check(&q, &Solution{Offsets: offs, Peak: peakOf(p, offs)}))
		if opt-1 >= in.maxLive {
			_, res = exact(in, opt-1, uint64(iter), nil, &st, math.MaxInt64)
			require.Equal(t, exactInfeasible, res, "iter %d: %+v", iter, p.Buffers)
			refuted++
		}
	}
	t.Logf("%d refutations above max-live", refuted)
}

// TestRandomProperties: larger random problems, any capacity; every solved
// packing checks, Minimize never goes below max-live.
func TestRandomProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 80; iter++ {
		n := 5 + r.IntN(40)
		p := &Problem{}
		for i := 0; i < n; i++ {
			lo := r.Int64N(30)
			p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprint(i), Lower: lo, Upper: lo + 1 + r.Int64N(10),
				Size: 1 + r.Int64N(50), Align: []int64{0, 0, 1, 2, 8}[r.IntN(5)]})
		}
		ml := MaxLive(p)
		p.Capacity = ml + r.Int64N(ml/4+1)
		// Proving a peak optimal can take long on such random problems
		// (unit granularity); the deadline returns the best found.
		s, err := Solve(context.Background(), p, &Options{Deadline: time.Now().Add(100 * time.Millisecond)})
		require.NoError(t, err)
		if s.Solved {
			require.NoError(t, Check(p, s), "iter %d", iter)
		}
		m, err := Solve(context.Background(), p, &Options{Minimize: true, Deadline: time.Now().Add(100 * time.Millisecond)})
		require.NoError(t, err)
		require.GreaterOrEqual(t, m.Peak, ml)
		if m.Solved {
			require.NoError(t, Check(p, m))
			if s.Solved {
				require.LessOrEqual(t, m.Peak, p.Capacity)
			}
		}
	}
}

func TestDeterminism(t *testing.T) {
	for _, name := range []string{"C", "E", "G", "K"} {
		p := loadCSV(t, "../testdata/minimalloc/"+name+".1048576.csv")
		p.Capacity = challengingCap
		a, err := Solve(context.Background(), p, &Options{Seed: 7})
		require.NoError(t, err)
		b, err := Solve(context.Background(), p, &Options{Seed: 7})
		require.NoError(t, err)
		require.True(t, a.Solved)
		assert.Equal(t, a.Offsets, b.Offsets, name)
		assert.Equal(t, a.Stats.Nodes, b.Stats.Nodes, name)
	}
}

func TestCancel(t *testing.T) {
	p := loadCSV(t, "../testdata/minimalloc/E.1048576.csv")
	p.Capacity = 1040000 // below max-live (1048576): infeasible at once
	s, err := Solve(context.Background(), p, nil)
	require.NoError(t, err)
	assert.False(t, s.Solved)
	assert.Len(t, s.Offsets, len(p.Buffers)) // the best (greedy) packing, over capacity

	// A hard question (minimize D, whose optimum is unknown) stopped by a
	// cancelled context and by a deadline: both return the best found.
	p = loadCSV(t, "../testdata/minimalloc/D.1048576.csv")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	s, err = Solve(ctx, p, &Options{Minimize: true}) // returns (else the test times out)
	require.NoError(t, err)
	require.True(t, s.Solved)
	require.NoError(t, Check(p, s))
	s, err = Solve(context.Background(), p, &Options{Minimize: true, Deadline: time.Now().Add(200 * time.Millisecond)})
	require.NoError(t, err)
	require.True(t, s.Solved)
	assert.GreaterOrEqual(t, s.Peak, MaxLive(p))
}

func TestInvalid(t *testing.T) {
	for _, c := range []struct {
		b    Buffer
		want string
	}{
		{Buffer{ID: "x", Lower: 3, Upper: 3, Size: 1}, `pack: buffer 0 ("x"): lower 3 >= upper 3`},
		{Buffer{ID: "x", Lower: 0, Upper: 3, Size: 0}, `pack: buffer 0 ("x"): size 0 is not positive`},
		{Buffer{ID: "x", Lower: -1, Upper: 3, Size: 1}, `pack: buffer 0 ("x"): lower -1 is negative`},
		{Buffer{ID: "x", Lower: 0, Upper: 3, Size: 1, Align: -2}, `pack: buffer 0 ("x"): align -2 is negative`},
	} {
		_, err := Solve(context.Background(), &Problem{Buffers: []Buffer{c.b}, Capacity: 10}, nil)
		assert.EqualError(t, err, c.want)
	}
	_, err := Solve(context.Background(), &Problem{Capacity: -1}, nil)
	assert.EqualError(t, err, "pack: capacity -1 is negative")
	s, err := Solve(context.Background(), &Problem{}, nil)
	require.NoError(t, err)
	assert.True(t, s.Solved && s.Optimal)
}

func TestCheckCatchesErrors(t *testing.T) {
	p := &Problem{Capacity: 10, Buffers: []Buffer{
		{ID: "a", Lower: 0, Upper: 2, Size: 4},
		{ID: "b", Lower: 1, Upper: 3, Size: 4, Align: 4},
		{ID: "c", Lower: 2, Upper: 4, Size: 4},
	}}
	ok := &Solution{Offsets: []int64{0, 4, 0}, Peak: 8}
	assert.NoError(t, Check(p, ok)) // a and c touch at t=2: no conflict
	assert.EqualError(t, Check(p, &Solution{Offsets: []int64{0, 2, 0}, Peak: 6}),
		`check: buffer "b": offset 2 is not a multiple of align 4`)
	assert.EqualError(t, Check(p, &Solution{Offsets: []int64{0, 0, 4}, Peak: 8}),
		`check: buffers "b" [1,3)@0 and "a" [0,2)@0 overlap in time and memory`)
	assert.EqualError(t, Check(p, &Solution{Offsets: []int64{0, 8, 0}, Peak: 12}),
		`check: buffer "b": [8,12) exceeds capacity 10`)
	assert.EqualError(t, Check(p, &Solution{Offsets: []int64{0, 4, 0}, Peak: 9}),
		`check: peak is 8, solution says 9`)
	assert.EqualError(t, Check(p, &Solution{Offsets: []int64{0}}), `check: 1 offsets for 3 buffers`)
}

func TestReadCSVErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `CSV "t.csv": empty: no header id,lower,upper,size`},
		{"1,0,3,4\n", `CSV "t.csv": line 1: missing header: want id,lower,upper,size, got "1,0,3,4"`},
		{"id,lower,size\nb,0,4\n", `CSV "t.csv": line 1: header lacks column upper (want id,lower,upper,size)`},
		{"name,lower,upper,bytes\nb,0,4,1\n", `CSV "t.csv": line 1: header lacks column id, size (want id,lower,upper,size)`},
		{"id,lower,upper,size\nb1,0,x,4\n", `CSV "t.csv": line 2: upper "x" is not an integer`},
		{"id,lower,upper,size\nb1,0,3,4\nb2,3,3,4\n", `CSV "t.csv": line 3: lower 3 >= upper 3`},
		{"id,lower,upper,size\nb1,5,3,4\n", `CSV "t.csv": line 2: lower 5 >= upper 3`},
		{"id,lower,upper,size\nb1,0,3,0\n", `CSV "t.csv": line 2: size 0 is not positive`},
		{"id,lower,upper,size\nb1,-1,3,2\n", `CSV "t.csv": line 2: lower -1 is negative`},
		{"id,lower,upper,size\nb1,0,3\n", `CSV "t.csv": line 2: has 3 fields, header has 4`},
		{"id,lower,upper,size\nb1,0,3,1\nb1,0,3,1\n", `CSV "t.csv": line 3: id "b1" already used on line 2`},
	} {
		_, err := ReadCSV("t.csv", strings.NewReader(c.in))
		require.Error(t, err, c.in)
		assert.EqualError(t, err, c.want)
		assert.True(t, inputerr.Is(err))
	}
}

func TestCSVRoundTrip(t *testing.T) {
	in := "id,lower,upper,size,offset\nb1,0,3,4,8\nb2,3,9,4,8\nb3,0,9,4,4\n"
	p, err := ReadCSV("x.csv", strings.NewReader(in)) // offset column ignored
	require.NoError(t, err)
	require.Equal(t, []Buffer{{ID: "b1", Lower: 0, Upper: 3, Size: 4}, {ID: "b2", Lower: 3, Upper: 9, Size: 4},
		{ID: "b3", Lower: 0, Upper: 9, Size: 4}}, p.Buffers)
	var sb strings.Builder
	require.NoError(t, WriteCSV(&sb, p, &Solution{Offsets: []int64{8, 8, 4}, Peak: 12}))
	assert.Equal(t, in, sb.String())
	// Column order is free; alignment is optional.
	p2, err := ReadCSV("y.csv", strings.NewReader("size,upper,lower,id,alignment\n4,3,0,b1,8\n4,3,0,b2,\n"))
	require.NoError(t, err)
	assert.Equal(t, []Buffer{{ID: "b1", Lower: 0, Upper: 3, Size: 4, Align: 8}, {ID: "b2", Lower: 0, Upper: 3, Size: 4}}, p2.Buffers)
	_, err = ReadCSV("z.csv", strings.NewReader("id,lower,upper,size,align\nb,0,3,4,-8\n"))
	assert.EqualError(t, err, `CSV "z.csv": line 2: alignment "-8" is not a non-negative integer`)
}

// plannerShaped returns a problem shaped like hieropt's single-level
// planning: a few hundred buffers over ~200 timesteps, the capacity a
// quarter above max-live.
func plannerShaped(r *rand.Rand) *Problem {
	n := 100 + r.IntN(400)
	p := &Problem{}
	for i := 0; i < n; i++ {
		first := r.Int64N(200)
		last := min(first+r.Int64N(20), 199)
		p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprint(i), Lower: first, Upper: last + 1,
			Size: 64 * (1 + r.Int64N(1024)), Align: 64})
	}
	p.Capacity = MaxLive(p) * 5 / 4
	return p
}

// TestPlannerShaped: planner-shaped problems are solved (by the greedy
// when the capacity allows it) within a deadline. How fast is
// BenchmarkPlannerShaped's question (milliseconds each).
func TestPlannerShaped(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 20; iter++ {
		p := plannerShaped(r)
		s, err := Solve(context.Background(), p, &Options{Deadline: time.Now().Add(5 * time.Second)})
		require.NoError(t, err)
		require.True(t, s.Solved)
		require.NoError(t, Check(p, s))
	}
}

func BenchmarkPlannerShaped(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	ps := make([]*Problem, 20)
	for i := range ps {
		ps[i] = plannerShaped(r)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := ps[i%len(ps)]
		s, err := Solve(context.Background(), p, nil)
		if err != nil || !s.Solved {
			b.Fatalf("problem %d: solved %v, %v", i%len(ps), s != nil && s.Solved, err)
		}
	}
}

// TestNodeLimitDeterministic: a node limit stops the search like a
// deadline, but at the same node on any machine, so the answer is the
// same every time. Minimizing D (whose optimum is unknown) needs far more
// than the limit; the best packing found within it is returned.
func TestNodeLimitDeterministic(t *testing.T) {
	p := loadCSV(t, "../testdata/minimalloc/D.1048576.csv")
	const limit = 3000
	var first *Solution
	for i := 0; i < 3; i++ {
		s, err := Solve(context.Background(), p, &Options{Minimize: true, NodeLimit: limit, Seed: 3})
		require.NoError(t, err)
		require.True(t, s.Solved)
		require.NoError(t, Check(p, s))
		assert.LessOrEqual(t, s.Stats.Nodes, int64(limit))
		assert.True(t, s.Stats.Limited)
		assert.False(t, s.Optimal)
		assert.GreaterOrEqual(t, s.Peak, MaxLive(p))
		if first == nil {
			first = s
			continue
		}
		assert.Equal(t, first.Offsets, s.Offsets, "run %d", i)
		assert.Equal(t, first.Peak, s.Peak)
		assert.Equal(t, first.Stats.Nodes, s.Stats.Nodes)
		assert.Equal(t, first.Stats.Probes, s.Stats.Probes)
	}

	// At a fixed capacity: E packs in more nodes than 200 allow; the
	// limit stops the search, Solved is false and the greedy's packing
	// (over the capacity) is returned, the same every time.
	e := loadCSV(t, "../testdata/minimalloc/E.1048576.csv")
	e.Capacity = challengingCap
	a, err := Solve(context.Background(), e, &Options{NodeLimit: 200})
	require.NoError(t, err)
	b, err := Solve(context.Background(), e, &Options{NodeLimit: 200})
	require.NoError(t, err)
	assert.False(t, a.Solved)
	assert.True(t, a.Stats.Limited)
	assert.LessOrEqual(t, a.Stats.Nodes, int64(200))
	assert.Equal(t, a.Offsets, b.Offsets)
	assert.Equal(t, a.Stats.Nodes, b.Stats.Nodes)
	// Without a limit it packs; a limit it does not reach changes nothing.
	c, err := Solve(context.Background(), e, nil)
	require.NoError(t, err)
	require.True(t, c.Solved)
	d, err := Solve(context.Background(), e, &Options{NodeLimit: 2 * c.Stats.Nodes})
	require.NoError(t, err)
	require.True(t, d.Solved)
	assert.False(t, d.Stats.Limited)
	assert.Equal(t, c.Offsets, d.Offsets)

	_, err = Solve(context.Background(), e, &Options{NodeLimit: -1})
	assert.EqualError(t, err, "pack: node limit -1 is negative")
}
