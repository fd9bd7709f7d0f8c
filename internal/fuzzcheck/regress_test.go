package fuzzcheck_test

import (
	"testing"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/workload"
)

// TestRegressions holds the smallest problems the fuzzers and property
// tests found wrong, each checked by checkPlanners.
func TestRegressions(t *testing.T) {
	tests := []struct {
		name string
		prog *workload.Program
		prof *hw.Profile
	}{
		{
			// A block placed against the top of a level of math.MaxInt64
			// bytes, then a larger block created over its space in place:
			// offset + footprint overflows int64, so ReuseFits says it
			// fits and Occupancy.Reuse panics ("span [...,-...) outside
			// level"). hieropt optimize exited 3 on it. Such a level is
			// now an input error (hw.MaxCapacity, FORMATS.md section 2):
			// the case places the blocks at the top of the largest level
			// a profile may have.
			name: "reuse-at-the-top-of-a-maxint64-level",
			prog: testprog.New("p", 2).
				Block("x", 64, "input", 0, 1).
				Block("a", 64, "activation", 0, 1, testprog.Reusable()).
				Block("b", 128, "output", 1, 1).
				Program(),
			prof: testprog.Profile("huge", testprog.Level{Name: "M", Capacity: hw.MaxCapacity, Align: 1, Latency: 1, Bandwidth: 1}),
		},
		{
			// A scratch block and the activation that takes its space in
			// place, both pinned to the only level, which holds one of
			// them: a plan exists (the initializer finds it; unpinned,
			// optimize plans it), but CheckCapacity sums the pinned
			// footprints without reuse (now fixed), and the library and optimize said
			// "cannot fit" (exit 1).
			name: "pinned-reuse-capacity",
			prog: testprog.New("p", 2).
				Block("s", 256, "scratch", 0, 0, testprog.Reusable(), testprog.Pin("M")).
				Block("x", 256, "activation", 0, 1, testprog.Pin("M")).
				Program(),
			prof: testprog.Profile("one", testprog.Level{Name: "M", Capacity: 256, Align: 1, Latency: 1, Bandwidth: 1}),
		},
		{
			// Timesteps 0-6; auto segments end at 2, 4 and 6. With the
			// seed's settings and a beam of 1 (or 2), a state that moves x
			// is cheaper than the committed one by less than the commit
			// margin (1e-12 relative, here 0.1 of a cost of 1.4e14): it
			// pushes the committed state out of the beam, the segment's
			// end keeps the committed state anyway, and its occupancy,
			// not advanced since it left the beam, still holds x at
			// timestep 5: Replay panics ("span [0,1) of block 1 overlaps a
			// busy span"). Float rounding in incremental costs can make
			// such near-ties with ordinary sizes too.
			name: "stale-committed-occupancy",
			prog: testprog.New("p", 7).
				Block("x", 1, "activation", 3, 3, testprog.Reads()).
				Block("y", 1, "activation", 5, 5, testprog.Writes(), testprog.Reads()).
				Block("s", 1<<47, "scratch", 5, 5, testprog.Writes(), testprog.Reads(5)).
				Program(),
			prof: profile2(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkPlanners(t, tt.prog, tt.prof, searchSettings())
		})
	}
}

// profile2 is the two levels of the stale-commit case: a small fast level
// with slow reads and a huge one.
func profile2() *hw.Profile {
	prof := &hw.Profile{Name: "h", TimeUnit: hw.NS, Levels: []hw.Level{
		{Name: "L1", Capacity: 128, Alignment: 1, In: hw.Link{Latency: 100.5, Bandwidth: 64}, Out: hw.Link{Latency: 2, Bandwidth: 0.5}},
		{Name: "L2", Capacity: hw.MaxCapacity, Alignment: 2, In: hw.Link{Latency: 5, Bandwidth: 64}, Out: hw.Link{Latency: 10, Bandwidth: 1}},
	}}
	if err := prof.Validate("test"); err != nil {
		panic(err)
	}
	return prof
}
