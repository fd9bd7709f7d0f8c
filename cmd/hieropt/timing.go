package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/repack"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// timing is where optimize's time went, and what its time limit did. The
// marks are taken back to back, and the planner's steps (hieropt.Plan's
// Times) fill the time between loaded and planned, so the parts add up
// to the total.
type timing struct {
	start time.Time // when the command began
	// The ends of loading (reading the documents), planning (hieropt.Plan:
	// binding, the planner, the plan's check) and writing the plan.
	loaded, planned, written time.Time
	plan                     *hieropt.Result // what Plan returned

	limit    time.Duration // --time-limit; 0: none
	deadline time.Time     // start + limit; zero without a limit
	reserve  time.Duration // the part kept for writing and the summary
	searched bool          // the planner was the search (it honours the limit)
}

// newTiming starts the clock of a command with the given time limit.
func newTiming(start time.Time, limit time.Duration) *timing {
	t := &timing{start: start, limit: limit}
	if limit > 0 {
		t.deadline = start.Add(limit)
	}
	return t
}

// Estimated costs of what follows hieropt.Plan (which keeps its own
// reserve for the plan's check), per block and per timestep of the
// program, measured on the 2-core VM the README's numbers come from (gen
// 5,000 and 20,000 ops on h100-sm: writing 1.5 µs a block, the summary's
// statistics 1 µs; the cost bound's linear programs 15-30 µs a timestep)
// and then doubled or more, as the machine may be busier when it counts;
// plus a floor for the fixed costs (opening and syncing the file).
const (
	finishFloor    = 20 * time.Millisecond
	finishPerBlock = 6 * time.Microsecond
	boundPerStep   = 60 * time.Microsecond
)

// finishReserve is the time optimize keeps, out of its limit, for what
// must follow the planner: writing the plan and the summary's statistics
// (the cost bound aside: see boundFits).
func finishReserve(prog *workload.Program) time.Duration {
	return finishFloor + time.Duration(len(prog.Blocks))*finishPerBlock
}

// planBudget returns the time limit of hieropt.Plan once the documents
// are loaded: what is left of the command's limit, less the reserve, and
// at least 1 ns (the initializer runs in any case; a zero would mean no
// limit).
func (t *timing) planBudget(prog *workload.Program) time.Duration {
	t.reserve = finishReserve(prog)
	return max(t.deadline.Sub(t.loaded)-t.reserve, time.Nanosecond)
}

// boundFits reports whether the summary has time for the cost bound (a
// linear program per busy timestep) before the deadline.
func (t *timing) boundFits(p *state.Problem) bool {
	return t.deadline.IsZero() || time.Until(t.deadline) > time.Duration(p.Prog.Timesteps())*boundPerStep
}

// timeParts are the parts of the command's time, in order, as name and
// duration; they add up to the time since the start at now.
type timePart struct {
	name string
	d    time.Duration
}

func (t *timing) parts(now time.Time) []timePart {
	var pt hieropt.Times
	if t.plan != nil {
		pt = t.plan.Times
	}
	// Loading is reading the documents and binding them; validating is
	// Plan's check, and whatever else of the call its steps leave.
	out := []timePart{{"load", t.loaded.Sub(t.start) + pt.Bind}}
	if t.searched {
		out = append(out, timePart{"initializer", pt.Initial}, timePart{"search", pt.Search}, timePart{"repack", pt.Repack})
	} else {
		out = append(out, timePart{"planner", pt.Initial + pt.Search + pt.Repack})
	}
	validate := t.planned.Sub(t.loaded) - pt.Bind - pt.Initial - pt.Search - pt.Repack
	return append(out, timePart{"validate", validate}, timePart{"write", t.written.Sub(t.planned)},
		timePart{"summary", now.Sub(t.written)})
}

// line is the summary's time line: the total, then each part.
func (t *timing) line(now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (", now.Sub(t.start).Round(time.Microsecond))
	for i, pt := range t.parts(now) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", pt.name, pt.d.Round(time.Microsecond))
	}
	b.WriteString(")")
	return b.String()
}

