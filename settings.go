package hieropt

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/segments"
)

// Settings configure Plan. A nil *Settings means all defaults; every zero
// field means its documented default. The zero value of a budget never
// means "none": 0 is the default and -1 unbounded (Search.Beam,
// Search.MaxCandidates, Search.Horizon), except where a field says that 0
// turns its step off (Repack) or means no limit (TimeLimit).
type Settings struct {
	// Planner names the planner (PlannerNames): "search", the
	// initializer, then the search and repacking; "initializer", the
	// initializer alone (optimize --no-search); "none", every block in
	// the slowest level; or a single-arena planner of package arena
	// ("pack", "seed000", "seed001", "seed004", "tflm": optimize
	// --initializer).
	// Default (""): "search".
	Planner string
	// CostModel names the cost model that prices the plans and that the
	// plan document names (costmodel.Names). Default (""): the model the
	// profile names (hw.Profile.CostModel, key cost_model), else
	// costmodel.Default, "seed003".
	CostModel string
	// Search configures the search's walk (planner "search"): segments,
	// beam, actions, rounds, candidates, horizon, checking, progress; see
	// search.Settings. Its Workers (default: all cores) also run the
	// search's starts side by side and repacking's look-ahead. The plan
	// does not depend on Workers.
	Search search.Settings
	// Starts names the initializer orders the search may start from
	// (actions.OrderNames): it starts from the cheapest of their plans,
	// the earlier in the list on a tie, and re-plans in that plan's order;
	// when the bound order ("bound") is listed and has a plan (the seed
	// model's whole-program bound exists), it walks from that plan too,
	// and keeps the cheaper end.
	// The workload order's plan is the plan cost.initial prices: the
	// fallback plan where the initializer cannot place a block. Another
	// order whose initializer cannot place a block is left out (when no
	// order is left, the search starts from cost.initial's plan).
	// Default (nil): DefaultStarts. {"workload"} starts from the
	// initializer alone, as the seed does (optimize --initial-only).
	Starts []string
	// Repack is the budget of the repacking step that follows the search
	// (package repack): per memory level, fastest first, the most
	// packings tried, each to promote a block from a slower level by
	// re-packing the whole level with the exact packer. It never makes the
	// plan costlier and is deterministic (its packer is bounded by nodes,
	// not time). Default (nil): DefaultRepack. 0: no repacking (optimize
	// --repack 0). So new(0) turns it off and new(64) allows 64 packings
	// per level; RepackBudget gives the value in effect.
	Repack *int
	// TimeLimit bounds the whole Plan call, binding to verification; a
	// deadline of the context bounds it the same way (the earlier counts).
	// Binding, the initializer in workload order and the fallback plan
	// (cost.initial's plan) always run to their end, since without a plan
	// there is nothing to return; the search's other start orders run
	// after it and stop at the limit (an order cut so has no start); the
	// walk stops at the limit, less what verification needs
	// (Result.Reserve), with the best plan committed so far, and is not
	// begun when the limit fell before it; repacking gets what is left,
	// and is skipped when nothing is. The check then takes cost.initial as
	// computed in the call rather than making that plan again. Result.Cut
	// says where the limit fell. The other planners are not cut. Default
	// (0): no limit.
	TimeLimit time.Duration
	// Document names the workload in the errors of binding (state.Bind's
	// doc), e.g. workload.DocName("net.json") for `workload "net.json":
	// block "x": ...`. Default (""): workload.DocName(prog.Name).
	Document string
}

// Defaults of Settings.
const (
	DefaultPlanner = "search"
	DefaultRepack  = 16
)

// DefaultStarts are the initializer orders the search starts from by
// default: the workload's order (cost.initial's plan), kind order, and
// the bound order (under the seed model; it has no plan under the
// others).
var DefaultStarts = []string{actions.WorkloadOrder.Name(), actions.KindOrder.Name(), actions.BoundOrder.Name()}

// SettingError is a field of Settings that breaks its rule. Validate joins
// one per bad field (errors.As finds the first).
type SettingError struct {
	Field string // the field's path in Settings, e.g. "Search.Beam"
	Value any    // the value given
	Rule  string // what the field wants
}

