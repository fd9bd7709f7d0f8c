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
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// threeLayers is a 3-op program whose op i reads weight wi (a constant
// alive from 0, as traced workloads have them) and an activation: in ->
// a0 -> a1 -> out.
func threeLayers(w0, w1, w2 int64) *workload.Program {
	return testprog.New("three", 3).
		Block("w0", w0, "constant", 0, 0, testprog.Reads(0)).
		Block("w1", w1, "constant", 0, 1, testprog.Reads(1)).
		Block("w2", w2, "constant", 0, 2, testprog.Reads(2)).
		Block("in", 64, "input", 0, 0, testprog.Writes(), testprog.Reads(0)).
		Block("a0", 64, "activation", 0, 1, testprog.Writes(0), testprog.Reads(1)).
		Block("a1", 64, "activation", 1, 2, testprog.Writes(1), testprog.Reads(2)).
		Block("out", 64, "output", 2, 2, testprog.Writes(2), testprog.Reads()).
		Program()
}

// fastFlash is a 1 KiB FAST level over a read-only FLASH, the home of the
// constants, with a compute unit and one DMA channel.
func fastFlash(fast int64) *hw.Profile {
	prof := testprog.Profile("ff",
		testprog.Level{Name: "FAST", Capacity: fast, Align: 16, Latency: 1, Bandwidth: 4},
		testprog.Level{Name: "FLASH", Capacity: 1 << 16, Align: 16, Latency: 20, Bandwidth: 1, ReadOnly: true})
	prof.CostModel = "timeline"
	prof.Compute = &hw.Compute{MACsPerUnit: 1}
	prof.DMA = hw.DMA{Channels: 1}
	return prof
}

// TestPipelineThreeLayers works seed 004's figure 4 by hand on three
// layers. The weights' footprints in FAST are 112, 208 and 160 B; the
// largest two consecutive ops need 208 + 160 = 368 B, so the region is
// [1024-368, 1024) = [656, 1024), and the activations lie below 656.
//
//	op 0: w0 is first read at its first timestep: loaded (start 0, the
//	      op before does not exist) at the region's low end, 656;
//	op 1: w1 copied from FLASH at 1 with start 0 (during op 0) to the
//	      high end, 1024-208 = 816;
//	op 2: w2 copied at 2 with start 1 (during op 1) to the low end again,
//	      656: w0's space, free since op 0 ended.
func TestPipelineThreeLayers(t *testing.T) {
	prog := threeLayers(100, 200, 160)
	p := testprog.BindTimeline(prog, fastFlash(1024))
	res, err := baseline.Pipeline(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, 0, res.Level)
	assert.Equal(t, int64(368), res.Want)
	assert.Equal(t, int64(656), res.Base)
	assert.Equal(t, int64(368), res.Size)
	assert.Equal(t, 2, res.Streamed)
	assert.Equal(t, 1, res.Loaded)
	assert.Equal(t, 0, res.Home)
	lay := res.Layout
	id := func(name string) int {
		b, ok := p.BlockID(name)
		require.True(t, ok)
		return b
	}
	assert.Equal(t, []state.Seg{{From: 0, Level: 0, Offset: 656, Lead: 0}}, lay.Segs[id("w0")])
	require.Len(t, lay.Segs[id("w1")], 2)
	assert.Equal(t, int32(1), lay.Segs[id("w1")][0].Level, "w1 waits in FLASH")
	assert.Equal(t, state.Seg{From: 1, Level: 0, Offset: 816, Lead: 1}, lay.Segs[id("w1")][1])
	require.Len(t, lay.Segs[id("w2")], 2)
	assert.Equal(t, state.Seg{From: 2, Level: 0, Offset: 656, Lead: 1}, lay.Segs[id("w2")][1])
	for _, name := range []string{"in", "a0", "a1", "out"} {
		for _, s := range lay.Segs[id(name)] {
			assert.Equal(t, int32(0), s.Level, name)
			assert.LessOrEqual(t, s.Offset+p.Foot(id(name), 0), int64(656), name)
		}
	}

	// Through hieropt.Plan (which verifies it: rules 1-10 and the timeline
	// cost): the plan document's copies are those of the figure.
	r, err := hieropt.Plan(context.Background(), prog, fastFlash(1024), &hieropt.Settings{Planner: hieropt.PipelinePlanner})
	require.NoError(t, err)
	require.True(t, r.Check.Valid())
	assert.Equal(t, []plan.Transfer{
		{Block: "w0", At: 0, Start: 0, FromLevel: "FLASH", Load: true, ToLevel: "FAST", ToOffset: 656},
		{Block: "w1", At: 1, Start: 0, FromLevel: "FLASH", FromOffset: r.Plan.Transfers[1].FromOffset, ToLevel: "FAST", ToOffset: 816},
		{Block: "w2", At: 2, Start: 1, FromLevel: "FLASH", FromOffset: r.Plan.Transfers[2].FromOffset, ToLevel: "FAST", ToOffset: 656},
	}, r.Plan.Transfers)
	assert.Contains(t, r.Plan.Planner, "2 weights streamed, 1 loaded into FAST [656, 1024)")
}

// TestPipelineSmallLevel: where the other blocks do not fit beside the
// region it is halved, and the weights that do not fit it are read from
// their home. With FAST 400 B the region of 368 B would leave 32 B, less
// than one 64 B activation; halved, AlignDown(368/2, 16) = 176 B leaves
// 224 B, which holds the two activations alive at once. The ends
// alternate op by op: w0 (112 B) at the low end, 224; w1 (208 B) does not
// fit the high end of 176 B and stays in FLASH; w2 (160 B) at the low end
// again, 224 (w0 left it at op 0).
func TestPipelineSmallLevel(t *testing.T) {
	prog := threeLayers(100, 200, 160)
	p := testprog.BindTimeline(prog, fastFlash(400))
	res, err := baseline.Pipeline(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, int64(176), res.Size)
	assert.Equal(t, int64(400-176), res.Base)
	assert.Equal(t, 1, res.Home, "w1 is read from FLASH")
	w1, _ := p.BlockID("w1")
	assert.Equal(t, []state.Seg{{From: 0, Level: 1, Offset: res.Layout.Segs[w1][0].Offset}}, res.Layout.Segs[w1])
	w2, _ := p.BlockID("w2")
	assert.Equal(t, state.Seg{From: 2, Level: 0, Offset: 224, Lead: 1}, res.Layout.Segs[w2][1])
	_, err = hieropt.Plan(context.Background(), prog, fastFlash(400), &hieropt.Settings{Planner: hieropt.PipelinePlanner})
	require.NoError(t, err)
}

// TestPipelineRefusesSeedModels: under the seed models a copy is never
// early; the planner says so, as a PlannerError naming the model and the
// flag.
func TestPipelineRefusesSeedModels(t *testing.T) {
	prog := threeLayers(100, 200, 160)
	_, err := baseline.Pipeline(context.Background(), testprog.Bind(prog, fastFlash(1024)))
	require.ErrorIs(t, err, baseline.ErrTimelineOnly)
	_, err = hieropt.Plan(context.Background(), prog, fastFlash(1024), &hieropt.Settings{Planner: hieropt.PipelinePlanner, CostModel: "seed003"})
	var pe *hieropt.PlannerError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "seed004-pipeline plans for the timeline model (this plan's model is seed003): --cost-model timeline", err.Error())
}
