package arena_test

import (
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/state"
)

func actionsRun(p *state.Problem, lay *state.Layout) (*state.Occupancy, error) {
	return actions.NewInitializer(p).Run(lay, 0)
}
