package pack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func never() bool { return false }

// compilerTrace is a problem shaped like an ML compiler's buffer trace
// (idealloc's Y_1): many short-lived buffers, some living long, sizes
// over four orders of magnitude. Its greedy packings miss max-live, so
// every phase of Solve runs on it.
func compilerTrace(seed uint64, n int) *Problem {
	r := rand.New(rand.NewPCG(seed, 99))
	p := &Problem{}
	for i := 0; i < n; i++ {
		lo := r.Int64N(int64(n) / 2)
		life := 1 + r.Int64N(4)
		if r.IntN(10) == 0 {
			life = 1 + r.Int64N(int64(n)/8)
		}
		size := int64(1) << r.IntN(14)
		size += r.Int64N(size)
		p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprint(i), Lower: lo, Upper: lo + life, Size: size})
	}
	return p
}

// TestStartOrderPackIsGreedyByStart: the first phase's pass, computed
// without the index, gives the portfolio's start-order packings exactly
// (Solve uses it in their place), with both fit rules and alignments.
func TestStartOrderPackIsGreedyByStart(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 400; iter++ {
		p := randomProblem(r, 1+r.IntN(60), iter%2 == 1)
		if iter%5 == 0 {
			p = compilerTrace(uint64(iter), 300)
		}
		in := newInst(p, never)
		order := greedyOrdering(in, byStart)
		for _, bf := range []bool{true, false} {
			want, wantPeak, ok := greedyPack(in, order, bf, never)
			require.True(t, ok)
			got, peak, ok := startOrderPack(p, bf, never)
			require.True(t, ok)
			require.Equal(t, want, got, "iter %d best fit %v", iter, bf)
			require.Equal(t, wantPeak, peak)
		}
	}
}

// TestDeadlinePassedGivesFirstPacking: a deadline already past, or a
// context already done, still gets a valid packing, and only the first
// pass runs (before, the greedy portfolio and the index ignored the
// deadline and ran in full: 21 s on 30,000 buffers).
func TestDeadlinePassedGivesFirstPacking(t *testing.T) {
	p := compilerTrace(1, 5000)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for name, c := range map[string]struct {
		ctx context.Context
		o   *Options
	}{
		"deadline": {context.Background(), &Options{Minimize: true, Deadline: time.Now().Add(-time.Second)}},
		"context":  {done, &Options{Minimize: true}},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Solve(c.ctx, p, c.o)
			require.NoError(t, err)
			require.True(t, s.Solved)
			require.NoError(t, Check(p, s))
			assert.Equal(t, 1, s.Stats.Greedy, "only the first pass")
			assert.Zero(t, s.Stats.Nodes)
			assert.Equal(t, PhaseFirst, s.Stats.Cut)
			assert.GreaterOrEqual(t, s.Peak, MaxLive(p))
		})
	}
}

