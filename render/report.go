package render

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

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
// them.
var ReportSections = []string{"summary", "diagrams", "time", "occupancy", "blocks", "transfers", "settings"}

// repLevelColors tell the levels apart in the charts (Okabe-Ito, then greys).
var repLevelColors = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#666666"}

func repLevelColor(l int) string { return repLevelColors[l%len(repLevelColors)] }

// WriteReport writes the HTML report of r: one self-contained HTML5
// document (inline CSS and SVG, no scripts, no external resources) that
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
	g.bw = bufio.NewWriterSize(w, 1<<16)
	g.write()
	if g.err != nil {
		return g.err
	}
	return g.bw.Flush()
}

// reportGen writes one report.
type reportGen struct {
	r              *Report
	p              *state.Problem
	model          costmodel.Model
	initial, final *state.Layout
	same           bool // one plan: Initial equals Final
	bw             *bufio.Writer
	err            error

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

func (g *reportGen) printf(format string, args ...any) {
	if g.err == nil {
		_, g.err = fmt.Fprintf(g.bw, format, args...)
	}
}

func (g *reportGen) str(s string) {
	if g.err == nil {
		_, g.err = g.bw.WriteString(s)
	}
}

const reportCSS = `:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans","Liberation Sans",sans-serif;font-size:14px;line-height:1.45;color:#1f2328;background:#fff}
header{padding:18px 28px 10px;border-bottom:1px solid #d8dee4;background:#f6f8fa}
header h1{font-size:21px;margin:0 0 2px}
header p{margin:0;color:#59636e}
nav{margin-top:8px}
nav a{margin-right:16px;color:#0969da;text-decoration:none}
nav a:hover{text-decoration:underline}
main{padding:4px 28px 40px}
section{margin:26px 0 0}
h2{font-size:18px;margin:0 0 10px;padding-bottom:4px;border-bottom:1px solid #d8dee4}
h3{font-size:15px;margin:16px 0 6px}
p{margin:6px 0}
.note{color:#59636e;font-size:13px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
th,td{border:1px solid #d8dee4;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
tbody tr:nth-child(even) td{background:#fbfcfd}
.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.nm{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:12px;word-break:break-all}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0 12px}
.card{border:1px solid #d8dee4;border-radius:6px;padding:8px 14px;min-width:160px;background:#fff}
.card .v{font-size:19px;font-weight:600;font-variant-numeric:tabular-nums}
.card .k{font-size:12px;color:#59636e}
.better{color:#1a7f37}.worse{color:#cf222e}
.wide{overflow-x:auto;max-width:100%;border:1px solid #eaeef2;border-radius:6px;padding:6px;margin:8px 0}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.keys span{margin-right:14px;white-space:nowrap}
footer{padding:14px 28px;border-top:1px solid #d8dee4;color:#59636e;font-size:12px}
#diagrams svg{max-width:100%;height:auto;display:block}
details{margin-top:4px;font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;font-size:12px;color:#59636e;word-break:normal}
details summary{cursor:pointer;color:#0969da}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
`

func (g *reportGen) write() {
	p := g.p
	title := fmt.Sprintf("hieropt report: %s on %s", p.Prog.Name, p.HW.Name)
	g.str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	g.str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	g.str("<link rel=\"icon\" href=\"data:,\">\n")
	g.printf("<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n", escHTML(title), reportCSS)
	g.printf("<header><h1>%s</h1><p>%s</p><nav>", escHTML(title),
		escHTML(fmt.Sprintf("%d ops, %d blocks, %d levels; %s model; planner: %s", g.stats.Ops, g.stats.Blocks, p.Levels(), g.model.Name(), cmp.Or(g.r.Planner, "(not given)"))))
	names := []string{"Summary", "Diagrams", "Where the time goes", "Occupancy", "Blocks", "Transfers", "Settings"}
	for i, id := range ReportSections {
		g.printf(`<a href="#%s">%s</a>`, id, names[i])
	}
	g.str("</nav></header>\n<main>\n")
	g.summary()
	g.diagrams()
	g.timeChart()
	g.occupancy()
	g.blocks()
	g.transfers()
	g.settings()
	g.str("</main>\n")
	g.printf("<footer>Written by hieropt %s. Self-contained: no scripts, no fonts, nothing loaded from the network.</footer>\n", escHTML(cmp.Or(g.r.Version, "(unknown version)")))
	g.str("</body>\n</html>\n")
}

// summary: costs, reduction, lower bound, per-level table.
func (g *reportGen) summary() {
	p := g.p
	ci, cf := g.repI.Total, g.repF.Total
	g.str("<section id=\"summary\">\n<h2>Summary</h2>\n")
	g.printf("<p><b>%s</b> (%d ops, %d blocks) on <b>%s</b> (%d levels, %s); %s model; planner: %s.</p>\n",
		escHTML(p.Prog.Name), g.stats.Ops, g.stats.Blocks, escHTML(p.HW.Name), p.Levels(), escHTML(p.HW.TimeUnit),
		escHTML(g.model.Name()), escHTML(cmp.Or(g.r.Planner, "(not given)")))
	g.str("<div class=\"cards\">\n")
	card := func(key, val, cls, title string) {
		g.printf(`<div class="card"%s><div class="k">%s</div><div class="v%s">%s</div></div>`+"\n",
			repTitle(title), escHTML(key), cls, escHTML(val))
	}
	card("final cost ("+g.unit+")", repCost(cf), "", fmt.Sprintf("%s %s", strconv.FormatFloat(cf, 'f', -1, 64), g.unit))
	if !g.same || ci != cf {
		card("initial cost ("+g.unit+")", repCost(ci), "", fmt.Sprintf("%s %s, the initializer's plan", strconv.FormatFloat(ci, 'f', -1, 64), g.unit))
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
	card("reduction", red, cls, "(initial - final) / initial")
	card("max-live lower bound", repBytes(g.stats.MaxLive), "", fmt.Sprintf("%d B at timestep %d", g.stats.MaxLive, g.stats.MaxLiveAt))
	card("transfers (final)", strconv.Itoa(g.final.Transfers()), "", "")
	card("placements (final)", strconv.Itoa(g.placementsF), "", "")
	g.str("</div>\n")
	var total int64
	for _, lv := range p.HW.Levels {
		total += lv.Capacity
	}
	g.printf("<p>Max-live: %s (%d B; in-place aware %s, %d B) at timestep %d%s: no plan keeps fewer bytes live. The levels hold %s in all.</p>\n",
		escHTML(repBytes(g.stats.MaxLive)), g.stats.MaxLive, escHTML(repBytes(g.stats.MaxLiveInPlace)), g.stats.MaxLiveInPlace,
		g.stats.MaxLiveAt, escHTML(g.opSuffix(g.stats.MaxLiveAt)), escHTML(repBytes(total)))
	if g.same {
		g.str("<p>The initial and the final plan are the same.</p>\n")
	} else {
		g.printf("<p>The search placed %d of %d blocks differently; %d transfers in the final plan, %d in the initial one.</p>\n",
			g.changed, p.Blocks(), g.final.Transfers(), g.initial.Transfers())
	}
	g.str("<h3>Per level</h3>\n<div class=\"wide\"><table>\n<thead><tr><th>level</th><th>plan</th><th class=\"n\">capacity</th><th class=\"n\">peak</th><th class=\"n\">peak %</th>" +
		"<th class=\"n\">reads</th><th class=\"n\">writes</th><th class=\"n\">transfers in</th><th class=\"n\">transfers out</th><th class=\"n\">moved in</th><th class=\"n\">moved out</th>" +
		"<th class=\"n\">traffic</th><th class=\"n\">time (" + escHTML(g.unit) + ")</th><th class=\"n\">time %</th></tr></thead>\n<tbody>\n")
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
			g.str("<tr>")
			if i == 0 {
				g.printf(`<td rowspan="%d"><span class="sw" style="background:%s"></span>%s</td>`, len(plans), repLevelColor(l), escHTML(lv.Name))
			}
			g.printf("<td>%s</td>%s%s<td class=\"n\">%.1f%%</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d</td>%s%s%s<td class=\"n\">%s</td><td class=\"n\">%.1f%%</td></tr>\n",
				pr.name, repBytesCell(lv.Capacity), repBytesCell(pr.rep.PeakBytes[l]), repPct(float64(pr.rep.PeakBytes[l]), float64(lv.Capacity)),
				t.Reads, t.Writes, t.TransfersIn, t.TransfersOut, repBytesCell(t.BytesIn), repBytesCell(t.BytesOut), repBytesCell(t.Traffic()),
				repCost(t.Time), repPct(t.Time, pr.rep.Total))
		}
	}
	g.str("</tbody></table></div>\n")
	g.str("<p class=\"note\">Peak: the most bytes (footprints, aligned) busy at one timestep, a reused block's shared space counted once. Traffic: bytes read and written by ops plus bytes moved in and out by transfers. Time: the cost model's charges of the level; a transfer pays the source level's read and the destination level's write.</p>\n")
	g.str("</section>\n")
}

