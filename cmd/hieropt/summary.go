package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/bounds"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/state"
)

// summary is the human report optimize prints on stderr.
type summary struct {
	p       *state.Problem
	lay     *state.Layout
	model   costmodel.Model
	plan    *plan.Plan
	output  string
	planner string
	elapsed time.Duration
	// search and settings are set when the search ran.
	search   *hieropt.Result
	settings *hieropt.Settings
	// fallback is set when cost.initial is the fallback plan's (the
	// initializer could not place a block).
	fallback *actions.Fallback
	// timing, if set, is where the command's time went and what its time
	// limit did: the time line lists each part, and the cost bound is
	// left out when the limit leaves no time for it.
	timing    *timing
	skipBound *bool // boundSkipped's answer, once asked
}

// boundSkipped reports whether the summary leaves the cost bound out for
// want of time (decided once, when first asked).
// costBound is the cost bound under the plan's model, its whole-program
// part cut at the command's deadline, if it has one.
func (s *summary) costBound() (*costBound, error) {
	var known *bounds.WholeBound
	if s.search != nil {
		known = s.search.Bound
	}
	return costBoundWith(s.boundCtx(), s.p, s.model.Name(), known)
}

// boundCtx ends at the command's deadline, if it has one: the
// whole-program bound stops there (looser, still valid).
func (s *summary) boundCtx() context.Context {
	if s.timing == nil || s.timing.deadline.IsZero() {
		return context.Background()
	}
	ctx, cancel := context.WithDeadline(context.Background(), s.timing.deadline)
	_ = cancel // released when the deadline passes; the command ends soon after
	return ctx
}

func (s *summary) boundSkipped() bool {
	if s.skipBound == nil {
		skip := s.timing != nil && !s.timing.boundFits(s.p)
		s.skipBound = &skip
	}
	return *s.skipBound
}

// fallbackLine says why cost.initial is the fallback plan's, and how that
// plan was made.
func fallbackLine(p *state.Problem, fb *actions.Fallback, initial float64, unit string) string {
	return fmt.Sprintf("the initializer cannot place block %q (%d B) at timestep %d; the fallback plan (%s) costs %s %s",
		fb.Cause.Block, fb.Cause.Size, fb.Cause.Timestep, fb.Describe(p), fmtCost(initial), unit)
}