// TestDeadlineInEachPhase cuts Solve in each of its phases, after some of
// the phase's work (the hook stands for the deadline and fires at its
// k-th check there, so the test does not depend on the clock), with and
// without Minimize. Each time Solve returns a valid packing, names the
// phase it was cut in, and runs no phase after it.
func TestDeadlineInEachPhase(t *testing.T) {
	trace := compilerTrace(2, 3000)
	// A twice, one copy after the other in time: no greedy packing fits
	// the capacity, so the search runs; 308 buffers, so the first pass
	// asks for the deadline.
	a := loadCSV(t, "../testdata/minimalloc/A.1048576.csv")
	tight := &Problem{Capacity: challengingCap}
	var end int64
	for _, b := range a.Buffers {
		end = max(end, b.Upper)
	}
	for k := int64(0); k < 2; k++ {
		for _, b := range a.Buffers {
			b.ID += fmt.Sprint("/", k)
			b.Lower, b.Upper = b.Lower+k*end, b.Upper+k*end
			tight.Buffers = append(tight.Buffers, b)
		}
	}
	for _, c := range []struct {
		p        *Problem
		minimize bool
		phase    Phase
		k        int
	}{
		{trace, true, PhaseFirst, 3},
		{trace, true, PhaseIndex, 1},
		{trace, true, PhaseGreedy, 5},
		{trace, true, PhaseSearch, 2},
		{tight, false, PhaseFirst, 1},
		{tight, false, PhaseIndex, 1},
		{tight, false, PhaseGreedy, 3},
		{tight, false, PhaseSearch, 1},
	} {
		t.Run(fmt.Sprintf("%s/minimize=%v", c.phase, c.minimize), func(t *testing.T) {
			calls := 0
			o := &Options{Minimize: c.minimize, stopHook: func(ph Phase) bool {
				if ph == c.phase {
					calls++
				}
				return calls >= c.k
			}}
			s, err := Solve(context.Background(), c.p, o)
			require.NoError(t, err)
			require.Equal(t, c.phase, s.Stats.Cut, "%+v", s.Stats)
			require.Equal(t, c.k, calls, "cut at the hook's k-th check")
			// A valid packing whatever the capacity; within it when Solved.
			require.NoError(t, Check(&Problem{Buffers: c.p.Buffers}, s))
			if s.Solved {
				require.NoError(t, Check(c.p, s))
			}
			assert.Equal(t, c.minimize, s.Solved, "minimizing: any packing will do; at A's capacity only the search finds one")
			ph := s.Stats.Phases
			after := map[Phase]time.Duration{PhaseIndex: ph.Index, PhaseGreedy: ph.Greedy, PhaseSearch: ph.Search}
			for later, d := range after {
				if later > c.phase {
					assert.Zero(t, d, "%s ran after the cut", later)
				}
			}
			assert.Equal(t, ph.First+ph.Index+ph.Greedy+ph.Search, s.Stats.Time)
		})
	}
}

// TestIndexHasNoConflictLists: the index keeps no list of conflicting
// pairs. 4000 buffers alive over the same ten time units conflict in 16
// million pairs; the index of them takes a few hundred kilobytes (the
// lists took 64 MB and more, and their sorting most of the time on large
// traces).
func TestIndexHasNoConflictLists(t *testing.T) {
	p := &Problem{}
	for i := 0; i < 4000; i++ {
		lo := int64(i % 10)
		p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprint(i), Lower: lo, Upper: lo + 10, Size: int64(1 + i%7)})
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	in := newInst(p, never)
	runtime.ReadMemStats(&after)
	require.NotNil(t, in)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20))
	assert.Equal(t, int64(4000*3999), in.edges)
	// Each conflict is seen once by confParts.
	require.True(t, in.ensureCover(never))
	for _, b := range []int32{0, 1, 1234, 3999} {
		early, late := in.confParts(b)
		n := 0
		for _, c := range early {
			if in.lo[c] < in.lo[b] {
				n++
			}
		}
		for _, c := range late {
			if c != b {
				n++
			}
		}
		assert.Equal(t, 3999, n)
		assert.Equal(t, int32(3999), in.deg[b])
	}
}

// TestDeadlineInsideANode: where thousands of buffers are alive in every
// section, one placement lifts thousands of bounds over thousands of
// sections, and a node can take seconds (a 9,000-buffer instance ran 7 s
// past a 20 s limit): the search asks for the deadline inside a node too,
// every so much work, and a stop there unwinds at once (the trail is not
// undone: the state is dropped).
func TestDeadlineInsideANode(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	p := &Problem{}
	for i := 0; i < 2000; i++ {
		lo := rng.Int64N(3000)
		p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprint(i), Lower: lo, Upper: lo + 2000 + rng.Int64N(1300), Size: 1 + rng.Int64N(999)})
	}
	calls := 0
	o := &Options{Minimize: true, stopHook: func(ph Phase) bool {
		if ph == PhaseSearch {
			calls++
		}
		return calls >= 40
	}}
	s, err := Solve(context.Background(), p, o)
	require.NoError(t, err)
	require.Equal(t, PhaseSearch, s.Stats.Cut)
	require.Equal(t, 40, calls)
	assert.Less(t, s.Stats.Nodes, int64(40), "asked more often than once a node")
	require.NoError(t, Check(&Problem{Buffers: p.Buffers}, s))
}
