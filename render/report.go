package render

import (
	"bufio"
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/hieropt/hieropt/bounds"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Report is what the HTML report shows.
type Report struct {
	Problem *state.Problem
	// Model prices both plans; nil means the default model (seed003).
	Model costmodel.Model
	// Initial is the initializer's plan (cost.initial); nil means Final.
	Initial *state.Layout
	// Final is the plan reported on (may equal Initial).
	Final *state.Layout
	// Planner is how Final was made, e.g. the plan's "planner" field.
	Planner string
	// Settings are name/value pairs shown as given (search settings,
	// status, statistics, times).
	Settings [][2]string
	// Version is hieropt's version.
	Version string
	// Status is how the planner that made Final ended ("converged", "time
	// limit", "cancelled"), with what the time limit cut if anything;
	// "" when it is not known (a plan read from a file).
	Status string
	// Bound, if not nil, is the lower bound on Final's cost under Model
	// (as 'hieropt bounds' computes it), shown at the top of the report.
	Bound *CostBound
}

// CostBound is a lower bound on a plan's cost and the cost of planning
// nothing, as package bounds computes them; How says how it was found.
// When Skipped is not "", there is no bound and Skipped says why.
type CostBound struct {
	Cost, None float64
	How        string
	Skipped    string
}

// The report's limits.
const (
	// ReportMaxBars is the most bars of the per-timestep cost chart:
	// longer programs are drawn a bucket of timesteps per bar.
	ReportMaxBars = 400
	// ReportTopBlocks is how many of the most expensive blocks are listed.
	ReportTopBlocks = 20
	// ReportMaxTransfers is the most transfers listed.
	ReportMaxTransfers = 500
	// reportTopSteps is how many of the most expensive timesteps are listed.
	reportTopSteps = 10
)

// Section ids of the report, in order: a test or a browser can look for
// them. ReportSections are those of a report under a model without a
// timeline (seed003, vela-dma); ReportTimelineSections those under the
// timeline model, whose report has the plans' timelines after their
// diagrams.
var (
	ReportSections         = []string{"summary", "diagrams", "time", "occupancy", "blocks", "transfers", "settings"}
	ReportTimelineSections = []string{"summary", "diagrams", "timeline", "time", "occupancy", "blocks", "transfers", "settings"}
)

// reportSectionNames are the sections' names in the report's navigation.
var reportSectionNames = map[string]string{
	"summary": "Summary", "diagrams": "Diagrams", "timeline": "Timeline", "time": "Where the time goes",
	"occupancy": "Occupancy", "blocks": "Blocks", "transfers": "Transfers", "settings": "Settings",
}

// ReportTimelineWidth is the width in pixels of the timeline drawing's
// plot in the report: a lane holds at most TimelineElementsPerColumn
// elements per pixel column, so the drawing's size is bounded whatever
// the program's length.
const ReportTimelineWidth = 960

// repLevelColors tell the levels apart in the charts (Okabe-Ito, then greys).
var repLevelColors = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#666666"}

func repLevelColor(l int) string { return repLevelColors[l%len(repLevelColors)] }

// reportTemplate is the report's HTML (report.tmpl).
//
//go:embed report.tmpl
var reportTemplate string

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"num":   num,
	"add":   func(a, b float64) float64 { return a + b },
	"bytes": Bytes,
	"cost":  repCost,
	"pct":   func(v float64) string { return fmt.Sprintf("%.1f%%", v) },
}).Parse(reportTemplate))

// text is user text (a name, a description, a setting) as the template
// "t" shows it: the pieces around each "://", which the template joins
// with the colon as a character reference. Empty text is nil.
type text []string

func txt(s string) text {
	if s == "" {
		return nil
	}
	return strings.Split(s, "://")
}

// WriteReport writes the HTML report of r: one self-contained HTML5
// document (inline CSS and SVG, one inline script that zooms the
// diagrams' time axis and that the report reads the same without, no
// external resources) that
// opens offline in any browser. Its sections have the ids of
// ReportSections. The output depends only on r.
func WriteReport(w io.Writer, r *Report) error {
	if r == nil || r.Problem == nil || r.Final == nil {
		return errors.New("render: a report needs a problem and a final plan")
	}
	g := &reportGen{r: r, p: r.Problem, model: r.Model, final: r.Final, initial: r.Initial}
	if g.model == nil {
		m, ok := costmodel.Lookup(costmodel.Default)
		if !ok {
			return fmt.Errorf("render: cost model %q is not registered", costmodel.Default)
		}
		g.model = m
	}
	if g.initial == nil {
		g.initial = g.final
	}
	if err := g.final.CheckComplete(g.p); err != nil {
		return fmt.Errorf("render: final plan: %w", err)
	}
	if err := g.initial.CheckComplete(g.p); err != nil {
		return fmt.Errorf("render: initial plan: %w", err)
	}
	g.same = g.initial == g.final || g.initial.Equal(g.final)
	g.prepare()
	data, err := g.data()
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := reportTmpl.Execute(bw, data); err != nil {
		return err
	}
	return bw.Flush()
}

