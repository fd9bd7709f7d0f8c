package hieropt_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/baseline"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/workload"
	"github.com/hieropt/hieropt/workloads"
)

// TestBaselinePlannersShipped: seed004-pipeline and xla-msa plan every
// shipped workload that fits a profile under the timeline model into a
// plan that Plan's check passes (rules 1-10, the timeline cost): on the
// built-in Ethos-U55 (its flash read-only, a compute unit and one DMA
// channel: the activations fit only the SRAM) and Ethos-U65 (a writable
// DRAM, two channels), both of the timeline model. A workload that fits nowhere (no planning finds no
// plan, e.g. GPT-2's 6 MiB logits on the U55's 4 MiB SRAM) is skipped,
// and at least one on each profile must not be.
func TestBaselinePlannersShipped(t *testing.T) {
	if testmode.Quick() {
		t.Skip("plans every shipped workload twice on two profiles")
	}
	u55, err := profiles.Get("ethos-u55")
	require.NoError(t, err)
	require.Equal(t, "timeline", u55.CostModel)
	u65, err := profiles.Get("ethos-u65")
	require.NoError(t, err)
	require.Equal(t, "timeline", u65.CostModel)
	for _, prof := range []*hw.Profile{u55, u65} {
		planned := 0
		for _, name := range workloads.Names() {
			prog, err := workloads.Get(name)
			require.NoError(t, err)
			s := hieropt.Settings{CostModel: "timeline", Planner: "none"}
			if _, err := hieropt.Plan(context.Background(), prog, prof, &s); err != nil {
				continue
			}
			weights := slices.ContainsFunc(prog.Blocks, func(b workload.Block) bool { return b.Kind == workload.Constant })
			for _, pl := range []string{hieropt.PipelinePlanner, hieropt.MSAPlanner} {
				s.Planner = pl
				r := planOK(t, context.Background(), prog, prof, &s)
				assert.Equal(t, "timeline", r.Plan.CostModel, "%s %s on %s", pl, name, prof.Name)
				assert.Equal(t, weights, len(r.Plan.Transfers) > 0, "%s %s on %s: the weights are copied", pl, name, prof.Name)
			}
			planned++
		}
		assert.Positive(t, planned, prof.Name)
		t.Logf("%s: %d of %d workloads", prof.Name, planned, len(workloads.Names()))
	}
}

// TestBaselinePlannersSeedModel: under the seed model xla-msa plans (its
// constants placed for their whole life, free, as the model says) and
// seed004-pipeline refuses with a PlannerError that names the model.
func TestBaselinePlannersSeedModel(t *testing.T) {
	prog, err := workloads.Get("resnet18-int8")
	require.NoError(t, err)
	prof, err := profiles.Get("ethos-u55")
	require.NoError(t, err)
	r := planOK(t, context.Background(), prog, prof, &hieropt.Settings{Planner: hieropt.MSAPlanner, CostModel: "seed003"})
	assert.Empty(t, r.Plan.Transfers)
	_, err = hieropt.Plan(context.Background(), prog, prof, &hieropt.Settings{Planner: hieropt.PipelinePlanner, CostModel: "seed003"})
	var pe *hieropt.PlannerError
	require.ErrorAs(t, err, &pe)
	assert.True(t, errors.Is(err, baseline.ErrTimelineOnly))
	assert.Equal(t, "seed004-pipeline plans for the timeline model (this plan's model is seed003): --cost-model timeline", err.Error())
}
