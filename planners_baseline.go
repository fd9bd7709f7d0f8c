package hieropt

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/baseline"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/state"
)

// The planners of issue 15's baselines, by name (Settings.Planner).
const (
	// PipelinePlanner is seed 004's pipelined weight loading
	// (baseline.Pipeline).
	PipelinePlanner = "seed004-pipeline"
	// MSAPlanner is a memory-space assignment in the manner of XLA's
	// (baseline.MSA).
	MSAPlanner = "xla-msa"
	// ResidentAllPlanner is every constant that fits made resident,
	// the fastest writable level first, then the initializer
	// (actions.ResidentLevelsOrder), without search.
	ResidentAllPlanner = "resident-all"
)

// pipelinePlanner is seed 004's pipelined weight loading.
type pipelinePlanner struct{}

func (pipelinePlanner) Name() string { return PipelinePlanner }
func (pipelinePlanner) Doc() string {
	return "seed 004's pipelined weight loading (a baseline; timeline model only): each op's weights copied into the fastest writable level, the copy issued one op earlier, " +
		"consecutive ops' weights in turns at the two ends of one region sized for the largest two (what does not fit read from its home); " +
		"the other blocks placed by the initializer below the region. Under the seed models a copy is never early, so there is nothing to pipeline: it refuses"
}

func (pl pipelinePlanner) plan(r *run, _, whole context.Context) (string, error) {
	res, err := baseline.Pipeline(whole, r.p)
	switch {
	case errors.Is(err, baseline.ErrTimelineOnly):
		return "", &PlannerError{Planner: pl.Name(), Err: fmt.Errorf("%w (this plan's model is %s): --cost-model timeline", err, r.model.Name())}
	case whole.Err() != nil:
		return "", whole.Err()
	case err != nil:
		return "", &PlannerError{Planner: pl.Name(), Err: fmt.Errorf("%s: %w", pl.Name(), err)}
	}
	r.res.Times.Search = r.lap()
	if err := r.initial(whole); err != nil {
		return "", err
	}
	r.lay, r.cost = res.Layout, costmodel.Total(r.model, r.p, res.Layout)
	d := fmt.Sprintf("%s: %d weights streamed, %d loaded", pl.Name(), res.Streamed, res.Loaded)
	if res.Level >= 0 {
		d += fmt.Sprintf(" into %s [%d, %d) (for the largest two consecutive ops, %d B)", r.p.HW.Levels[res.Level].Name, res.Base, res.Base+res.Size, res.Want)
	}
	return d + fmt.Sprintf(", %d read from their home; the other blocks by the initializer", res.Home), nil
}

// msaPlanner is the XLA-style memory-space assignment.
type msaPlanner struct{}

func (msaPlanner) Name() string { return MSAPlanner }
func (msaPlanner) Doc() string {
	return "a memory-space assignment in the manner of XLA's (a baseline): blocks ranked by the time they save in the fastest level they may use (where their ops are memory-bound) over the square root of their size, " +
		"each given the fastest level with room over its lifetime, best fit in space and time, a constant under the timeline model prefetched from its home as early as the space is free; the rest stays home"
}

func (pl msaPlanner) plan(r *run, _, whole context.Context) (string, error) {
	res, err := baseline.MSA(r.p)
	if err != nil {
		return "", &PlannerError{Planner: pl.Name(), Err: fmt.Errorf("%s: %w", pl.Name(), err)}
	}
	r.res.Times.Search = r.lap()
	if err := r.initial(whole); err != nil {
		return "", err
	}
	r.lay, r.cost = res.Layout, costmodel.Total(r.model, r.p, res.Layout)
	d := fmt.Sprintf("%s: %d of %d blocks ranked given a faster level", pl.Name(), res.Fast, len(res.Order))
	if r.p.Timeline() {
		d += fmt.Sprintf(" (%d constants prefetched, %d loaded, %d copies issued early)", res.Prefetched, res.Loaded, res.Early)
	}
	return d, nil
}

// residentAllPlanner is the resident-all baseline.
type residentAllPlanner struct{}

func (residentAllPlanner) Name() string { return ResidentAllPlanner }
func (residentAllPlanner) Doc() string {
	return "every constant that fits resident (a baseline; timeline model only): level by level, fastest writable first, constants made resident (no load, their range kept over the whole run) by saving per byte " +
		"in the room the other blocks leave there once the faster levels are full, the rest read from their home or streamed; the other blocks by the initializer in kind order (the resident-levels start), no search"
}

func (pl residentAllPlanner) plan(r *run, _, whole context.Context) (string, error) {
	if !r.p.Timeline() {
		return "", &PlannerError{Planner: pl.Name(), Err: fmt.Errorf("%w (this plan's model is %s): --cost-model timeline", ErrResidentTimelineOnly, r.model.Name())}
	}
	lay := state.NewLayout(r.p.Blocks())
	if _, err := actions.NewInitializerOrder(r.p, actions.ResidentLevelsOrder).Run(lay, 0); err != nil {
		return "", &PlannerError{Planner: pl.Name(), Err: fmt.Errorf("%s: %w", pl.Name(), err)}
	}
	r.res.Times.Search = r.lap()
	if err := r.initial(whole); err != nil {
		return "", err
	}
	r.lay, r.cost = lay, costmodel.Total(r.model, r.p, lay)
	per := make([]int, r.p.Levels())
	var bytes int64
	for b, segs := range lay.Segs {
		if len(segs) == 1 && segs[0].IsResident() {
			per[segs[0].Level]++
			bytes += r.p.Block(b).Size
		}
	}
	var in []string
	for l, n := range per {
		if n > 0 {
			in = append(in, fmt.Sprintf("%d in %s", n, r.p.HW.Levels[l].Name))
		}
	}
	if len(in) == 0 {
		in = []string{"none"}
	}
	return fmt.Sprintf("%s: constants resident %s (%d B); the other blocks by the initializer", pl.Name(), strings.Join(in, ", "), bytes), nil
}

// ErrResidentTimelineOnly is the resident-all planner's error under a
// model without residency (only the timeline model has resident
// constants, FORMATS.md rule 10).
var ErrResidentTimelineOnly = errors.New("resident-all plans for the timeline model")
