package hieropt

import (
	"time"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/bounds"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/repack"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
)

// Result is a planned program.
type Result struct {
	// Plan is the plan document (FORMATS.md section 3), checked by
	// verify.Check (Check is the report); write it with Plan.Write. Its
	// Planner field describes the planner and its settings, Cost.Initial
	// is Initial.Cost and Cost.Final the plan's cost.
	Plan *plan.Plan
	// Problem and Layout give the plan by dense IDs: Layout.Segs[b] are
	// block b's placements, Problem.HW.Levels[seg.Level] their levels.
	Problem *state.Problem
	Layout  *state.Layout
	// Model is the cost model that priced the plan (Settings.Model).
	Model costmodel.Model
	// Initial is the plan cost.initial prices, and where the search
	// started.
	Initial Initial
	// Search is the search's walk (its layout before repacking, its
	// statistics); nil unless the planner is "search".
	Search *search.Result
	// Repack is the repacking step (what it promoted, its statistics);
	// nil unless it ran.
	Repack *repack.Result
	// Status says how the planner ended; Cut says where the time limit
	// (or the context's deadline) fell, and CutTimestep the timestep the
	// walk was at when it fell in the search. RepackSkipped is true when
	// repacking had a budget but the limit left it no time.
	Status        Status
	Cut           Phase
	CutTimestep   int
	RepackSkipped bool
	// Budget is the part of the time limit the planner had: what was
	// left after binding, less Reserve, the time kept for assembling and
	// verifying the plan. Both are zero without a limit.
	Budget, Reserve time.Duration
	// Times is where the call's time went.
	Times Times
	// Check is verify.Check's report on Plan: valid, with the costs it
	// recomputed.
	Check *verify.Report
	// Bound is the whole-program bound (bounds.Whole, default options),
	// if planning computed it: the search's bound start does, under the
	// seed model. nil otherwise.
	Bound *bounds.WholeBound
}

// Initial is the plan that cost.initial prices (FORMATS.md section 3,
// rule 6), and the search's start.
type Initial struct {
	// Cost is cost.initial: the cost of the initializer's plan (workload
	// order), or of the fallback plan where the initializer cannot place
	// a block.
	Cost float64
	// Fallback says why and how the fallback plan was made; nil when the
	// initializer placed every block.
	Fallback *actions.Fallback
	// Start is the initializer order whose plan the search started from
	// and re-planned in (Settings.Starts), and StartCost that plan's cost;
	// "" and 0 when the planner is not the search.
	Start     string
	StartCost float64
	// Walks are the search's walks, in the order walked: from the
	// cheapest start and from the bound order's, one per guide on small
	// programs (Settings.Starts); the plan is the cheapest walk's, after
	// repacking.
	Walks []Walked
}

// Walked is one walk of the search: from the plan of an initializer
// order (its cost StartCost) to a plan of cost Walked, and Cost after
// repacking.
type Walked struct {
	Start                   string
	StartCost, Walked, Cost float64
}

// Times are the wall times of Plan's steps, back to back: they add up to
// the call's time.
type Times struct {
	// Bind: validating the settings, binding the documents and the
	// capacity check.
	Bind time.Duration
	// Initial: the plan cost.initial prices, and the search's other
	// starts.
	Initial time.Duration
	// Search: the walk; for a planner other than the search and the
	// initializer, the planner's own work (an arena, say).
	Search time.Duration
	// Repack: the repacking step.
	Repack time.Duration
	// Verify: assembling the plan document and verify.Check.
	Verify time.Duration
}

// Total is the call's time: the steps' sum.
func (t Times) Total() time.Duration { return t.Bind + t.Initial + t.Search + t.Repack + t.Verify }

// Status says how a planner ended.
type Status int

// The ways a planner ends.
const (
	// Converged: it ran to its end (the search walked every timestep and
	// repacked).
	Converged Status = iota
	// TimeLimit: Settings.TimeLimit or the context's deadline stopped it
	// (Result.Cut says where).
	TimeLimit
	// Cancelled: the context was cancelled; the plan is the best the
	// search committed before it.
	Cancelled
)

func (s Status) String() string {
	return [...]string{"converged", "time limit", "cancelled"}[s]
}

// Phase is a step of the search planner, in the order they run: where a
// time limit fell.
type Phase int

// The phases of the search planner.
const (
	PhaseNone    Phase = iota
	PhaseInitial       // the initializer, the other starts, the fallback plan
	PhaseSearch        // the walk
	PhaseRepack        // repacking
)

func (p Phase) String() string {
	return [...]string{"none", "initializer", "search", "repack"}[p]
}