func (s *summary) write(w io.Writer) {
	p := s.p
	st := p.Prog.ComputeStats()
	rep := costmodel.Breakdown(s.model, p, s.lay)
	unit := hw.Units(p.HW.TimeUnit)
	fmt.Fprintf(w, "%s on %s: %d ops, %d blocks, %s\n", p.Prog.Name, p.HW.Name, st.Ops, st.Blocks, plural(p.Levels(), "level"))
	fmt.Fprintf(w, "planner    %s\n", s.planner)
	fmt.Fprintf(w, "cost       %s %s (%s model)", fmtCost(s.plan.Cost.Final), unit, s.model.Name())
	if s.plan.Cost.Initial != s.plan.Cost.Final {
		fmt.Fprintf(w, "; initial %s, %s", fmtCost(s.plan.Cost.Initial), fmtReduction(s.plan.Cost.Initial, s.plan.Cost.Final))
	}
	fmt.Fprintln(w)
	if s.fallback != nil {
		fmt.Fprintf(w, "initial    %s\n", fallbackLine(p, s.fallback, s.plan.Cost.Initial, unit))
	}
	fmt.Fprintf(w, "max-live   %d B (in-place aware %d B) at timestep %d: no plan keeps fewer bytes live; %s\n",
		st.MaxLive, st.MaxLiveInPlace, st.MaxLiveAt, levelsHold(p.HW))
	width := len("level")
	for _, lv := range p.HW.Levels {
		width = max(width, len(lv.Name))
	}
	if s.boundSkipped() {
		fmt.Fprintf(w, "bound      not computed: the time limit left no time for it ('hieropt bounds' computes it)\n")
	} else {
		fmt.Fprintf(w, "bound      %s\n", boundLine(s.boundCtx(), p, s.model.Name(), s.plan.Cost.Final))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tcapacity\tpeak\tpeak %%\treads\twrites\tmoved in\tmoved out\ttraffic\ttime\ttime %%\t\n", width, "level")
	for l, lv := range p.HW.Levels {
		t := rep.Levels[l]
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%.1f%%\t%d\t%d\t%s\t%s\t%s\t%s\t%.1f%%\t\n", width, lv.Name,
			fmtBytes(lv.Capacity), fmtBytes(rep.PeakBytes[l]), pct(float64(rep.PeakBytes[l]), float64(lv.Capacity)),
			t.Reads, t.Writes, fmtBytes(t.BytesIn), fmtBytes(t.BytesOut), fmtBytes(t.Traffic()),
			fmtCost(t.Time), pct(t.Time, rep.Total))
	}
	_ = tw.Flush() // its writer keeps the error: a checked stream (streams.go) or a buffer
	if r := s.search; r != nil {
		st, in := r.Search.Stats, r.Initial
		if in.Start != actions.WorkloadOrder.Name() {
			fmt.Fprintf(w, "start      the initializer in %s order: %s %s (%s)\n", in.Start, fmtCost(in.StartCost), unit, fmtReduction(in.Cost, in.StartCost))
		}
		if len(in.Walks) > 1 {
			fmt.Fprintf(w, "walks      %s\n", describeWalks(in.Walks, in.Start))
		}
		fmt.Fprintf(w, "search     %s after %d of %d timesteps; %s committed\n", r.Status, st.Timesteps, p.Prog.Timesteps(), plural(st.Commits, "segment"))
		fmt.Fprintf(w, "actions    tried/candidates/committed:")
		acts := s.settings.Search.WithDefaultsFor(r.Problem).Actions
		for k := actions.Kind(0); k < actions.NumKinds; k++ {
			if acts[k] {
				fmt.Fprintf(w, " %s %d/%d/%d", k, st.Tried[k], st.Succeeded[k], st.Committed[k])
			}
		}
		fmt.Fprintf(w, "; %s, %s re-planned\n", plural(st.Replans, "re-plan"), plural(st.ReplanSteps, "timestep"))
		if s.settings.RepackBudget() > 0 {
			rp := repackStats(r)
			fmt.Fprintf(w, "repack     %s promoted into faster levels (%d into free space; %s, %s screened out by max-live): %s %s less\n",
				plural(rp.Promoted, "block"), rp.Inserted, plural(rp.Packings, "packing"), plural(rp.Screened, "candidate"), fmtCost(repackGain(r)), unit)
		}
	}
	if t := s.timing; t != nil {
		now := time.Now()
		fmt.Fprintf(w, "time       %s\n", t.line(now))
		if l := t.limitLine(p, s.boundSkipped(), now); l != "" {
			fmt.Fprintf(w, "limit      %s\n", l)
		}
	} else {
		fmt.Fprintf(w, "time       %s\n", s.elapsed.Round(time.Microsecond))
	}
	where := "not written (use -o FILE, or -o - for stdout)"
	if s.output == "-" {
		where = "written to stdout"
	} else if s.output != "" {
		where = s.output
	}
	fmt.Fprintf(w, "plan       %s: %s, %s, valid\n", where, plural(len(s.plan.Placements), "placement"), plural(len(s.plan.Transfers), "transfer"))
}

// levelsHold says how many bytes the levels hold: "the levels hold X", and
// where some are read-only (constants only, FORMATS.md rule 7), what the
// other blocks can use: "; the writable levels hold Y".
func levelsHold(prof *hw.Profile) string {
	var total, writable int64
	for _, lv := range prof.Levels {
		total += lv.Capacity
		if !lv.ReadOnly {
			writable += lv.Capacity
		}
	}
	if writable == total {
		return "the levels hold " + fmtBytes(total)
	}
	return fmt.Sprintf("the levels hold %s; the writable levels, for blocks other than constants, %s", fmtBytes(total), fmtBytes(writable))
}

func pct(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * a / b
}

func fmtCost(c float64) string { return fmt.Sprintf("%.2f", c) }

func fmtReduction(initial, final float64) string {
	if initial == 0 {
		return "no change"
	}
	if final > initial {
		return fmt.Sprintf("%.2f%% more", 100*(final-initial)/initial)
	}
	return fmt.Sprintf("%.2f%% less", 100*(initial-final)/initial)
}

// fmtBytes prints a byte count as the report does (render.Bytes): in
// binary units, exact below 1 KiB.
func fmtBytes(n int64) string { return render.Bytes(n) }