// reportGen gathers what one report shows.
type reportGen struct {
	r              *Report
	p              *state.Problem
	model          costmodel.Model
	initial, final *state.Layout
	same           bool // one plan: Initial equals Final

	stats        workload.Stats
	repI, repF   *costmodel.Report
	stepLevel    [][]float64 // final plan: [t][l] time
	blockCostI   []float64
	blockCostF   []float64
	busyI, busyF [][]int64 // [l][t] busy bytes
	changed      int       // blocks placed differently in the two plans
	unit         string    // plural time unit
	placementsF  int
}

func (g *reportGen) prepare() {
	p := g.p
	g.stats = p.Prog.ComputeStats()
	g.repI = costmodel.Breakdown(g.model, p, g.initial)
	g.repF = costmodel.Breakdown(g.model, p, g.final)
	T, L := p.Prog.Timesteps(), p.Levels()
	g.stepLevel = make([][]float64, T)
	for t := range g.stepLevel {
		g.stepLevel[t] = make([]float64, L)
	}
	g.blockCostI = make([]float64, p.Blocks())
	g.blockCostF = make([]float64, p.Blocks())
	for b := range g.final.Segs {
		g.model.Charges(p, b, g.final.Segs[b], func(c costmodel.Charge) {
			g.stepLevel[c.Timestep][c.Level] += c.Time
		})
		g.blockCostF[b] = g.model.BlockCost(p, b, g.final.Segs[b])
		g.blockCostI[b] = g.model.BlockCost(p, b, g.initial.Segs[b])
		if !slices.Equal(g.final.Segs[b], g.initial.Segs[b]) {
			g.changed++
		}
		g.placementsF += len(g.final.Segs[b])
	}
	g.busyI = BusyBytes(p, g.initial)
	g.busyF = BusyBytes(p, g.final)
	g.unit = hw.Units(p.HW.TimeUnit)
}

// BusyBytes returns, per level and timestep, the bytes (footprints) busy
// in lay: a block that another block reuses at its last timestep is
// counted once for the shared space, as costmodel.PeakBytes does (whose
// result is the maximum over timesteps).
func BusyBytes(p *state.Problem, lay *state.Layout) [][]int64 {
	return costmodel.BusyBytes(p, lay)
}

// reportData is what the template shows, a field per section.
type reportData struct {
	Title, Subtitle, Version text
	Nav                      []navLink
	Summary                  summaryData
	Diagrams                 diagramsData
	Timeline                 *timelineData // nil unless the model has a timeline
	Time                     timeData
	Occupancy                occupancyData
	Blocks                   blocksData
	Transfers                transfersData
	Settings                 settingsData
}

type navLink struct{ ID, Name string }

