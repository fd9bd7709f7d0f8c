package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
)

// timing is where optimize's time went, and what its time limit did. The
// marks are taken back to back, so the parts add up to the total.
type timing struct {
	start time.Time // when the command began
	// The ends of loading (reading and binding), planning (the
	// initializer, the search, repacking), validating (building and
	// checking the plan) and writing it.
	loaded, planned, validated, written time.Time

	limit    time.Duration // --time-limit; 0: none
	deadline time.Time     // start + limit; zero without a limit
	planner  time.Duration // the part of the limit the planner was given
	reserve  time.Duration // the part kept for validating, writing and the summary
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

// Estimated costs of what follows the planner, per block and per timestep
// of the program, measured on the 2-core VM the README's numbers come from
// (gen 5,000 and 20,000 ops on h100-sm: validating 2-3 µs a block, writing
// 1.5 µs, the summary's statistics 1 µs; the cost bound's linear programs
// 15-30 µs a timestep) and then doubled or more, as the machine may be
// busier when it counts; plus a floor for the fixed costs (opening and
// syncing the file).
const (
	finishFloor    = 30 * time.Millisecond
	finishPerBlock = 12 * time.Microsecond
	boundPerStep   = 60 * time.Microsecond
)

// finishReserve is the time optimize keeps, out of its limit, for what
// must follow the planner: building and validating the plan, writing it,
// and the summary's statistics (the cost bound aside: see boundFits).
func finishReserve(p *state.Problem) time.Duration {
	return finishFloor + time.Duration(p.Blocks())*finishPerBlock
}

// planBudget returns the time limit of the planner (search.Settings.
// TimeLimit) once the problem is loaded: what is left of the command's
// limit, less the reserve, and at least 1 ns (the initializer runs in any
// case; a zero would mean no limit).
func (t *timing) planBudget(p *state.Problem) time.Duration {
	t.reserve = finishReserve(p)
	t.planner = max(t.deadline.Sub(t.loaded)-t.reserve, time.Nanosecond)
	return t.planner
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

func (t *timing) parts(r *search.Result, now time.Time) []timePart {
	plan := t.planned.Sub(t.loaded)
	out := []timePart{{"load", t.loaded.Sub(t.start)}}
	if t.searched && r != nil {
		st := r.Stats
		out = append(out, timePart{"initializer", st.InitTime}, timePart{"search", st.SearchTime},
			timePart{"repack", plan - st.InitTime - st.SearchTime})
	} else {
		out = append(out, timePart{"planner", plan})
	}
	return append(out, timePart{"validate", t.validated.Sub(t.planned)}, timePart{"write", t.written.Sub(t.validated)},
		timePart{"summary", now.Sub(t.written)})
}

// line is the summary's time line: the total, then each part.
func (t *timing) line(r *search.Result, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (", now.Sub(t.start).Round(time.Microsecond))
	for i, pt := range t.parts(r, now) {
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
func (t *timing) limitLine(r *search.Result, p *state.Problem, boundSkipped bool, now time.Time) string {
	if t.limit <= 0 {
		return ""
	}
	over := ""
	if d := now.Sub(t.deadline); d > 0 {
		over = fmt.Sprintf("; the command went %s over it", d.Round(time.Millisecond))
	}
	s := fmt.Sprintf("%s: ", t.limit)
	if !t.searched {
		// The initializer and the single-arena planners are not cut.
		if over != "" {
			return s + "exceeded: this planner runs to its end" + over
		}
		return s + "not reached"
	}
	s += fmt.Sprintf("the planner had %s of it (after loading %s; %s kept for the plan's check, writing and the summary)",
		t.planner.Round(time.Millisecond), t.loaded.Sub(t.start).Round(time.Millisecond), t.reserve.Round(time.Millisecond))
	st := r.Stats
	switch st.Cut {
	case search.PhaseNone:
		s += "; not reached"
	case search.PhaseInit:
		s += "; it ran out before the search began: the start plan, no search"
	case search.PhaseSearch:
		s += fmt.Sprintf("; it ran out in the search at timestep %d of %d", st.CutTimestep, p.Prog.Timesteps())
	case search.PhaseRepack:
		s += fmt.Sprintf("; it ran out in repacking, after %s", plural(st.Repack.Packings, "packing"))
	}
	if st.RepackSkipped {
		s += "; repacking skipped"
	}
	if boundSkipped {
		s += "; no time left for the cost bound"
	}
	return s + over
}

// timesJSON is the time line in the JSON summary, in seconds.
type timesJSON struct {
	Total float64            `json:"total"`
	Parts map[string]float64 `json:"parts"`
	Order []string           `json:"order"`
}

func (t *timing) json(r *search.Result, now time.Time) timesJSON {
	out := timesJSON{Total: now.Sub(t.start).Seconds(), Parts: map[string]float64{}}
	for _, pt := range t.parts(r, now) {
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

func (t *timing) limitJSON(r *search.Result, boundSkipped bool) *limitJSON {
	if t.limit <= 0 {
		return nil
	}
	out := &limitJSON{Seconds: t.limit.Seconds(), Cut: search.PhaseNone.String(), BoundSkipped: boundSkipped}
	if t.searched && r != nil {
		st := r.Stats
		out.PlannerSeconds, out.ReserveSeconds = t.planner.Seconds(), t.reserve.Seconds()
		out.Cut, out.RepackSkipped = st.Cut.String(), st.RepackSkipped
		if st.Cut == search.PhaseSearch {
			out.CutTimestep = &st.CutTimestep
		}
	}
	return out
}