// diagrams: the time-space diagrams of both plans, side by side.
func (g *reportGen) diagrams() {
	g.str("<section id=\"diagrams\">\n<h2>Diagrams</h2>\n")
	ds := []Diagram{{Title: "initial", Layout: g.initial}, {Title: "final", Layout: g.final}}
	o := Options{Width: 720}
	if g.same {
		ds = []Diagram{{Title: "final", Layout: g.final}}
		o.Width = 960
		g.str("<p>The initial and the final plan are the same. ")
	} else {
		g.printf("<p>Left, the initializer's plan (%s %s); right, the final plan (%s %s). ",
			escHTML(repCost(g.repI.Total)), escHTML(g.unit), escHTML(repCost(g.repF.Total)), escHTML(g.unit))
	}
	g.str("Timesteps run to the right, addresses up, one panel per level; a rectangle is a block at a place for a span of timesteps (hover for its name), hatching is space taken over by reuse, an arrow a transfer.</p>\n<div class=\"wide\">\n")
	if g.err == nil {
		g.err = SVG(g.bw, g.p, ds, o)
	}
	g.str("</div>\n</section>\n")
}

// timeChart: the cost per timestep (or bucket of timesteps), stacked by
// level, for the final plan; the initial plan's total as a line.
func (g *reportGen) timeChart() {
	p := g.p
	T, L := p.Prog.Timesteps(), p.Levels()
	k := (T + ReportMaxBars - 1) / ReportMaxBars
	nb := (T + k - 1) / k
	bars := make([][]float64, nb) // [bar][level]
	totF := make([]float64, nb)
	totI := make([]float64, nb)
	for t := 0; t < T; t++ {
		i := t / k
		if bars[i] == nil {
			bars[i] = make([]float64, L)
		}
		for l := 0; l < L; l++ {
			bars[i][l] += g.stepLevel[t][l]
		}
		totF[i] += g.repF.Steps[t].Time
		totI[i] += g.repI.Steps[t].Time
	}
	ymax := 0.0
	for i := range totF {
		ymax = max(ymax, totF[i])
		if !g.same {
			ymax = max(ymax, totI[i])
		}
	}
	g.str("<section id=\"time\">\n<h2>Where the time goes</h2>\n")
	per := "timestep"
	if k > 1 {
		per = fmt.Sprintf("bucket of %d timesteps", k)
	}
	g.printf("<p>The final plan's cost per %s, stacked by level", per)
	if !g.same {
		g.str("; the line is the initial plan's")
	}
	g.str(". Hover a bar for its figures.</p>\n")
	g.str(`<p class="keys">`)
	for l, lv := range p.HW.Levels {
		g.printf(`<span><span class="sw" style="background:%s"></span>%s</span>`, repLevelColor(l), escHTML(lv.Name))
	}
	if !g.same {
		g.str(`<span><span class="sw" style="background:#1f2328;height:2px;vertical-align:3px"></span>initial plan</span>`)
	}
	g.str("</p>\n")

	const (
		ml, mr, mt, mb = 72.0, 12.0, 10.0, 34.0
		pw, ph         = 960.0, 220.0
	)
	W, H := ml+pw+mr, mt+ph+mb
	if ymax <= 0 {
		ymax = 1
	}
	step := repStep(ymax, 5)
	top := math.Ceil(ymax/step-1e-9) * step
	y := func(v float64) float64 { return mt + ph*(1-v/top) }
	bw := pw / float64(nb)
	g.str(`<div class="wide">`)
	g.printf(`<svg class="r-chart" width="%s" height="%s" viewBox="0 0 %s %s" font-size="11" role="img" aria-label="cost per timestep">`+"\n",
		num(W), num(H), num(W), num(H))
	g.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="#fafbfc" stroke="#d8dee4"/>`+"\n", num(ml), num(mt), num(pw), num(ph))
	for i := 0.0; i*step <= top*1.0001; i++ {
		v := i * step
		yy := y(v)
		g.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e4e8ec"/><text x="%s" y="%s" text-anchor="end">%s</text>`+"\n",
			num(ml), num(yy), num(ml+pw), num(yy), num(ml-4), num(yy+4), escHTML(repCompact(v)))
	}
	g.printf(`<text x="12" y="%s" transform="rotate(-90 12 %s)" text-anchor="middle" fill="#59636e">%s</text>`+"\n",
		num(mt+ph/2), num(mt+ph/2), escHTML(g.unit))
	gap := 0.0
	if bw >= 3 {
		gap = math.Min(1, bw/4)
	}
	for i := 0; i < nb; i++ {
		t0, t1 := i*k, min((i+1)*k, T)-1
		g.printf(`<g class="r-bar"><title>%s</title>`, escHTML(g.barTitle(t0, t1, bars[i], totF[i], totI[i])))
		acc := 0.0
		x := ml + float64(i)*bw
		for l := 0; l < L; l++ {
			v := bars[i][l]
			if v <= 0 {
				continue
			}
			y0, y1 := y(acc+v), y(acc)
			g.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`, num(x+gap/2), num(y0), num(math.Max(bw-gap, 0.3)), num(math.Max(y1-y0, 0.3)), repLevelColor(l))
			acc += v
		}
		g.str("</g>\n")
	}
	if !g.same {
		var d strings.Builder
		for i := 0; i < nb; i++ {
			x0, yy := ml+float64(i)*bw, y(totI[i])
			if i == 0 {
				fmt.Fprintf(&d, "M%s %s", num(x0), num(yy))
			} else {
				fmt.Fprintf(&d, "V%s", num(yy))
			}
			fmt.Fprintf(&d, "H%s", num(x0+bw))
		}
		g.printf(`<path d="%s" fill="none" stroke="#1f2328" stroke-width="1.2" stroke-opacity="0.8"><title>the initial plan's cost</title></path>`+"\n", d.String())
	}
	g.timeAxis(ml, pw, mt+ph, T)
	g.str("</svg></div>\n")

	// The most expensive timesteps.
	steps := make([]int, T)
	for t := range steps {
		steps[t] = t
	}
	slices.SortStableFunc(steps, func(a, b int) int { return cmp.Compare(g.repF.Steps[b].Time, g.repF.Steps[a].Time) })
	n := min(reportTopSteps, T)
	g.printf("<h3>The %d most expensive timesteps of the final plan</h3>\n", n)
	g.str("<table>\n<thead><tr><th class=\"n\">timestep</th><th>op</th><th class=\"n\">cost</th><th class=\"n\">share</th>")
	if !g.same {
		g.str("<th class=\"n\">initial cost</th>")
	}
	g.str("<th class=\"n\">reads</th><th class=\"n\">writes</th><th class=\"n\">transfers</th><th class=\"n\">bytes accessed</th><th class=\"n\">bytes moved</th></tr></thead>\n<tbody>\n")
	for _, t := range steps[:n] {
		s := g.repF.Steps[t]
		op := p.Prog.Ops[t]
		name := op.Name
		if op.Type != "" {
			name += " (" + op.Type + ")"
		}
		g.printf(`<tr><td class="n">%d</td><td class="nm">%s</td><td class="n">%s</td><td class="n">%.1f%%</td>`, t, escHTML(name), repCost(s.Time), repPct(s.Time, g.repF.Total))
		if !g.same {
			g.printf(`<td class="n">%s</td>`, repCost(g.repI.Steps[t].Time))
		}
		g.printf("<td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d</td>%s%s</tr>\n", s.Reads, s.Writes, s.Transfers, repBytesCell(s.Bytes), repBytesCell(s.BytesMoved))
	}
	g.str("</tbody></table>\n</section>\n")
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

// timeAxis draws timestep ticks under a plot of width pw starting at x0,
// whose bottom is at y0.
func (g *reportGen) timeAxis(x0, pw, y0 float64, T int) {
	step := tickStep(float64(T), 12)
	for t := 0.0; t <= float64(T); t += step {
		x := x0 + pw*t/float64(T)
		g.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#8c959f"/><text x="%s" y="%s" text-anchor="middle">%d</text>`,
			num(x), num(y0), num(x), num(y0+4), num(x), num(y0+15), int(t))
	}
	g.printf(`<text x="%s" y="%s" text-anchor="end" fill="#59636e">timestep</text>`+"\n", num(x0+pw), num(y0+28))
}