// data gathers the template's data.
func (g *reportGen) data() (*reportData, error) {
	p := g.p
	title := fmt.Sprintf("hieropt report: %s on %s", p.Prog.Name, p.HW.Name)
	d := &reportData{
		Title: txt(title),
		Subtitle: txt(fmt.Sprintf("%d ops, %d blocks, %d levels; %s model; planner: %s",
			g.stats.Ops, g.stats.Blocks, p.Levels(), g.model.Name(), cmp.Or(g.r.Planner, "(not given)"))),
		Version:   txt(cmp.Or(g.r.Version, "(unknown version)")),
		Summary:   g.summary(),
		Time:      g.timeChart(),
		Occupancy: g.occupancy(),
		Blocks:    g.blocks(),
		Transfers: g.transfers(),
		Settings:  g.settings(),
	}
	ids := ReportSections
	if g.model.Timeline() {
		ids = ReportTimelineSections
	}
	for _, id := range ids {
		d.Nav = append(d.Nav, navLink{id, reportSectionNames[id]})
	}
	var err error
	if d.Diagrams, err = g.diagrams(); err != nil {
		return nil, err
	}
	if g.model.Timeline() {
		if d.Timeline, err = g.timeline(); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// summaryData: costs, reduction, lower bound, per-level table.
type summaryData struct {
	Workload, Hardware, TimeUnit, Model, Planner, Unit text
	Ops, Blocks, Levels                                int
	Cards                                              []card
	MaxLive, MaxLiveInPlace, Capacity                  int64
	MaxLiveAt                                          int
	MaxLiveOp                                          text
	Same                                               bool
	Changed, TransfersFinal, TransfersInitial          int
	Rows                                               []levelRow
	// Timeline: the model overlaps the levels' work (the times add up to
	// more than the plan's).
	Timeline bool
	// Outcome is the line at the top of the report: the planner's status
	// and the plan against the lower bound.
	Outcome outcome
}

// outcome is how the plan was made and how far it is from the bound.
type outcome struct {
	Status      text
	StatusClass string // " worse" unless converged
	Bound       text   // the bound's figures, or why there is none
	Gap         string // (final - bound) / bound, "" without a bound
	Captured    string // bounds.Captured, "" without a bound
}

// card is one figure of the summary; Class is "", " better" or " worse".
type card struct {
	Key, Title   text
	Value, Class string
}

// levelRow is one plan's figures for one level; Span, on the level's
// first row, is its number of rows.
type levelRow struct {
	Span                                       int
	Color                                      string
	Level                                      text
	Plan                                       string
	Capacity, Peak, BytesIn, BytesOut, Traffic int64
	PeakPct, Time, TimePct                     float64
	Reads, Writes, TransfersIn, TransfersOut   int
}

func (g *reportGen) summary() summaryData {
	p := g.p
	ci, cf := g.repI.Total, g.repF.Total
	s := summaryData{
		Workload: txt(p.Prog.Name), Hardware: txt(p.HW.Name), TimeUnit: txt(p.HW.TimeUnit), Model: txt(g.model.Name()),
		Planner: txt(cmp.Or(g.r.Planner, "(not given)")), Unit: txt(g.unit),
		Ops: g.stats.Ops, Blocks: g.stats.Blocks, Levels: p.Levels(),
		MaxLive: g.stats.MaxLive, MaxLiveInPlace: g.stats.MaxLiveInPlace, MaxLiveAt: g.stats.MaxLiveAt, MaxLiveOp: txt(g.opSuffix(g.stats.MaxLiveAt)),
		Same: g.same, Changed: g.changed, TransfersFinal: g.copies(g.final), TransfersInitial: g.copies(g.initial), Timeline: g.model.Timeline(),
	}
	add := func(key, val, cls, title string) {
		s.Cards = append(s.Cards, card{Key: txt(key), Value: val, Class: cls, Title: txt(title)})
	}
	add("final cost ("+g.unit+")", repCost(cf), "", fmt.Sprintf("%s %s", strconv.FormatFloat(cf, 'f', -1, 64), g.unit))
	if !g.same || ci != cf {
		add("initial cost ("+g.unit+")", repCost(ci), "", fmt.Sprintf("%s %s, the initializer's plan", strconv.FormatFloat(ci, 'f', -1, 64), g.unit))
	}
	red, cls := "no change", ""
	if ci != 0 && ci != cf {
		d := 100 * (ci - cf) / ci
		red = fmt.Sprintf("%.2f%%", d)
		if d > 0 {
			cls = " better"
		} else {
			cls = " worse"
		}
	}
	add("reduction", red, cls, "(initial - final) / initial")
	s.Outcome = g.outcome(cf)
	if g.r.Status != "" {
		add("status", g.r.Status, s.Outcome.StatusClass, "how the planner ended")
	}
	if s.Outcome.Gap != "" {
		add("above the lower bound", s.Outcome.Gap, "", "(final - bound) / bound; the plan captures "+s.Outcome.Captured+" of what planning can gain")
	}
	add("max-live lower bound", Bytes(g.stats.MaxLive), "", fmt.Sprintf("%d B at timestep %d", g.stats.MaxLive, g.stats.MaxLiveAt))
	add("transfers (final)", strconv.Itoa(g.copies(g.final)), "", "")
	add("placements (final)", strconv.Itoa(g.placementsF), "", "")
	for _, lv := range p.HW.Levels {
		s.Capacity += lv.Capacity
	}
	type planRep struct {
		name string
		rep  *costmodel.Report
	}
	plans := []planRep{{"initial", g.repI}, {"final", g.repF}}
	if g.same {
		plans = []planRep{{"initial = final", g.repF}}
	}
	for l, lv := range p.HW.Levels {
		for i, pr := range plans {
			t := pr.rep.Levels[l]
			row := levelRow{Color: repLevelColor(l), Level: txt(lv.Name), Plan: pr.name,
				Capacity: lv.Capacity, Peak: pr.rep.PeakBytes[l], PeakPct: repPct(float64(pr.rep.PeakBytes[l]), float64(lv.Capacity)),
				Reads: t.Reads, Writes: t.Writes, TransfersIn: t.TransfersIn, TransfersOut: t.TransfersOut,
				BytesIn: t.BytesIn, BytesOut: t.BytesOut, Traffic: t.Traffic(), Time: t.Time, TimePct: repPct(t.Time, pr.rep.Total)}
			if i == 0 {
				row.Span = len(plans)
			}
			s.Rows = append(s.Rows, row)
		}
	}
	return s
}

// outcome says how the planner ended and where the final plan (cost cf)
// stands against the bound: its gap above the bound and the share of
// what planning can gain it captures (bounds.Captured, as the summary
// and 'hieropt bounds --plan' print it).
func (g *reportGen) outcome(cf float64) outcome {
	var o outcome
	if st := g.r.Status; st == "" {
		o.Status = txt("not recorded in the plan ('hieropt optimize --report' records it)")
	} else {
		o.Status = txt(st)
		if !strings.HasPrefix(st, "converged") {
			o.StatusClass = " worse"
		}
	}
	b := g.r.Bound
	switch {
	case b == nil:
		o.Bound = txt("not computed")
	case b.Skipped != "":
		o.Bound = txt("not computed: " + b.Skipped)
	default:
		o.Bound = txt(fmt.Sprintf("%s %s (%s); planning nothing costs %s", repCost(b.Cost), g.unit, b.How, repCost(b.None)))
		if b.Cost > 0 {
			o.Gap = fmt.Sprintf("%.2f%%", 100*(cf-b.Cost)/b.Cost)
		}
		if c := bounds.Captured(b.None, cf, b.Cost); !math.IsNaN(c) {
			o.Captured = fmt.Sprintf("%.1f%%", 100*c)
		} else {
			o.Captured = "- (the bound leaves nothing to gain)"
		}
	}
	return o
}

// diagramsData: the time-space diagrams of both plans, side by side.
type diagramsData struct {
	Same           bool
	Initial, Final float64
	Unit           text
	// InFlight counts the copies in flight drawn (timeline model).
	InFlight int
	// SVG is the diagrams' drawing, by SVG.
	SVG template.HTML
	// OpNames is the ops' names in timestep order, one a line, for the
	// zoom's axis; "://" written ":/\u2060/" (a word joiner, which the
	// script takes out) so that the file holds no URL.
	OpNames string
}

func (g *reportGen) diagrams() (diagramsData, error) {
	d := diagramsData{Same: g.same, Initial: g.repI.Total, Final: g.repF.Total, Unit: txt(g.unit)}
	names := make([]string, len(g.p.Prog.Ops))
	for t, op := range g.p.Prog.Ops {
		names[t] = strings.ReplaceAll(repOneLine(op.Name), "://", ":/\u2060/")
	}
	d.OpNames = strings.Join(names, "\n")
	ds := []Diagram{{Title: "initial", Layout: g.initial}, {Title: "final", Layout: g.final}}
	o := Options{Zoomable: true} // the pair fits FitWidth
	if g.same {
		ds = []Diagram{{Title: "final", Layout: g.final}}
		o.Width = 960
	}
	for _, dg := range ds {
		d.InFlight += InFlight(dg.Layout)
	}
	var b strings.Builder
	if err := SVG(&b, g.p, ds, o); err != nil {
		return d, err
	}
	d.SVG = template.HTML(b.String()) // SVG writes SVG markup and escapes the text in it
	return d, nil
}

// timelineData: the timelines of both plans under the timeline model, one
// above the other on one time scale, and their totals.
type timelineData struct {
	Same       bool
	Unit       text
	Channels   []int // 0, 1, ...: the table's channel columns
	Rows       []timelineRow
	Aggregated bool // some lane is drawn a pixel column at a time
	// SVG is the drawing, by TimelinesSVG.
	SVG template.HTML
}

// timelineRow is one plan's totals on the timeline.
type timelineRow struct {
	Plan                                string
	Total, Compute, Memory, Busy, Stall float64
	StallPct                            float64
	Stalled, Copies                     int
	PerChannel                          []channelRow
}

// channelRow is one DMA channel's copies and transfer time in one plan.
type channelRow struct {
	Copies      int
	Busy, Share float64
}

func (g *reportGen) timeline() (*timelineData, error) {
	type planRep struct {
		name string
		rep  *costmodel.Report
	}
	plans := []planRep{{"initial", g.repI}, {"final", g.repF}}
	if g.same {
		plans = []planRep{{"initial = final", g.repF}}
	}
	C := g.p.HW.Channels()
	d := &timelineData{Same: g.same, Unit: txt(g.unit)}
	for c := range C {
		d.Channels = append(d.Channels, c)
	}
	var runs []*Timeline
	for _, pr := range plans {
		tl, err := PlanTimeline(g.p, pr.name, pr.rep)
		if err != nil {
			return nil, err
		}
		runs = append(runs, tl)
		row := timelineRow{Plan: pr.name, Total: tl.Trace.Cost, Copies: len(tl.Trace.Copies), PerChannel: make([]channelRow, C)}
		for i := range tl.Trace.Ops {
			op := &tl.Trace.Ops[i]
			row.Compute += op.Compute
			row.Memory += op.Memory
			row.Busy += op.End - op.Begin
			row.Stall += op.Stall
			if op.Stall > 0 {
				row.Stalled++
			}
		}
		row.StallPct = repPct(row.Stall, row.Total)
		perChan := make([]int, C)
		for i := range tl.Trace.Copies {
			cp := &tl.Trace.Copies[i]
			ch := &row.PerChannel[cp.Channel]
			ch.Copies++
			ch.Busy += cp.End - cp.Begin
			perChan[cp.Channel]++
		}
		for c := range row.PerChannel {
			row.PerChannel[c].Share = repPct(row.PerChannel[c].Busy, row.Total)
		}
		if len(tl.Trace.Ops) > ReportTimelineWidth || slices.Max(perChan) > ReportTimelineWidth {
			d.Aggregated = true
		}
		d.Rows = append(d.Rows, row)
	}
	var b strings.Builder
	if err := TimelinesSVG(&b, runs, TimelineOptions{Width: ReportTimelineWidth}); err != nil {
		return nil, err
	}
	d.SVG = template.HTML(b.String()) // TimelinesSVG writes SVG markup and escapes the text in it
	return d, nil
}

// chartFrame is a chart's size and plot area: the plot spans [X, X+PW]
// by [Y, Y+PH] in an SVG of W by H.
type chartFrame struct {
	W, H, X, Y, PW, PH float64
	Grid               []gridLine
	Axis               timeAxis
}

// gridLine is a horizontal line of a chart's grid at Y, labelled.
type gridLine struct {
	Y     float64
	Label string
}

// timeAxis is the timestep ticks under a plot that ends at Right, whose
// bottom is at Y.
type timeAxis struct {
	Y, Right float64
	Ticks    []axisTick
}

type axisTick struct {
	X float64
	T int
}

// newTimeAxis places timestep ticks under a plot of width pw starting at
// x0, whose bottom is at y0.
func newTimeAxis(x0, pw, y0 float64, T int) timeAxis {
	a := timeAxis{Y: y0, Right: x0 + pw}
	step := tickStep(float64(T), 12)
	for t := 0.0; t <= float64(T); t += step {
		a.Ticks = append(a.Ticks, axisTick{X: x0 + pw*t/float64(T), T: int(t)})
	}
	return a
}

// timeData: the cost per timestep (or bucket of timesteps), stacked by
// level, for the final plan; the initial plan's total as a line; the most
// expensive timesteps.
type timeData struct {
	chartFrame
	Same bool
	Per  string
	Keys []levelKey
	Unit text
	Mid  float64 // where the unit is written, rotated, along the y axis
	Bars []bar
	// Initial is the path of the initial plan's line ("" when the plans
	// are the same).
	Initial string
	Steps   []stepRow
	// Timeline: the bars are the work of the steps, not their time in
	// the run.
	Timeline bool
}

type levelKey struct {
	Color string
	Name  text
}

// bar is one bar of the time chart: a rectangle per level.
type bar struct {
	Title text
	Rects []barRect
}

type barRect struct {
	X, Y, W, H float64
	Color      string
}

type stepRow struct {
	T                        int
	Op                       text
	Cost, Share, Initial     float64
	Reads, Writes, Transfers int
	Bytes, Moved             int64
}

func (g *reportGen) timeChart() timeData {
	p := g.p
	T, L := p.Prog.Timesteps(), p.Levels()
	k := (T + ReportMaxBars - 1) / ReportMaxBars
	nb := (T + k - 1) / k
	levels, totF, totI := g.buckets(k, nb)
	ymax := 0.0
	for i := range totF {
		ymax = max(ymax, totF[i])
		if !g.same {
			ymax = max(ymax, totI[i])
		}
	}
	d := timeData{Same: g.same, Per: "timestep", Unit: txt(g.unit), Timeline: g.model.Timeline()}
	if k > 1 {
		d.Per = fmt.Sprintf("bucket of %d timesteps", k)
	}
	for l, lv := range p.HW.Levels {
		d.Keys = append(d.Keys, levelKey{repLevelColor(l), txt(lv.Name)})
	}
	const (
		ml, mr, mt, mb = 72.0, 12.0, 10.0, 34.0
		pw, ph         = 960.0, 220.0
	)
	d.chartFrame = chartFrame{W: ml + pw + mr, H: mt + ph + mb, X: ml, Y: mt, PW: pw, PH: ph, Axis: newTimeAxis(ml, pw, mt+ph, T)}
	d.Mid = mt + ph/2
	if ymax <= 0 {
		ymax = 1
	}
	step := repStep(ymax, 5)
	top := math.Ceil(ymax/step-1e-9) * step
	y := func(v float64) float64 { return mt + ph*(1-v/top) }
	bw := pw / float64(nb)
	for i := 0.0; i*step <= top*1.0001; i++ {
		v := i * step
		d.Grid = append(d.Grid, gridLine{y(v), repCompact(v)})
	}
	gap := 0.0
	if bw >= 3 {
		gap = math.Min(1, bw/4)
	}
	for i := 0; i < nb; i++ {
		t0, t1 := i*k, min((i+1)*k, T)-1
		b := bar{Title: txt(g.barTitle(t0, t1, levels[i], totF[i], totI[i]))}
		acc := 0.0
		x := ml + float64(i)*bw
		for l := 0; l < L; l++ {
			v := levels[i][l]
			if v <= 0 {
				continue
			}
			y0, y1 := y(acc+v), y(acc)
			b.Rects = append(b.Rects, barRect{X: x + gap/2, Y: y0, W: math.Max(bw-gap, 0.3), H: math.Max(y1-y0, 0.3), Color: repLevelColor(l)})
			acc += v
		}
		d.Bars = append(d.Bars, b)
	}
	if !g.same {
		d.Initial = stepLine(totI, ml, bw, y)
	}
	d.Steps = g.topSteps()
	return d
}

// buckets adds the final plan's cost up per bucket of k timesteps (nb of
// them): per level, and in all for each plan.
func (g *reportGen) buckets(k, nb int) (levels [][]float64, totF, totI []float64) {
	L := g.p.Levels()
	levels = make([][]float64, nb) // [bar][level]
	totF = make([]float64, nb)
	totI = make([]float64, nb)
	for t := range g.p.Prog.Timesteps() {
		i := t / k
		if levels[i] == nil {
			levels[i] = make([]float64, L)
		}
		for l := 0; l < L; l++ {
			levels[i][l] += g.stepLevel[t][l]
		}
		totF[i] += g.repF.Steps[t].Time
		totI[i] += g.repI.Steps[t].Time
	}
	return levels, totF, totI
}

// stepLine is the path of a step line through vs, value i drawn from
// x0+i*w to x0+(i+1)*w at height y(vs[i]).
func stepLine(vs []float64, x0, w float64, y func(float64) float64) string {
	var path strings.Builder
	for i, v := range vs {
		x, yy := x0+float64(i)*w, num(y(v))
		if i == 0 {
			fmt.Fprintf(&path, "M%s %s", num(x), yy)
		} else {
			fmt.Fprintf(&path, "V%s", yy)
		}
		fmt.Fprintf(&path, "H%s", num(x+w))
	}
	return path.String()
}

// topSteps returns the most expensive timesteps of the final plan.
func (g *reportGen) topSteps() []stepRow {
	p := g.p
	T := p.Prog.Timesteps()
	steps := make([]int, T)
	for t := range steps {
		steps[t] = t
	}
	slices.SortStableFunc(steps, func(a, b int) int { return cmp.Compare(g.repF.Steps[b].Time, g.repF.Steps[a].Time) })
	var rows []stepRow
	for _, t := range steps[:min(reportTopSteps, T)] {
		s := g.repF.Steps[t]
		op := p.Prog.Ops[t]
		name := op.Name
		if op.Type != "" {
			name += " (" + op.Type + ")"
		}
		rows = append(rows, stepRow{T: t, Op: txt(name), Cost: s.Time, Share: repPct(s.Time, g.repF.Total), Initial: g.repI.Steps[t].Time,
			Reads: s.Reads, Writes: s.Writes, Transfers: s.Transfers, Bytes: s.Bytes, Moved: s.BytesMoved})
	}
	return rows
}

func (g *reportGen) barTitle(t0, t1 int, levels []float64, totF, totI float64) string {
	var b strings.Builder
	if t0 == t1 {
		fmt.Fprintf(&b, "timestep %d%s", t0, g.opSuffix(t0))
	} else {
		fmt.Fprintf(&b, "timesteps %d–%d", t0, t1)
	}
	fmt.Fprintf(&b, ": %s %s (%.1f%% of the plan)", repCost(totF), g.unit, repPct(totF, g.repF.Total))
	for l, lv := range g.p.HW.Levels {
		if levels[l] > 0 {
			fmt.Fprintf(&b, "\n  %s: %s", lv.Name, repCost(levels[l]))
		}
	}
	if !g.same {
		fmt.Fprintf(&b, "\ninitial plan: %s", repCost(totI))
	}
	return b.String()
}

// opSuffix names the op of timestep t: " (conv1)".
func (g *reportGen) opSuffix(t int) string {
	if t < 0 || t >= len(g.p.Prog.Ops) {
		return ""
	}
	return " (" + g.p.Prog.Ops[t].Name + ")"
}

// occupancyData: per level, the bytes busy at each timestep of the final
// plan.
type occupancyData struct {
	Same   bool
	Levels []occupancyLevel
}

type occupancyLevel struct {
	chartFrame
	Name  text
	Color string
	// Final and Initial are the paths of the plans' busy bytes (Initial
	// "" when the plans are the same), with their titles.
	Final, Initial           string
	FinalTitle, InitialTitle text
	// CapacityShown says whether the capacity is in the drawn range, at
	// CapacityY; Capacity is its label.
	CapacityShown bool
	CapacityY     float64
	Capacity      string
	Peak          int64
	PeakPct       float64
	PeakAt        int
}

func (g *reportGen) occupancy() occupancyData {
	d := occupancyData{Same: g.same}
	for l := range g.p.HW.Levels {
		d.Levels = append(d.Levels, g.occupancyLevel(l))
	}
	return d
}

// occupancyLevel is the occupancy chart of level l.
func (g *reportGen) occupancyLevel(l int) occupancyLevel {
	p := g.p
	T := p.Prog.Timesteps()
	lv := p.HW.Levels[l]
	const (
		ml, mr, mt, mb = 72.0, 12.0, 22.0, 34.0
		pw, ph         = 960.0, 130.0
	)
	peakF, peakAt := int64(0), 0
	for t, v := range g.busyF[l] {
		if v > peakF {
			peakF, peakAt = v, t
		}
	}
	peakI := int64(0)
	for _, v := range g.busyI[l] {
		peakI = max(peakI, v)
	}
	used := float64(max(peakF, peakI))
	capacity := float64(lv.Capacity)
	top := capacity
	if used > 0 && capacity > 2*used {
		top = niceCeil(used * 1.1)
	}
	y := func(v float64) float64 { return mt + ph*(1-v/top) }
	x := func(t int) float64 { return ml + pw*float64(t)/float64(T) }
	d := occupancyLevel{
		chartFrame: chartFrame{W: ml + pw + mr, H: mt + ph + mb, X: ml, Y: mt, PW: pw, PH: ph, Axis: newTimeAxis(ml, pw, mt+ph, T)},
		Name:       txt(lv.Name), Color: repLevelColor(l),
		FinalTitle:    txt(fmt.Sprintf("final plan: peak %s (%d B) at timestep %d%s", Bytes(peakF), peakF, peakAt, g.opSuffix(peakAt))),
		CapacityShown: capacity <= top, CapacityY: y(capacity), Capacity: bytesLabel(lv.Capacity),
		Peak: peakF, PeakPct: repPct(float64(peakF), capacity), PeakAt: peakAt,
	}
	for _, v := range ticks(top, 4) {
		d.Grid = append(d.Grid, gridLine{y(v), bytesLabel(int64(v))})
	}
	// The final plan: a filled step area; a program longer than the
	// chart's pixel columns is drawn a column at a time, at the most
	// bytes busy in the column (peaks are kept).
	steps := occupancySteps(T, int(pw))
	var path strings.Builder
	fmt.Fprintf(&path, "M%s %s", num(x(0)), num(y(0)))
	for _, st := range steps {
		fmt.Fprintf(&path, "V%sH%s", num(y(float64(slices.Max(g.busyF[l][st[0]:st[1]])))), num(x(st[1])))
	}
	fmt.Fprintf(&path, "V%sZ", num(y(0)))
	d.Final = path.String()
	if !g.same {
		path.Reset()
		for i, st := range steps {
			yy := num(y(float64(slices.Max(g.busyI[l][st[0]:st[1]]))))
			if i == 0 {
				fmt.Fprintf(&path, "M%s %s", num(x(0)), yy)
			} else {
				fmt.Fprintf(&path, "V%s", yy)
			}
			fmt.Fprintf(&path, "H%s", num(x(st[1])))
		}
		d.Initial = path.String()
		d.InitialTitle = txt(fmt.Sprintf("initial plan: peak %s (%d B)", Bytes(peakI), peakI))
	}
	return d
}

// occupancySteps cuts timesteps [0, T) into the steps of an occupancy
// chart of cols pixel columns: one per timestep when T <= cols, else one
// per column, [start, end) each.
func occupancySteps(T, cols int) [][2]int {
	n := min(T, cols)
	out := make([][2]int, 0, n)
	for k := range n {
		a, b := k*T/n, (k+1)*T/n
		if b > a {
			out = append(out, [2]int{a, b})
		}
	}
	return out
}

// blocksData: the most expensive blocks of the final plan.
type blocksData struct {
	Same   bool
	Blocks int
	Rows   []blockRow
}

type blockRow struct {
	N             int
	Name, Places  text
	Color, Kind   string
	Size          int64
	First, Last   int
	Reads, Writes int
	Cost, Share   float64
	InitialCost   float64
	InitialPlaces text
}

func (g *reportGen) blocks() blocksData {
	p := g.p
	ids := make([]int, p.Blocks())
	for b := range ids {
		ids[b] = b
	}
	slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(g.blockCostF[b], g.blockCostF[a]) })
	d := blocksData{Same: g.same, Blocks: p.Blocks()}
	for i, b := range ids[:min(ReportTopBlocks, len(ids))] {
		blk := p.Block(b)
		d.Rows = append(d.Rows, blockRow{N: i + 1, Name: txt(blk.Name), Color: repKindColor(blk.Kind), Kind: blk.Kind.String(),
			Size: blk.Size, First: blk.First, Last: blk.Last, Reads: len(blk.Reads), Writes: len(blk.Writes),
			Places: txt(g.placesPlain(b, g.final)), Cost: g.blockCostF[b], Share: repPct(g.blockCostF[b], g.repF.Total),
			InitialCost: g.blockCostI[b], InitialPlaces: txt(strings.ReplaceAll(g.placesPlain(b, g.initial), "\u00a0", " "))})
	}
	return d
}