// limitLine says what the time limit did: how much of it the planner had,
// where it ran out, and by how much the command went over it at now (what
// cannot be cut: loading, the initializer, validating and writing, took
// longer than the limit, or than estimated). "" without a limit.
func (t *timing) limitLine(p *state.Problem, boundSkipped bool, now time.Time) string {
	if t.limit <= 0 {
		return ""
	}
	over := ""
	if d := now.Sub(t.deadline); d > 0 {
		over = fmt.Sprintf("; the command went %s over it", d.Round(time.Millisecond))
	}
	s := fmt.Sprintf("%s: ", t.limit)
	r := t.plan
	if !t.searched || r == nil {
		// The initializer and the single-arena planners are not cut.
		if over != "" {
			return s + "exceeded: this planner runs to its end" + over
		}
		return s + "not reached"
	}
	s += fmt.Sprintf("the planner had %s of it (after loading %s; %s kept for the plan's check, writing and the summary)",
		r.Budget.Round(time.Millisecond), (t.loaded.Sub(t.start) + r.Times.Bind).Round(time.Millisecond), (t.reserve + r.Reserve).Round(time.Millisecond))
	switch r.Cut {
	case hieropt.PhaseNone:
		s += "; not reached"
	case hieropt.PhaseInitial:
		s += "; it ran out before the search began: the start plan, no search"
	case hieropt.PhaseSearch:
		s += fmt.Sprintf("; it ran out in the search at timestep %d of %d", r.CutTimestep, p.Prog.Timesteps())
	case hieropt.PhaseRepack:
		s += fmt.Sprintf("; it ran out in repacking, after %s", plural(repackStats(r).Packings, "packing"))
	}
	if r.RepackSkipped {
		s += "; repacking skipped"
	}
	if boundSkipped {
		s += "; no time left for the cost bound"
	}
	return s + over
}

// repackStats is what repacking did (zero when it did not run).
func repackStats(r *hieropt.Result) repack.Stats {
	if r.Repack == nil {
		return repack.Stats{}
	}
	return r.Repack.Stats
}

// repackGain is how much repacking lowered the cost (0 when it did not
// run).
func repackGain(r *hieropt.Result) float64 {
	if r.Repack == nil {
		return 0
	}
	return r.Repack.InputCost - r.Repack.Cost
}

// timesJSON is the time line in the JSON summary, in seconds.
type timesJSON struct {
	Total float64            `json:"total"`
	Parts map[string]float64 `json:"parts"`
	Order []string           `json:"order"`
}

func (t *timing) json(now time.Time) timesJSON {
	out := timesJSON{Total: now.Sub(t.start).Seconds(), Parts: map[string]float64{}}
	for _, pt := range t.parts(now) {
		out.Parts[pt.name] = pt.d.Seconds()
		out.Order = append(out.Order, pt.name)
	}
	return out
}

// limitJSON is what the time limit did, in the JSON summary.
type limitJSON struct {
	Seconds        float64 `json:"seconds"`
	PlannerSeconds float64 `json:"planner_seconds,omitempty"`
	ReserveSeconds float64 `json:"reserve_seconds,omitempty"`
	Cut            string  `json:"cut"` // the phase it ran out in: none, initializer, search or repack
	CutTimestep    *int    `json:"cut_timestep,omitempty"`
	RepackSkipped  bool    `json:"repack_skipped"`
	BoundSkipped   bool    `json:"bound_skipped"`
}

func (t *timing) limitJSON(boundSkipped bool) *limitJSON {
	if t.limit <= 0 {
		return nil
	}
	out := &limitJSON{Seconds: t.limit.Seconds(), Cut: hieropt.PhaseNone.String(), BoundSkipped: boundSkipped}
	if r := t.plan; t.searched && r != nil {
		out.PlannerSeconds, out.ReserveSeconds = r.Budget.Seconds(), (t.reserve + r.Reserve).Seconds()
		out.Cut, out.RepackSkipped = r.Cut.String(), r.RepackSkipped
		if r.Cut == hieropt.PhaseSearch {
			out.CutTimestep = &r.CutTimestep
		}
	}
	return out
}
