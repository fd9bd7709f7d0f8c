package hieropt_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/workloads"
)

// residentProfiles are the built-in profiles with a writable level between
// the fastest one and a read-only home: where weights kept resident in a
// middle level save a stream from the home every run.
var residentProfiles = []string{"esp32-s3", "k210"}

// TestSearchAtMostResidentAll: on the built-in profiles with a writable
// middle level, the search's plan of a shipped network costs at most the
// resident-all baseline's (every constant that fits resident, fastest
// writable level first): the search walks from that start too. Quick:
// squeezenet1_1-int8 (the walk from the other starts alone ends at 3.64 M
// cycles on the K210, resident-all at 0.79 M); exhaustive: every shipped
// network that fits, and mobilenet_v2-int8 on the K210 must stay under
// 1.9 M cycles (the walk from the other starts streams 32 weights from
// flash every run, 11.2 M). resident-all plans every pair the search
// plans.
func TestSearchAtMostResidentAll(t *testing.T) {
	names := []string{"squeezenet1_1-int8"}
	if testmode.Exhaustive() {
		names = workloads.Names()
	}
	for _, hwName := range residentProfiles {
		prof, err := profiles.Get(hwName)
		require.NoError(t, err)
		planned := 0
		for _, name := range names {
			prog, err := workloads.Get(name)
			require.NoError(t, err)
			s := hieropt.Settings{Planner: hieropt.ResidentAllPlanner}
			base, err := hieropt.Plan(context.Background(), prog, prof, &s)
			s.Planner = "search"
			if err != nil {
				// Only a pair that fits no plan has no resident-all plan.
				_, serr := hieropt.Plan(context.Background(), prog, prof, &s)
				require.Error(t, serr, "%s on %s: no resident-all plan (%v), but a search plan", name, hwName, err)
				continue
			}
			r := planOK(t, context.Background(), prog, prof, &s)
			assert.LessOrEqual(t, r.Plan.Cost.Final, base.Plan.Cost.Final, "%s on %s: search against resident-all", name, hwName)
			if name == "mobilenet_v2-int8" && hwName == "k210" {
				assert.LessOrEqual(t, r.Plan.Cost.Final, 1.9e6, "%s on %s", name, hwName)
			}
			planned++
		}
		assert.Positive(t, planned, hwName)
	}
}