// occupancy: per level, the bytes busy at each timestep of the final plan.
func (g *reportGen) occupancy() {
	p := g.p
	T := p.Prog.Timesteps()
	g.str("<section id=\"occupancy\">\n<h2>Occupancy</h2>\n")
	g.str("<p>Bytes busy in each level at each timestep of the final plan (filled)")
	if !g.same {
		g.str(" and of the initial plan (dashed)")
	}
	g.str("; the red line is the level's capacity. A reused block's shared space is counted once.</p>\n")
	const (
		ml, mr, mt, mb = 72.0, 12.0, 22.0, 34.0
		pw, ph         = 960.0, 130.0
	)
	W, H := ml+pw+mr, mt+ph+mb
	for l, lv := range p.HW.Levels {
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
		g.printf(`<h3><span class="sw" style="background:%s"></span>%s</h3>`+"\n", repLevelColor(l), escHTML(lv.Name))
		g.printf(`<div class="wide"><svg class="r-occ" data-level="%s" width="%s" height="%s" viewBox="0 0 %s %s" font-size="11" role="img" aria-label="%s">`+"\n",
			escHTML(lv.Name), num(W), num(H), num(W), num(H), escHTML("bytes busy in "+lv.Name))
		g.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="#fafbfc" stroke="#d8dee4"/>`+"\n", num(ml), num(mt), num(pw), num(ph))
		for _, v := range ticks(top, 4) {
			yy := y(v)
			g.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e4e8ec"/><text x="%s" y="%s" text-anchor="end">%s</text>`+"\n",
				num(ml), num(yy), num(ml+pw), num(yy), num(ml-4), num(yy+4), escHTML(bytesLabel(int64(v))))
		}
		// The final plan: a filled step area.
		var d strings.Builder
		fmt.Fprintf(&d, "M%s %s", num(x(0)), num(y(0)))
		for t := 0; t < T; t++ {
			fmt.Fprintf(&d, "V%sH%s", num(y(float64(g.busyF[l][t]))), num(x(t+1)))
		}
		fmt.Fprintf(&d, "V%sZ", num(y(0)))
		g.printf(`<path d="%s" fill="%s" fill-opacity="0.35" stroke="%s" stroke-width="1"><title>%s</title></path>`+"\n",
			d.String(), repLevelColor(l), repLevelColor(l), escHTML(fmt.Sprintf("final plan: peak %s (%d B) at timestep %d%s", repBytes(peakF), peakF, peakAt, g.opSuffix(peakAt))))
		if !g.same {
			d.Reset()
			for t := 0; t < T; t++ {
				yy := num(y(float64(g.busyI[l][t])))
				if t == 0 {
					fmt.Fprintf(&d, "M%s %s", num(x(0)), yy)
				} else {
					fmt.Fprintf(&d, "V%s", yy)
				}
				fmt.Fprintf(&d, "H%s", num(x(t+1)))
			}
			g.printf(`<path d="%s" fill="none" stroke="#1f2328" stroke-width="1" stroke-dasharray="4 3" stroke-opacity="0.7"><title>%s</title></path>`+"\n",
				d.String(), escHTML(fmt.Sprintf("initial plan: peak %s (%d B)", repBytes(peakI), peakI)))
		}
		if capacity <= top {
			cy := y(capacity)
			g.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#cf222e" stroke-dasharray="5 3"/><text x="%s" y="%s" text-anchor="end" fill="#cf222e">capacity %s</text>`+"\n",
				num(ml), num(cy), num(ml+pw), num(cy), num(ml+pw), num(cy-4), escHTML(bytesLabel(lv.Capacity)))
		} else {
			g.printf(`<text x="%s" y="%s" text-anchor="end" fill="#cf222e">capacity %s (above the drawn range)</text>`+"\n",
				num(ml+pw), num(mt-6), escHTML(bytesLabel(lv.Capacity)))
		}
		g.printf(`<text x="%s" y="%s" fill="#59636e">peak %s (%.1f%% of capacity) at timestep %d</text>`+"\n",
			num(ml), num(mt-6), escHTML(repBytes(peakF)), repPct(float64(peakF), capacity), peakAt)
		g.timeAxis(ml, pw, mt+ph, T)
		g.str("</svg></div>\n")
	}
	g.str("</section>\n")
}

