package baseline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/baseline"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/workload"
)

// TestCache walks a tiny program through the LRU cache. FAST holds 100 B
// (in/out 1 + d/10), SLOW (in/out 10 + d):
//
//	t0: write a (60 B): allocated, in(FAST) = 1 + 6 = 7
//	t1: write b (60 B): a (dirty) is evicted: out(FAST) + in(SLOW) = 7 + 70;
//	    b written: 7
//	t2: read a: miss: out(SLOW) 70 + fill in(FAST) 7; b (dirty) evicted: 77
//	t3: read a: hit: out(FAST) 7
//
// total 7 + 77 + 7 + 77 + 77 + 7 = 252.
func TestCache(t *testing.T) {
	prog := testprog.New("p", 4).
		Block("a", 60, "activation", 0, 3, testprog.Reads(2, 3)).
		Block("b", 60, "activation", 1, 1, testprog.Reads()).
		Program()
	prof := testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 100, Align: 1, Latency: 1, Bandwidth: 10},
		testprog.Level{Name: "SLOW", Capacity: 1000, Align: 1, Latency: 10, Bandwidth: 1})
	p := testprog.Bind(prog, prof)
	r := baseline.Cache(p)
	assert.Equal(t, 252.0, r.Cost)
	assert.Equal(t, 1, r.Hits)
	assert.Equal(t, 3, r.Misses)
	assert.Equal(t, 2, r.Writebacks)

	lay, err := baseline.NoPlanning(p)
	require.NoError(t, err)
	for _, segs := range lay.Segs {
		assert.Equal(t, int32(1), segs[0].Level)
	}
}

// TestCacheRecency: a hit makes a block the most recent, so the next
// eviction takes the other one. FAST holds 100 B (in/out 1 + d/10 = 5 for
// 40 B), SLOW (in/out 10 + d = 50):
//
//	t0: write a: allocated, 5
//	t1: write b: allocated, 5 (80 B used)
//	t2: read a: hit, 5; a is now more recent than b
//	t3: write c: b (dirty), the least recent, is evicted: 5 + 50; c written: 5
//	t4: read a: hit, 5
//
// total 5 + 5 + 5 + 55 + 5 + 5 = 80, 2 hits. A cache that did not refresh a
// on its hit would evict a at t3 and miss it at t4 (185, 1 hit).
func TestCacheRecency(t *testing.T) {
	prog := testprog.New("p", 5).
		Block("a", 40, "activation", 0, 4, testprog.Reads(2, 4)).
		Block("b", 40, "activation", 1, 1, testprog.Reads()).
		Block("c", 40, "activation", 3, 3, testprog.Reads()).
		Program()
	prof := testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 100, Align: 1, Latency: 1, Bandwidth: 10},
		testprog.Level{Name: "SLOW", Capacity: 1000, Align: 1, Latency: 10, Bandwidth: 1})
	r := baseline.Cache(testprog.Bind(prog, prof))
	assert.Equal(t, 80.0, r.Cost)
	assert.Equal(t, 2, r.Hits)
	assert.Equal(t, 3, r.Misses)
	assert.Equal(t, 1, r.Writebacks)
}