func plural[N int | int64](n N, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// writeJSON prints the summary as one JSON object.
func (s *summary) writeJSON(w io.Writer) error {
	p := s.p
	st := p.Prog.ComputeStats()
	rep := costmodel.Breakdown(s.model, p, s.lay)
	type level struct {
		Name      string  `json:"name"`
		Capacity  int64   `json:"capacity"`
		Peak      int64   `json:"peak_bytes"`
		Reads     int     `json:"reads"`
		Writes    int     `json:"writes"`
		BytesIn   int64   `json:"bytes_moved_in"`
		BytesOut  int64   `json:"bytes_moved_out"`
		Traffic   int64   `json:"traffic_bytes"`
		Time      float64 `json:"time"`
		TimeShare float64 `json:"time_share"`
	}
	type action struct {
		Tried      int `json:"tried"`
		Candidates int `json:"candidates"`
		Committed  int `json:"committed"`
	}
	type repackJSON struct {
		Candidates int     `json:"candidates"`
		Screened   int     `json:"screened"`
		Packings   int     `json:"packings"`
		Promoted   int     `json:"promoted"`
		Inserted   int     `json:"inserted"`
		Merged     int     `json:"merged"`
		Unpacked   int     `json:"levels_too_large_to_pack"`
		Visits     int64   `json:"buffers_visited"`
		Cut        int     `json:"levels_cut_at_max_visits"`
		Nodes      int64   `json:"nodes"`
		Gain       float64 `json:"gain"`
		Seconds    float64 `json:"seconds"`
	}
	type searchJSON struct {
		Status      string            `json:"status"`
		Timesteps   int               `json:"timesteps_visited"`
		Commits     int               `json:"segments_committed"`
		Start       string            `json:"start"`
		StartCost   float64           `json:"start_cost"`
		Walks       []walkJSON        `json:"walks,omitempty"`
		Actions     map[string]action `json:"actions"`
		Replans     int               `json:"replans"`
		ReplanSteps int64             `json:"timesteps_replanned"`
		InitSeconds float64           `json:"initializer_seconds"`
		Seconds     float64           `json:"search_seconds"`
		Repack      *repackJSON       `json:"repack,omitempty"`
	}
	// fallbackJSON is set when cost.initial is the fallback plan's.
	type fallbackLevel struct {
		Name     string `json:"level"`
		Blocks   int    `json:"blocks"`
		Sent     int    `json:"sent_down"`
		Peak     int64  `json:"peak_bytes"`
		Packings int    `json:"packings"`
		Nodes    int64  `json:"nodes"`
	}
	type fallbackJSON struct {
		Block    string          `json:"block"`
		Timestep int             `json:"timestep"`
		Cause    string          `json:"cause"`
		Levels   []fallbackLevel `json:"levels"`
	}
	out := struct {
		Workload   string        `json:"workload"`
		Hardware   string        `json:"hardware"`
		TimeUnit   string        `json:"time_unit"`
		CostModel  string        `json:"cost_model"`
		Planner    string        `json:"planner"`
		Initial    float64       `json:"initial_cost"`
		Final      float64       `json:"final_cost"`
		Reduction  float64       `json:"reduction_pct"`
		MaxLive    int64         `json:"max_live_bytes"`
		MaxLiveIP  int64         `json:"max_live_in_place_bytes"`
		Bound      *float64      `json:"cost_lower_bound,omitempty"`
		NoPlanning float64       `json:"no_planning_cost"`
		Captured   *float64      `json:"captured,omitempty"`
		Levels     []level       `json:"levels"`
		Fallback   *fallbackJSON `json:"initial_fallback,omitempty"`
		Search     *searchJSON   `json:"search,omitempty"`
		Seconds    float64       `json:"seconds"`
		Times      *timesJSON    `json:"times,omitempty"`
		Limit      *limitJSON    `json:"time_limit,omitempty"`
		Output     string        `json:"plan_file,omitempty"`
		Placements int           `json:"placements"`
		Transfers  int           `json:"transfers"`
	}{
		Workload: p.Prog.Name, Hardware: p.HW.Name, TimeUnit: p.HW.TimeUnit, CostModel: s.model.Name(), Planner: s.planner,
		Initial: s.plan.Cost.Initial, Final: s.plan.Cost.Final, MaxLive: st.MaxLive, MaxLiveIP: st.MaxLiveInPlace,
		NoPlanning: noPlanningCost(p, s.model.Name()), Seconds: s.elapsed.Seconds(), Output: s.output,
		Placements: len(s.plan.Placements), Transfers: len(s.plan.Transfers),
	}
	if out.Initial != 0 {
		out.Reduction = 100 * (out.Initial - out.Final) / out.Initial
	}
	if s.boundSkipped() {
		// No time left for it under the time limit: left out.
	} else if cb, err := s.costBound(); err == nil {
		out.Bound = &cb.Cost
		if c := bounds.Captured(out.NoPlanning, out.Final, cb.Cost); !math.IsNaN(c) {
			out.Captured = &c
		}
	}
	if fb := s.fallback; fb != nil {
		out.Fallback = &fallbackJSON{Block: fb.Cause.Block, Timestep: fb.Cause.Timestep, Cause: fb.Cause.Error()}
		for _, fl := range fb.Levels {
			out.Fallback.Levels = append(out.Fallback.Levels, fallbackLevel{p.HW.Levels[fl.Level].Name, fl.Blocks, fl.Sent, fl.Peak, fl.Packings, fl.Nodes})
		}
	}
	for l, lv := range p.HW.Levels {
		t := rep.Levels[l]
		out.Levels = append(out.Levels, level{lv.Name, lv.Capacity, rep.PeakBytes[l], t.Reads, t.Writes, t.BytesIn, t.BytesOut,
			t.Traffic(), t.Time, pct(t.Time, rep.Total) / 100})
	}
	if r := s.search; r != nil {
		st := r.Search.Stats
		sj := &searchJSON{Status: r.Status.String(), Timesteps: st.Timesteps, Commits: st.Commits,
			Start: r.Initial.Start, StartCost: r.Initial.StartCost, Actions: map[string]action{},
			Replans: st.Replans, ReplanSteps: st.ReplanSteps,
			InitSeconds: r.Times.Initial.Seconds(), Seconds: r.Times.Search.Seconds()}
		if len(r.Initial.Walks) > 1 {
			for _, wk := range r.Initial.Walks {
				sj.Walks = append(sj.Walks, walkJSON{wk.Start, wk.StartCost, wk.Walked, wk.Cost})
			}
		}
		acts := s.settings.Search.WithDefaultsFor(r.Problem).Actions
		for k := actions.Kind(0); k < actions.NumKinds; k++ {
			if acts[k] {
				sj.Actions[k.String()] = action{st.Tried[k], st.Succeeded[k], st.Committed[k]}
			}
		}
		if s.settings.RepackBudget() > 0 {
			rp := repackStats(r)
			sj.Repack = &repackJSON{Candidates: rp.Candidates, Screened: rp.Screened, Packings: rp.Packings, Promoted: rp.Promoted,
				Inserted: rp.Inserted, Merged: rp.Merged, Unpacked: rp.Unpacked, Visits: rp.Visits, Cut: rp.Cut, Nodes: rp.Nodes, Gain: repackGain(r), Seconds: rp.Time.Seconds()}
		}
		out.Search = sj
	}
	if t := s.timing; t != nil {
		now := time.Now()
		tj := t.json(now)
		out.Times, out.Seconds = &tj, tj.Total
		out.Limit = t.limitJSON(s.boundSkipped())
	}
	data, err := marshalJSON(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// walkJSON is one of the search's walks in the JSON summary.
type walkJSON struct {
	Start     string  `json:"start"`
	StartCost float64 `json:"start_cost"`
	Walked    float64 `json:"walked_cost"`
	Cost      float64 `json:"cost"`
}

// describeWalks says where the search's walks started and ended (and
// where repacking took each), in the order walked, and which gave the
// plan (the cheapest, the earlier on a tie): "kind order 87368083.25 ->
// 28264270.25, repacked 27422809.88 (the plan); bound order 32309623.25 ->
// 30863030.25, repacked 30767641.25".
func describeWalks(ws []hieropt.Walked, plan string) string {
	// The bound order may have more than one walk (one per guide): the
	// plan's is the cheapest of its order's.
	best := -1
	for i, w := range ws {
		if w.Start == plan && (best < 0 || w.Cost < ws[best].Cost) {
			best = i
		}
	}
	var parts []string
	for i, w := range ws {
		d := fmt.Sprintf("%s order %s -> %s", w.Start, fmtCost(w.StartCost), fmtCost(w.Walked))
		if w.Cost != w.Walked {
			d += ", repacked " + fmtCost(w.Cost)
		}
		if i == best {
			d += " (the plan)"
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, "; ")
}