func (e *SettingError) Error() string {
	v := fmt.Sprint(e.Value)
	if s, ok := e.Value.(string); ok {
		v = fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("Settings.%s %s: %s", e.Field, v, e.Rule)
}

// Validate checks every field of s (nil is valid: the defaults) and
// returns one *SettingError per bad field, joined (errors.Join), or nil.
// Plan calls it first. Names are checked against the registries
// (PlannerNames, costmodel.Names, actions.OrderNames); the cost model a
// profile names is checked by Plan, which has the profile.
func (s *Settings) Validate() error {
	if s == nil {
		return nil
	}
	var errs []error
	bad := func(field string, v any, rule string, args ...any) {
		errs = append(errs, &SettingError{Field: field, Value: v, Rule: fmt.Sprintf(rule, args...)})
	}
	if _, ok := planners.Lookup(s.Planner); s.Planner != "" && !ok {
		bad("Planner", s.Planner, "not a registered planner (registered: %s)", strings.Join(PlannerNames(), ", "))
	}
	if _, ok := costmodel.Lookup(s.CostModel); s.CostModel != "" && !ok {
		bad("CostModel", s.CostModel, "not a registered cost model (registered: %s)", strings.Join(costmodel.Names(), ", "))
	}
	w := s.Search
	if w.Beam < -1 {
		bad("Search.Beam", w.Beam, "want a positive number, or -1 for unbounded")
	}
	if w.MaxCandidates < -1 {
		bad("Search.MaxCandidates", w.MaxCandidates, "want a positive number, or -1 for no cap")
	}
	if s.TimeLimit < 0 {
		bad("TimeLimit", s.TimeLimit, "want a duration >= 0")
	}
	if w.Rounds < 0 {
		bad("Search.Rounds", w.Rounds, "want at least 1")
	}
	if w.Horizon < -1 {
		bad("Search.Horizon", w.Horizon, "want a positive number, or -1 for unbounded")
	}
	if w.Workers < 0 {
		bad("Search.Workers", w.Workers, "want a number >= 0")
	}
	if s.Repack != nil && *s.Repack < 0 {
		bad("Repack", *s.Repack, "want a number >= 0 (0 = off)")
	}
	if rule := startsRule(s.Starts); rule != "" {
		bad("Starts", s.Starts, "%s", rule)
	}
	if err := segmentsRule(w.Segments, 0); err != nil {
		bad("Search.Segments", w.Segments.Name(), "%v", err)
	}
	return errors.Join(errs...)
}

// segmentsRule checks a segments strategy that can be checked (segments.At:
// its timesteps in order, and below T when T > 0), nil if it is fine.
func segmentsRule(st segments.Strategy, T int) error {
	if v, ok := st.(interface{ Validate(T int) error }); ok {
		return v.Validate(T)
	}
	return nil
}

// checkSegments checks s.Search.Segments against a program of T timesteps,
// which Validate cannot: a timestep past its end is a *SettingError.
func (s *Settings) checkSegments(T int) error {
	if err := segmentsRule(s.Search.Segments, T); err != nil {
		return &SettingError{Field: "Search.Segments", Value: s.Search.Segments.Name(), Rule: err.Error()}
	}
	return nil
}

// startsRule says what is wrong with a list of starts, "" if nothing.
func startsRule(starts []string) string {
	if starts == nil {
		return ""
	}
	if len(starts) == 0 {
		return "want at least one initializer order, or nil for the default"
	}
	for i, name := range starts {
		if _, ok := actions.LookupOrder(name); !ok {
			return fmt.Sprintf("%q is not a registered initializer order (registered: %s)", name, strings.Join(actions.OrderNames(), ", "))
		}
		if slices.Contains(starts[:i], name) {
			return fmt.Sprintf("%q is named twice", name)
		}
	}
	return ""
}

// RepackBudget returns the packings per level the repacking step may try
// under s (nil: the defaults): DefaultRepack if s.Repack is nil, else
// *s.Repack (0: no repacking).
func (s *Settings) RepackBudget() int {
	if s == nil || s.Repack == nil {
		return DefaultRepack
	}
	return max(*s.Repack, 0)
}

// Model returns the cost model Plan prices plans on prof with under s
// (nil: the defaults): s.CostModel, else the model prof names, else
// costmodel.Default. A name no model is registered under is an error: a
// *SettingError for s.CostModel, an *inputerr.Error naming the profile's
// cost_model.
func (s *Settings) Model(prof *hw.Profile) (costmodel.Model, error) {
	if s != nil && s.CostModel != "" {
		m, ok := costmodel.Lookup(s.CostModel)
		if !ok {
			return nil, &SettingError{Field: "CostModel", Value: s.CostModel,
				Rule: fmt.Sprintf("not a registered cost model (registered: %s)", strings.Join(costmodel.Names(), ", "))}
		}
		return m, nil
	}
	name := costmodel.Default
	if prof != nil && prof.CostModel != "" {
		name = prof.CostModel
	}
	m, ok := costmodel.Lookup(name)
	if !ok {
		return nil, inputerr.New(hw.DocName(prof.Name), "", "cost_model %q: not a registered cost model (registered: %s)", name, strings.Join(costmodel.Names(), ", "))
	}
	return m, nil
}

// planner returns the planner s names (Validate has checked it).
func (s *Settings) planner() Planner {
	name := DefaultPlanner
	if s != nil && s.Planner != "" {
		name = s.Planner
	}
	p, _ := planners.Lookup(name)
	return p
}

// starts returns the initializer orders the search starts from under s.
func (s *Settings) starts() []actions.Order {
	names := DefaultStarts
	if s != nil && s.Starts != nil {
		names = s.Starts
	}
	out := make([]actions.Order, len(names))
	for i, n := range names {
		out[i], _ = actions.LookupOrder(n)
	}
	return out
}
