package repack_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/baseline"
	"github.com/hieropt/hieropt/internal/fuzzcheck"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/repack"
	"github.com/hieropt/hieropt/state"
)

// TestReadOnlyLevels repacks the no-planning plans (every block in the
// slowest level it may use: baseline.NoPlanning) of random problems whose
// profiles often have a read-only level (fuzzcheck.SmallReadOnly), in
// checking mode: every result passes the plan checker, rule 7 included
// (promotions never bring a block other than a constant into a read-only
// level, however fast it is and however much room it has).
func TestReadOnlyLevels(t *testing.T) {
	n := 1500
	if testmode.Quick() {
		n = 150
	}
	repacked, promoted := 0, 0
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(7, uint64(i)))
		prog, prof := fuzzcheck.Problem(rng, fuzzcheck.SmallReadOnly)
		p, err := state.Bind(prog, prof, "random")
		if err != nil {
			continue
		}
		lay, err := baseline.NoPlanning(p)
		if err != nil {
			continue
		}
		if _, ok := initial(t, p, actions.WorkloadOrder); !ok {
			continue // valid needs cost.initial
		}
		r, err := repack.Run(context.Background(), p, lay, &repack.Settings{Check: true})
		require.NoError(t, err)
		valid(t, p, r)
		repacked++
		if r.Cost < r.InputCost {
			promoted++
		}
	}
	t.Logf("%d problems: %d repacked, %d cheaper", n, repacked, promoted)
	require.Greater(t, repacked, n/3)
	require.Greater(t, promoted, n/10)
}
