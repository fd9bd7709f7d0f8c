package search

import (
	"runtime"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/segments"
	"github.com/hieropt/hieropt/state"
)

// Settings configure a walk. A nil *Settings means all defaults; every
// zero field means its documented default. The walk's start (which plan,
// re-planned by which initializer, priced by which model) is Walk's Start;
// the time it may take is its context's.
type Settings struct {
	// Segments splits the timesteps into local-optimal segments.
	// Default (nil): segments.Auto.
	Segments segments.Strategy
	// Beam is how many candidate states a segment keeps, cheapest first.
	// Default (0): DefaultBeam. -1: unbounded, the seed's exact behaviour
	// (every combination inside a segment; exponential in the segment's
	// length).
	Beam int
	// Actions is the action set. Default (zero Set): actions.All, the
	// seed's move, swap and reuse and hieropt's evict; under the timeline
	// model (a problem bound with state.Semantics{Timeline: true})
	// actions.TimelineAll, which adds prefetch (see WithDefaultsFor).
	// actions.Seed is the seed's own set.
	Actions actions.Set
	// Rounds is the most actions one state may take at one timestep: each
	// round expands the states the previous round added to the beam.
	// Default (0): DefaultRounds. The seed takes one (Rounds = 1).
	Rounds int
	// MaxCandidates caps the candidates per action and level for one
	// block, best fit first. Default (0): DefaultMaxCandidates. -1: no
	// cap.
	MaxCandidates int
	// Horizon bounds how far past the timestep t an action may reach: a
	// block is acted on at t, or evicted, only if it dies within Horizon
	// timesteps of t. Re-planning runs until every changed block has died,
	// so this keeps the work per candidate bounded on long programs (whose
	// weights, loaded at timestep 0, live until their use). Default (0):
	// DefaultHorizon. -1: unbounded.
	Horizon int
	// Workers is the number of goroutines that evaluate candidates.
	// Default (0): runtime.GOMAXPROCS(0). The plan does not depend on it.
	Workers int
	// Check verifies the state's invariants after every commit: the
	// occupancy against one rebuilt from the layout, and the running cost
	// against a full recomputation. It panics on a broken invariant.
	// Slow; for tests and debugging.
	Check bool
	// Progress, if set, is called from the goroutine that called Walk:
	// once before the first timestep (Timestep 0), then after every
	// timestep walked.
	Progress func(Progress)
}

// Defaults of Settings.
const (
	DefaultBeam          = 4
	DefaultMaxCandidates = 4
	DefaultRounds        = 1
	DefaultHorizon       = 256
)

// Progress reports how far a walk is.
type Progress struct {
	Timestep, Steps int     // timesteps walked, of Steps
	Cost            float64 // the committed plan's cost
}

// WithDefaultsFor returns the settings in effect for a walk of p: those
// of WithDefaults, with the action set actions.TimelineAll where s leaves
// it to its default and p has the timeline model's semantics.
func (s *Settings) WithDefaultsFor(p *state.Problem) Settings {
	c := s.WithDefaults()
	if p.Timeline() && (s == nil || s.Actions == (actions.Set{})) {
		c.Actions = actions.TimelineAll
	}
	return c
}

// WithDefaults returns s (nil: the defaults) with every zero field set to
// its default: the settings in effect. Any negative Beam, MaxCandidates or
// Horizon is unbounded here (hieropt.Settings.Validate refuses all but -1),
// and Rounds below 1 is the default.
func (s *Settings) WithDefaults() Settings {
	var c Settings
	if s != nil {
		c = *s
	}
	if c.Segments == nil {
		c.Segments = segments.Auto{}
	}
	if c.Beam == 0 {
		c.Beam = DefaultBeam
	}
	if c.Actions == (actions.Set{}) {
		c.Actions = actions.All
	}
	if c.Horizon == 0 {
		c.Horizon = DefaultHorizon
	}
	if c.Rounds <= 0 {
		c.Rounds = DefaultRounds
	}
	if c.MaxCandidates == 0 {
		c.MaxCandidates = DefaultMaxCandidates
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}