func repKindColor(k workload.Kind) string {
	if c, ok := kindColor[k]; ok {
		return c
	}
	return "#999"
}

// placesPlain lists where block b sits in lay: "SRAM @ 0 [3–10] → ...".
func (g *reportGen) placesPlain(b int, lay *state.Layout) string {
	segs := lay.Segs[b]
	blk := g.p.Block(b)
	const most = 6
	var parts []string
	for i, s := range segs {
		if i == most-1 && len(segs) > most {
			parts = append(parts, fmt.Sprintf("… %d more", len(segs)-i))
			break
		}
		to := blk.Last
		if i+1 < len(segs) {
			to = int(segs[i+1].From) - 1
		}
		parts = append(parts, fmt.Sprintf("%s\u00a0@\u00a0%d [%d–%d]", g.p.HW.Levels[s.Level].Name, s.Offset, s.From, to))
	}
	return strings.Join(parts, " → ")
}

// copies counts the transfers of lay as its plan document lists them:
// under the timeline model, the loads of constants too.
func (g *reportGen) copies(lay *state.Layout) int {
	n := lay.Transfers()
	for b, segs := range lay.Segs {
		if len(segs) > 0 && isLoad(g.p, b, segs[0]) {
			n++
		}
	}
	return n
}

// repXfer is one transfer of a plan; a load (the timeline model) comes
// from its block's home level, where it has no address (from.Offset 0).
type repXfer struct {
	t, b     int
	from, to state.Seg
	load     bool
	bytes    int64
	cost     float64
}