// TestReadOnlyLevel: with a read-only slowest level (FLASH: constants
// only, FORMATS.md rule 7), planning nothing puts the constants there and
// every other block in the slowest writable level (MID), and the cache's
// misses and write-backs of those blocks go to MID. FAST holds 64 B (1 +
// d/4: 17 for 64 B), MID 10 + d (74), FLASH 20 + d/2 (52); w a constant
// read at 0 and 1, a an activation written at 0 and read at 1, 64 B each:
//
//	t0: read w: miss, out(FLASH) + in(FAST) = 52 + 17 = 69
//	    write a: w (clean) evicted; a allocated, in(FAST) 17, dirty
//	t1: read w: miss: a (dirty) written back, out(FAST) + in(MID) = 17 + 74;
//	    w fetched 69
//	    read a: miss: w (clean) evicted; out(MID) + in(FAST) = 74 + 17
//
// total 69 + 17 + 91 + 69 + 91 = 337 (with a in FLASH, as before rule 7:
// 69 + 17 + 69 + 69 + 69 = 293).
func TestReadOnlyLevel(t *testing.T) {
	prog := testprog.New("p", 2).
		Block("w", 64, "constant", 0, 1, testprog.Reads(0, 1)).
		Block("a", 64, "activation", 0, 1, testprog.Writes(0), testprog.Reads(1)).
		Program()
	prof := testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 64, Align: 16, Latency: 1, Bandwidth: 4},
		testprog.Level{Name: "MID", Capacity: 4096, Align: 64, Latency: 10, Bandwidth: 1},
		testprog.Level{Name: "FLASH", Capacity: 1 << 16, Align: 64, Latency: 20, Bandwidth: 2, ReadOnly: true})
	p := testprog.Bind(prog, prof)
	r := baseline.Cache(p)
	assert.Equal(t, 337.0, r.Cost)
	assert.Equal(t, 1, r.Writebacks)
	assert.Equal(t, 4, r.Misses) // w, a (written), w, a

	lay, err := baseline.NoPlanning(p)
	require.NoError(t, err)
	assert.Equal(t, int32(2), lay.Segs[0][0].Level, "w in FLASH")
	assert.Equal(t, int32(1), lay.Segs[1][0].Level, "a in MID")

	// The fastest level read-only (and FLASH writable): the activation
	// bypasses the cache, read from and written to its home FLASH (52);
	// the constant is cached. t0: w miss 69; a written to FLASH 52. t1: w
	// hit 17; a read from FLASH 52. Total 190.
	prof.Levels[0].ReadOnly, prof.Levels[2].ReadOnly = true, false
	r = baseline.Cache(testprog.Bind(prog, prof))
	assert.Equal(t, 190.0, r.Cost)
	assert.Equal(t, 2, r.Bypassed)
	assert.Equal(t, 1, r.Hits)
}

// TestDescribeNoPlanning: the none planner's description says where no
// planning puts the blocks. Over a read-only slowest level (FORMATS.md rule
// 7) only the constants go there and the other blocks to the slowest
// writable level; the plan document says so (it said "every block in
// SLOW" whatever the level).
func TestDescribeNoPlanning(t *testing.T) {
	levels := func(ro bool) *hw.Profile {
		return testprog.Profile("hw",
			testprog.Level{Name: "FAST", Capacity: 1000, Align: 1, Latency: 1, Bandwidth: 10},
			testprog.Level{Name: "MID", Capacity: 1000, Align: 1, Latency: 5, Bandwidth: 4},
			testprog.Level{Name: "SLOW", Capacity: 1000, Align: 1, Latency: 10, Bandwidth: 1, ReadOnly: ro})
	}
	withConst := testprog.New("p", 2).
		Block("w", 60, "constant", 0, 1, testprog.Reads(1)).
		Block("a", 60, "activation", 0, 1, testprog.Reads(1)).
		Program()
	noConst := testprog.New("q", 2).
		Block("a", 60, "activation", 0, 1, testprog.Reads(1)).
		Program()
	for _, tc := range []struct {
		prog *workload.Program
		ro   bool
		want string
	}{
		{withConst, false, "every block in SLOW"},
		{withConst, true, "constants in SLOW, the other blocks in MID (SLOW is read-only)"},
		{noConst, true, "every block in MID (SLOW is read-only)"},
	} {
		p := testprog.Bind(tc.prog, levels(tc.ro))
		assert.Equal(t, tc.want, baseline.DescribeNoPlanning(p))
		r, err := hieropt.Plan(context.Background(), tc.prog, levels(tc.ro), &hieropt.Settings{Planner: "none"})
		require.NoError(t, err)
		assert.Equal(t, "none: "+tc.want, r.Plan.Planner)
		lay, err := baseline.NoPlanning(p)
		require.NoError(t, err)
		for b, segs := range lay.Segs {
			assert.Contains(t, tc.want, p.HW.Levels[segs[0].Level].Name, "block %q", p.Block(b).Name)
		}
	}
}
