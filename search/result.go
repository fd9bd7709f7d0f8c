package search

import (
	"time"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/state"
)

// Status says how a walk ended.
type Status int

// The ways a walk ends.
const (
	Converged Status = iota // walked every timestep
	TimeLimit               // stopped by its context's deadline
	Cancelled               // stopped by its context's cancellation
)

func (s Status) String() string {
	return [...]string{"converged", "time limit", "cancelled"}[s]
}

// Stats count what a walk did.
type Stats struct {
	// Per action (indexed by actions.Kind): (state, block) pairs the
	// action was tried on; candidates it produced (successes);
	// candidates whose re-planning failed (a later block fit nowhere);
	// actions in committed states.
	Tried, Succeeded, Failed, Committed [actions.NumKinds]int
	Replans                             int   // candidates re-planned
	ReplanSteps                         int64 // timesteps re-planned in total (the hot path)
	Commits                             int   // segments whose best state was committed
	Timesteps                           int   // timesteps visited
	Skipped                             int   // timesteps skipped: all their blocks in the highest level
	// CutTimestep is the timestep the walk was at when its context ended
	// it (the timesteps before it were walked); 0 when it converged.
	CutTimestep int
	Time        time.Duration // the walk's wall time
}

// Result is the outcome of a walk.
type Result struct {
	// Layout is the committed plan: always complete and valid, even when
	// the walk stopped early.
	Layout    *state.Layout
	StartCost float64 // the start's cost
	Cost      float64 // Layout's cost, recomputed in full
	Stats     Stats
	Status    Status
}