// transfersData: every transfer of the final plan (up to
// ReportMaxTransfers), by timestep then block.
type transfersData struct {
	Unit        text
	Count       int
	Cost, Share float64
	// Timeline: the model overlaps copies with ops; the list shows their
	// starts, and Loads and Early count the loads and the copies issued
	// before their timestep.
	Timeline     bool
	Loads, Early int
	Rows         []transferRow
	// Hidden transfers, costing HiddenCost, are past the list's end.
	Hidden     int
	HiddenCost float64
}

type transferRow struct {
	T, Start             int
	Op, Block, From, To  text
	FromOffset, ToOffset int64
	Load                 bool
	Bytes                int64
	Cost                 float64
}

func (g *reportGen) transfers() transfersData {
	p := g.p
	xs := g.transferList()
	d := transfersData{Unit: txt(g.unit), Count: len(xs), Timeline: g.model.Timeline()}
	for _, x := range xs {
		d.Cost += x.cost
		if x.load {
			d.Loads++
		}
		if x.to.Lead > 0 {
			d.Early++
		}
	}
	d.Share = repPct(d.Cost, g.repF.Total)
	shown := min(len(xs), ReportMaxTransfers)
	lv := p.HW.Levels
	for _, x := range xs[:shown] {
		d.Rows = append(d.Rows, transferRow{T: x.t, Start: int(x.to.Start()), Op: txt(strings.TrimPrefix(g.opSuffix(x.t), " ")), Block: txt(p.Block(x.b).Name),
			From: txt(lv[x.from.Level].Name), FromOffset: x.from.Offset, To: txt(lv[x.to.Level].Name), ToOffset: x.to.Offset,
			Load: x.load, Bytes: x.bytes, Cost: x.cost})
	}
	for _, x := range xs[shown:] {
		d.Hidden++
		d.HiddenCost += x.cost
	}
	return d
}