// blocks: the most expensive blocks of the final plan.
func (g *reportGen) blocks() {
	p := g.p
	ids := make([]int, p.Blocks())
	for b := range ids {
		ids[b] = b
	}
	slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(g.blockCostF[b], g.blockCostF[a]) })
	n := min(ReportTopBlocks, len(ids))
	g.str("<section id=\"blocks\">\n<h2>The most expensive blocks</h2>\n")
	g.printf("<p>The %d blocks of the final plan whose reads, writes and transfers cost the most (of %d blocks).</p>\n", n, p.Blocks())
	g.str("<div class=\"wide\"><table>\n<thead><tr><th class=\"n\">#</th><th>block</th><th>kind</th><th class=\"n\">size</th><th class=\"n\">lifetime</th><th class=\"n\">reads</th><th class=\"n\">writes</th><th>level(s)</th><th class=\"n\">cost</th><th class=\"n\">share</th>")
	if !g.same {
		g.str("<th class=\"n\">initial cost</th>")
	}
	g.str("</tr></thead>\n<tbody>\n")
	for i, b := range ids[:n] {
		blk := p.Block(b)
		g.printf(`<tr><td class="n">%d</td><td class="nm">%s</td><td><span class="sw" style="background:%s"></span>%s</td>%s<td class="n">%d–%d</td><td class="n">%d</td><td class="n">%d</td><td>%s</td><td class="n">%s</td><td class="n">%.1f%%</td>`,
			i+1, escHTML(blk.Name), repKindColor(blk.Kind), escHTML(blk.Kind.String()), repBytesCell(blk.Size), blk.First, blk.Last, len(blk.Reads), len(blk.Writes),
			g.placesText(b, g.final), repCost(g.blockCostF[b]), repPct(g.blockCostF[b], g.repF.Total))
		if !g.same {
			g.printf(`<td class="n"%s>%s</td>`, repTitle(strings.ReplaceAll(g.placesPlain(b, g.initial), "\u00a0", " ")), repCost(g.blockCostI[b]))
		}
		g.str("</tr>\n")
	}
	g.str("</tbody></table></div>\n</section>\n")
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

