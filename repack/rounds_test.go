package repack_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/repack"
)

// A second round over the levels starts from the first's end, so it never
// costs more; on the initializer's plans of the shipped pairs it finds
// more in some (a slower level's changes left room in a faster one, or
// made a block there a candidate).
func TestRounds(t *testing.T) {
	if testmode.Quick() {
		t.Skip("repacks every shipped pair twice")
	}
	cheaper := 0
	for _, p := range testprog.ShippedPairs(t, "..") {
		lay, ok := initial(t, p, actions.KindOrder)
		if !ok {
			continue
		}
		one, err := repack.Run(context.Background(), p, lay, &repack.Settings{Rounds: 1})
		require.NoError(t, err)
		two, err := repack.Run(context.Background(), p, lay, nil)
		require.NoError(t, err)
		require.LessOrEqual(t, two.Cost, one.Cost, "%s on %s", p.Prog.Name, p.HW.Name)
		if two.Cost < one.Cost {
			cheaper++
		}
	}
	t.Logf("%d plans cheaper with a second round", cheaper)
	assert.Positive(t, cheaper)
}