// transferList returns the transfers of the final plan by timestep then
// block, each priced from the model's charges.
func (g *reportGen) transferList() []repXfer {
	p := g.p
	var xs []repXfer
	for b, segs := range g.final.Segs {
		load := len(segs) > 0 && isLoad(p, b, segs[0])
		if len(segs) < 2 && !load {
			continue
		}
		first := len(xs)
		if load {
			xs = append(xs, repXfer{t: int(segs[0].From), b: b, from: state.Seg{Level: int32(p.Home(b))}, to: segs[0], load: true, bytes: p.Block(b).Size})
		}
		for i := 1; i < len(segs); i++ {
			xs = append(xs, repXfer{t: int(segs[i].From), b: b, from: segs[i-1], to: segs[i], bytes: p.Block(b).Size})
		}
		mine := xs[first:]
		g.model.Charges(p, b, segs, func(c costmodel.Charge) {
			if c.Kind != costmodel.TransferIn && c.Kind != costmodel.TransferOut {
				return
			}
			for j := range mine {
				if mine[j].t == c.Timestep {
					mine[j].cost += c.Time
					if c.Kind == costmodel.TransferIn {
						mine[j].bytes = c.Bytes
					}
					break
				}
			}
		})
	}
	slices.SortStableFunc(xs, func(a, b repXfer) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.b, b.b)
	})
	return xs
}