// placesText is placesPlain escaped for HTML.
func (g *reportGen) placesText(b int, lay *state.Layout) string {
	return escHTML(g.placesPlain(b, lay))
}

// repXfer is one transfer of a plan.
type repXfer struct {
	t, b     int
	from, to state.Seg
	bytes    int64
	cost     float64
}

// transfers: every transfer of the final plan, by timestep then block.
func (g *reportGen) transfers() {
	p := g.p
	var xs []repXfer
	for b, segs := range g.final.Segs {
		if len(segs) < 2 {
			continue
		}
		first := len(xs)
		for i := 1; i < len(segs); i++ {
			xs = append(xs, repXfer{t: int(segs[i].From), b: b, from: segs[i-1], to: segs[i], bytes: p.Block(b).Size})
		}
		// Price each transfer from the model's charges.
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
	var total float64
	for _, x := range xs {
		total += x.cost
	}
	g.str("<section id=\"transfers\">\n<h2>Transfers</h2>\n")
	if len(xs) == 0 {
		g.str("<p>The final plan moves no block: every block stays where it is first placed for its whole life.</p>\n</section>\n")
		return
	}
	g.printf("<p>%d transfers in the final plan, costing %s %s (%.1f%% of the plan).</p>\n", len(xs), repCost(total), escHTML(g.unit), repPct(total, g.repF.Total))
	g.str("<div class=\"wide\"><table>\n<thead><tr><th class=\"n\">timestep</th><th>block</th><th>from</th><th class=\"n\">offset</th><th>to</th><th class=\"n\">offset</th><th class=\"n\">bytes</th><th class=\"n\">cost</th></tr></thead>\n<tbody>\n")
	shown := min(len(xs), ReportMaxTransfers)
	for _, x := range xs[:shown] {
		lv := p.HW.Levels
		g.printf(`<tr><td class="n"%s>%d</td><td class="nm">%s</td><td>%s</td><td class="n">%d</td><td>%s</td><td class="n">%d</td>%s<td class="n">%s</td></tr>`+"\n",
			repTitle(strings.TrimPrefix(g.opSuffix(x.t), " ")), x.t, escHTML(p.Block(x.b).Name), escHTML(lv[x.from.Level].Name), x.from.Offset,
			escHTML(lv[x.to.Level].Name), x.to.Offset, repBytesCell(x.bytes), repCost(x.cost))
	}
	g.str("</tbody></table></div>\n")
	if shown < len(xs) {
		var rest float64
		for _, x := range xs[shown:] {
			rest += x.cost
		}
		g.printf("<p class=\"note\">The list stops at %d rows: %d more transfers, costing %s %s, are not shown.</p>\n",
			shown, len(xs)-shown, repCost(rest), escHTML(g.unit))
	}
	g.str("</section>\n")
}

// settings: the settings and versions used.
func (g *reportGen) settings() {
	p := g.p
	g.str("<section id=\"settings\">\n<h2>Settings</h2>\n<table>\n<tbody>\n")
	row := func(k, v string) {
		g.printf("<tr><th>%s</th><td class=\"nm\">%s</td></tr>\n", escHTML(k), escHTML(v))
	}
	// Long texts fold away (no script: <details>).
	long := func(k, name, label, text string) {
		g.printf("<tr><th>%s</th><td class=\"nm\">%s", escHTML(k), escHTML(name))
		if text != "" {
			g.printf("<details><summary>%s</summary>%s</details>", escHTML(label), escHTML(repOneLine(text)))
		}
		g.str("</td></tr>\n")
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
	g.str("</tbody></table>\n")
	g.str("<h3>Hardware profile</h3>\n<div class=\"wide\"><table>\n<thead><tr><th>level</th><th class=\"n\">capacity</th><th class=\"n\">alignment</th><th class=\"n\">write latency</th><th class=\"n\">write bandwidth (B/" + escHTML(p.HW.TimeUnit) + ")</th><th class=\"n\">read latency</th><th class=\"n\">read bandwidth (B/" + escHTML(p.HW.TimeUnit) + ")</th></tr></thead>\n<tbody>\n")
	for l, lv := range p.HW.Levels {
		g.printf("<tr><td><span class=\"sw\" style=\"background:%s\"></span>%s</td>%s<td class=\"n\">%d</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n",
			repLevelColor(l), escHTML(lv.Name), repBytesCell(lv.Capacity), lv.Alignment,
			strconv.FormatFloat(lv.In.Latency, 'g', -1, 64), strconv.FormatFloat(lv.In.Bandwidth, 'g', -1, 64),
			strconv.FormatFloat(lv.Out.Latency, 'g', -1, 64), strconv.FormatFloat(lv.Out.Bandwidth, 'g', -1, 64))
	}
	g.str("</tbody></table></div>\n</section>\n")
}

// repTitle returns ` title="..."`, or nothing for an empty title.
func repTitle(s string) string {
	if s == "" {
		return ""
	}
	return ` title="` + escHTML(s) + `"`
}

// repBytesCell is a table cell with a byte count, exact on hover.
func repBytesCell(n int64) string {
	return fmt.Sprintf(`<td class="n" title="%d B">%s</td>`, n, escHTML(repBytes(n)))
}

// repBytes prints a byte count in binary units, exact below 1 KiB (as the
// command line's summary does).
func repBytes(n int64) string {
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

// escHTML escapes text for HTML text and attribute values (all of <, >,
// &, ' and "). It also writes the colon of "://" as a character reference,
// so that a URL in a user's text (a profile's description cites its
// sources) reads the same but the file holds no URL a tool could take
// for a resource to fetch.
func escHTML(s string) string {
	return strings.ReplaceAll(html.EscapeString(s), "://", "&#58;//")
}
