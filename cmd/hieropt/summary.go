package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/search"
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
	search   *search.Result
	settings *search.Settings
}

func (s *summary) write(w io.Writer) {
	p := s.p
	st := p.Prog.ComputeStats()
	rep := costmodel.Breakdown(s.model, p, s.lay)
	unit := p.HW.TimeUnit + "s"
	fmt.Fprintf(w, "%s on %s: %d ops, %d blocks, %s\n", p.Prog.Name, p.HW.Name, st.Ops, st.Blocks, plural(p.Levels(), "level"))
	fmt.Fprintf(w, "planner    %s\n", s.planner)
	fmt.Fprintf(w, "cost       %s %s (%s model)", fmtCost(s.plan.Cost.Final), unit, s.model.Name())
	if s.plan.Cost.Initial != s.plan.Cost.Final {
		fmt.Fprintf(w, "; initial %s, %s", fmtCost(s.plan.Cost.Initial), fmtReduction(s.plan.Cost.Initial, s.plan.Cost.Final))
	}
	fmt.Fprintln(w)
	var total int64
	for _, lv := range p.HW.Levels {
		total += lv.Capacity
	}
	fmt.Fprintf(w, "max-live   %d B (in-place aware %d B) at timestep %d: no plan keeps fewer bytes live; the levels hold %s\n",
		st.MaxLive, st.MaxLiveInPlace, st.MaxLiveAt, fmtBytes(total))
	width := len("level")
	for _, lv := range p.HW.Levels {
		width = max(width, len(lv.Name))
	}
	fmt.Fprintf(w, "bound      %s\n", boundLine(p, s.model, s.plan.Cost.Final))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tcapacity\tpeak\tpeak %%\treads\twrites\tmoved in\tmoved out\ttraffic\ttime\ttime %%\t\n", width, "level")
	for l, lv := range p.HW.Levels {
		t := rep.Levels[l]
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%.1f%%\t%d\t%d\t%s\t%s\t%s\t%s\t%.1f%%\t\n", width, lv.Name,
			fmtBytes(lv.Capacity), fmtBytes(rep.PeakBytes[l]), pct(float64(rep.PeakBytes[l]), float64(lv.Capacity)),
			t.Reads, t.Writes, fmtBytes(t.BytesIn), fmtBytes(t.BytesOut), fmtBytes(t.Traffic()),
			fmtCost(t.Time), pct(t.Time, rep.Total))
	}
	tw.Flush()
	if r := s.search; r != nil {
		st := r.Stats
		if st.Start != actions.WorkloadOrder {
			fmt.Fprintf(w, "start      the initializer in %s order: %s %s (%s)\n", st.Start, fmtCost(st.StartCost), unit, fmtReduction(r.InitialCost, st.StartCost))
		}
		fmt.Fprintf(w, "search     %s after %d of %d timesteps; %d segments committed\n", r.Status, st.Timesteps, p.Prog.Timesteps(), st.Commits)
		fmt.Fprintf(w, "actions    tried/candidates/committed:")
		for k := actions.Kind(0); k < actions.NumKinds; k++ {
			if s.settings.Actions[k] {
				fmt.Fprintf(w, " %s %d/%d/%d", k, st.Tried[k], st.Succeeded[k], st.Committed[k])
			}
		}
		fmt.Fprintf(w, "; %d re-plans, %d timesteps re-planned\n", st.Replans, st.ReplanSteps)
		fmt.Fprintf(w, "time       %s (initializer %s, search %s)\n", s.elapsed.Round(time.Microsecond),
			st.InitTime.Round(time.Microsecond), st.SearchTime.Round(time.Microsecond))
	} else {
		fmt.Fprintf(w, "time       %s\n", s.elapsed.Round(time.Microsecond))
	}
	where := "not written (use -o FILE, or -o - for stdout)"
	if s.output == "-" {
		where = "written to stdout"
	} else if s.output != "" {
		where = s.output
	}
	fmt.Fprintf(w, "plan       %s: %d placements, %d transfers, valid\n", where, len(s.plan.Placements), len(s.plan.Transfers))
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

// fmtBytes prints a byte count in binary units, exact below 1 KiB.
func fmtBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}
