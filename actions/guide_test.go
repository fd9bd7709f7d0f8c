package actions_test

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// twoLevels is a small fast level over a large slow one.
func twoLevels() *hw.Profile {
	return testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 256, Align: 16, Latency: 1, Bandwidth: 8},
		testprog.Level{Name: "SLOW", Capacity: 4096, Align: 16, Latency: 10, Bandwidth: 1})
}

// A guided initializer keeps the room a later block is guided to: the
// weight made at 0 goes to SLOW, where the seed's rule puts it in FAST and
// the activation made at 1, which the guide sends to FAST, would not fit
// there.
func TestGuideKeepsRoomForLaterBlocks(t *testing.T) {
	prog := testprog.New("p", 4).
		Block("w", 200, "constant", 0, 3, testprog.Reads(3)).
		Block("x", 200, "activation", 1, 2, testprog.Writes(1), testprog.Reads(2)).
		Program()
	p := testprog.Bind(prog, twoLevels())

	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializerOrder(p, actions.BoundOrder).Run(lay, 0) // no guide: the kind order
	require.NoError(t, err)
	assert.Equal(t, int32(0), offset(t, p, lay, "w").Level, "unguided: the fastest level first")
	assert.Equal(t, int32(1), offset(t, p, lay, "x").Level)

	in := actions.NewInitializerOrder(p, actions.BoundOrder)
	in.SetGuide([]int8{1, 0})
	lay = state.NewLayout(p.Blocks())
	_, err = in.Run(lay, 0)
	require.NoError(t, err)
	assert.Equal(t, int32(1), offset(t, p, lay, "w").Level, "FAST's room at 1-2 is x's")
	assert.Equal(t, int32(0), offset(t, p, lay, "x").Level)
}

// Where the guide has room to spare, a block guided to a slow level still
// goes to a faster one; where the guided blocks take more room than a
// level has, every block is still placed, by the guide's order where it
// fits.
func TestGuideUsesSpareRoomAndOversubscription(t *testing.T) {
	prog := testprog.New("p", 4).
		Block("a", 32, "activation", 0, 1, testprog.Writes(0), testprog.Reads(1)).
		Block("b", 200, "activation", 0, 3, testprog.Writes(0), testprog.Reads(3)).
		Block("c", 200, "activation", 2, 3, testprog.Writes(2), testprog.Reads(3)).
		Program()
	p := testprog.Bind(prog, twoLevels())
	in := actions.NewInitializerOrder(p, actions.BoundOrder)
	in.SetGuide([]int8{1, 0, 0}) // b and c cannot both be in FAST at 2-3
	lay := state.NewLayout(p.Blocks())
	_, err := in.Run(lay, 0)
	require.NoError(t, err)
	require.NoError(t, lay.CheckComplete(p))
	assert.Equal(t, int32(0), offset(t, p, lay, "a").Level, "FAST has room for it at 0-1 besides the guided blocks")
	assert.Equal(t, int32(1), offset(t, p, lay, "b").Level, "its life meets the oversubscribed timesteps: SLOW passes the test")
	assert.Equal(t, int32(0), offset(t, p, lay, "c").Level)
}

// With a guide, re-planning from any timestep gives the plan of a run from
// the start (the search's re-planning relies on it): the walk's load, made
// from the layout at the timestep before, is the load the full run had
// there. Random guides on every shipped workload that fits the seed-model
// Ethos-U55 copy.
func TestGuidedRunFromAnyTimestep(t *testing.T) {
	prof, err := hw.ReadFile(filepath.Join("..", "testdata", "hw", "seed003", "ethos-u55.yaml"))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join("..", "workloads", "*.json"))
	require.NoError(t, err)
	tried, changed := 0, 0
	for i, f := range files {
		prog, err := workload.ReadFile(f)
		require.NoError(t, err)
		p, err := state.Bind(prog, prof, f)
		if err != nil {
			continue // larger than the device
		}
		rng := rand.New(rand.NewPCG(7, uint64(i)))
		guide := make([]int8, p.Blocks())
		for b := range guide {
			guide[b] = int8(rng.IntN(p.Levels()))
		}
		newIn := func() *actions.Initializer {
			in := actions.NewInitializerOrder(p, actions.BoundOrder)
			in.SetGuide(guide)
			return in
		}
		full := state.NewLayout(p.Blocks())
		if _, err := newIn().Run(full, 0); err != nil {
			continue
		}
		tried++
		t.Run(prog.Name, func(t *testing.T) {
			unguided := state.NewLayout(p.Blocks())
			_, err := actions.NewInitializerOrder(p, actions.KindOrder).Run(unguided, 0)
			require.NoError(t, err)
			if !full.Equal(unguided) {
				changed++
			}
			for from := 1; from < prog.Timesteps(); from++ {
				again := full.Clone()
				occ, err := newIn().Run(again, from)
				require.NoError(t, err)
				require.True(t, full.Equal(again), "from %d", from)
				require.NoError(t, occ.Check())
			}
		})
	}
	require.Positive(t, tried)
	require.Positive(t, changed, "the guides changed no plan: nothing was tested")
}