// settingsData: the settings and versions used, and the hardware profile.
type settingsData struct {
	Rows     []settingRow
	TimeUnit text
	Levels   []profileLevel
}

// settingRow is a setting; a long text (a source, a description) folds
// away in Detail (no script: <details>).
type settingRow struct {
	Key, Value text
	Detail     *settingDetail
}

type settingDetail struct {
	Label string
	Text  text
}

type profileLevel struct {
	Color                                            string
	Name                                             text
	Capacity, Alignment                              int64
	InLatency, InBandwidth, OutLatency, OutBandwidth string
}

func (g *reportGen) settings() settingsData {
	p := g.p
	d := settingsData{TimeUnit: txt(p.HW.TimeUnit)}
	row := func(k, v string) { d.Rows = append(d.Rows, settingRow{Key: txt(k), Value: txt(v)}) }
	long := func(k, name, label, text string) {
		r := settingRow{Key: txt(k), Value: txt(name)}
		if text != "" {
			r.Detail = &settingDetail{Label: label, Text: txt(repOneLine(text))}
		}
		d.Rows = append(d.Rows, r)
	}
	long("workload", p.Prog.Name, "source", p.Prog.Source)
	long("hardware profile", p.HW.Name, "description", p.HW.Description)
	row("time unit", p.HW.TimeUnit)
	row("planner", cmp.Or(g.r.Planner, "(not given)"))
	row("cost model", g.model.Name()+": "+g.model.Doc())
	for _, kv := range g.r.Settings {
		row(kv[0], kv[1])
	}
	row("hieropt version", cmp.Or(g.r.Version, "(unknown)"))
	row("Go", runtime.Version())
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for l, lv := range p.HW.Levels {
		d.Levels = append(d.Levels, profileLevel{Color: repLevelColor(l), Name: txt(lv.Name), Capacity: lv.Capacity, Alignment: lv.Alignment,
			InLatency: f(lv.In.Latency), InBandwidth: f(lv.In.Bandwidth), OutLatency: f(lv.Out.Latency), OutBandwidth: f(lv.Out.Bandwidth)})
	}
	return d
}

// Bytes prints a byte count in binary units with one decimal, exact
// below 1 KiB: 512 B, 1.5 KiB, 4.0 MiB. The report and the command line's
// summaries print bytes with it.
func Bytes(n int64) string {
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

// repCost prints a cost with two decimals and thousands separators.
func repCost(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	b.WriteByte('.')
	b.WriteString(frac)
	return b.String()
}

// repCompact prints an axis value: 950, 1.5k, 12M, 3G.
func repCompact(v float64) string {
	for _, u := range []struct {
		f float64
		s string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if math.Abs(v) >= u.f {
			return strconv.FormatFloat(v/u.f, 'f', -1, 64) + u.s
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// repStep returns a step of 1, 2 or 5 times a power of ten that cuts
// [0, top] into about n parts (at most n).
func repStep(top float64, n int) float64 {
	raw := top / float64(n)
	e := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if m*e >= raw {
			return m * e
		}
	}
	return 10 * e
}

func repPct(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * a / b
}

// repOneLine folds whitespace, newlines included.
func repOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
