// Package render draws plans: time-space diagrams as SVG (timesteps
// across, addresses up, a panel per memory level, a rectangle per
// placement, as in the seed documents' figures), a compact ASCII map for
// terminals, the timeline of a plan under the timeline model (TimelineSVG)
// and a self-contained HTML report.
//
// Every drawn placement is an SVG rect of class "pl" (plus "k-<kind>"),
// with a <title> for hover; reused space is a rect of class "reuse",
// transfers are lines of class "xfer" (loads of constants "xfer load"),
// and under the timeline model a copy in flight, its destination reserved
// from the copy's start to its timestep, is a hatched rect of class
// "inflight". A level is drawn to the addresses the plans use (Ranges):
// a cut between two bands is a rect of class "brk" with a zigzag path of
// class "brkz" (also on a panel's top edge when the capacity is far
// above). Under each panel's axis the op or group names are texts of
// class "tlabel" (each with a textLength, so that its box is known) and
// the groups' starts lines of class "tgroup". A diagram drawn a pixel at a
// time (long programs, see AggregateMinPlacements) has instead of the
// placements an image of class "agg" per panel under a group of class
// "aggcols" of hover columns. With Options.Zoomable (the report) each
// diagram's plan is drawn inside a nested svg of class "zoom" and each
// panel's time axis and names in a group of class "tax"; the report's
// script adds the zoomed window's axis as groups of class "ztax". Tests
// and browsers count on these classes.
package render

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Diagram is one plan to draw.
type Diagram struct {
	Title  string
	Layout *state.Layout
}

// Options size a drawing. Zero values mean the defaults.
type Options struct {
	// Width is the width of one diagram's plot area in pixels (default
	// 960 for one diagram; for several side by side, the width that makes
	// the whole drawing FitWidth pixels wide, at most 960).
	Width int
	// PanelHeight is the height of one level's panel in pixels (default
	// 160).
	PanelHeight int
	// Window, if not nil, draws only timesteps [From, To]: the placements
	// that meet it, cut to it, and its axis. Nil draws the whole program.
	Window *Window
	// Zoomable wraps each diagram's drawing of the plan (placements,
	// copies in flight, reuse, transfers, or its pictures) in a nested
	// <svg class="zoom"> whose viewBox is its viewport, so that it draws
	// the same with no script, and whose viewBox a script may narrow to a
	// span of timesteps (the report's zoom; ZoomScript). Each panel's
	// timestep axis and names are then in a group of class "tax" that the
	// script hides while zoomed.
	Zoomable bool
}

// Window is a span of timesteps, both ends included.
type Window struct{ From, To int }

// window returns the timesteps [t0, t1) that o draws of a program of T
// timesteps, or an error naming the bad end.
func (o Options) window(T int) (int, int, error) {
	if o.Window == nil {
		return 0, T, nil
	}
	w := *o.Window
	switch {
	case w.From < 0 || w.From >= T:
		return 0, 0, fmt.Errorf("the window's start %d is outside the program's timesteps [0,%d]", w.From, T-1)
	case w.To < 0 || w.To >= T:
		return 0, 0, fmt.Errorf("the window's end %d is outside the program's timesteps [0,%d]", w.To, T-1)
	case w.To < w.From:
		return 0, 0, fmt.Errorf("the window's end %d is before its start %d", w.To, w.From)
	}
	return w.From, w.To + 1, nil
}

// FitWidth is the width in pixels that a drawing of several diagrams side
// by side is made to fit by default (a 1400 px window; issue 19).
const FitWidth = 1400

// minFitPlotWidth is the narrowest plot a diagram gets so that several fit
// FitWidth.
const minFitPlotWidth = 240

func (o Options) withDefaults(n int) Options {
	if o.Width <= 0 {
		o.Width = 960
		if n > 1 {
			// n plots, their margins and the gaps between them in FitWidth.
			fit := (FitWidth - n*(marginLeft+marginRight) - (n-1)*diagramGap) / n
			o.Width = max(min(fit, 960), minFitPlotWidth)
		}
	}
	if o.PanelHeight <= 0 {
		o.PanelHeight = 160
	}
	return o
}

// Kinds' colours, colour-blind friendly (Okabe-Ito).
var kindColor = map[workload.Kind]string{
	workload.Input:      "#E69F00",
	workload.Output:     "#D55E00",
	workload.Activation: "#0072B2",
	workload.Scratch:    "#CC79A7",
	workload.Constant:   "#009E73",
}

const (
	marginLeft    = 78
	marginRight   = 16
	marginTop     = 44
	panelGap      = 34
	axisHeight    = 22
	namesHeight   = 16 // the row of op or group names under a panel's axis
	aggNoteHeight = 16 // the note under the legend of an aggregated drawing
	// diagramTitleCharW is the width of a character of a diagram's title
	// (14 px bold sans-serif, a little above the average).
	diagramTitleCharW = 8.4
	legendHeight      = 30
	diagramGap        = 40
)

// geometry places the panels of one diagram.
type geometry struct {
	x0     float64 // left of the plot area
	width  float64
	panelH float64
	t0, t1 int     // the window drawn: timesteps [t0, t1)
	dx     float64 // pixels per timestep
	axes   []*addrAxis
	ranges []LevelRange
	// per level: the top of the panel
	panelY0 []float64
	agg     bool // drawn a pixel at a time (aggregated)
	zoom    bool // Options.Zoomable
}

func (g *geometry) x(t int) float64 { return g.x0 + float64(t-g.t0)*g.dx }

// clip returns [from, to] (inclusive timesteps) cut to the window, and
// whether anything of it is left.
func (g *geometry) clip(from, to int) (int, int, bool) {
	from, to = max(from, g.t0), min(to, g.t1-1)
	return from, to, from <= to
}

// y maps an address of level l to a pixel row (0 at the bottom).
func (g *geometry) y(l int, addr int64) float64 {
	return g.panelY0[l] + g.panelH - g.axes[l].height(addr)
}

// axisBreakPx is the height of the cut between two bands of a level.
const axisBreakPx = 10

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= v {
			return m * e
		}
	}
	return 10 * e
}

// SVG draws one or more plans of the same problem side by side, left to
// right in the order of ds, each with a panel per level. For a comparison
// put the reference (the initial plan) first, as the report and `hieropt
// render --compare` do.
func SVG(w io.Writer, p *state.Problem, ds []Diagram, o Options) error {
	o = o.withDefaults(len(ds))
	t0, t1, err := o.window(p.Prog.Timesteps())
	if err != nil {
		return err
	}
	lays := make([]*state.Layout, len(ds))
	for i, d := range ds {
		lays[i] = d.Layout
	}
	ranges := rangesIn(p, t0, t1, lays)
	axes := make([]*addrAxis, len(ranges))
	for l, r := range ranges {
		axes[l] = newAddrAxis(r, float64(o.PanelHeight), axisBreakPx)
	}
	L := p.Levels()
	diagW := float64(marginLeft + o.Width + marginRight)
	totalW := diagW*float64(len(ds)) + float64(diagramGap*(len(ds)-1))
	panelsH := float64(L)*(float64(o.PanelHeight)+float64(axisHeight+namesHeight)) + float64((L-1)*panelGap)
	totalH := float64(marginTop) + panelsH + float64(legendHeight) + 24
	// Which diagrams are drawn a pixel at a time: they get a note under
	// the legend.
	aggs := make([]bool, len(ds))
	anyAgg := false
	for i, d := range ds {
		g := &geometry{width: float64(o.Width), t0: t0, t1: t1}
		aggs[i] = aggregated(p, d.Layout, g)
		anyAgg = anyAgg || aggs[i]
	}
	if anyAgg {
		totalH += aggNoteHeight
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="11">`+"\n",
		num(totalW), num(totalH), num(totalW), num(totalH))
	bw.WriteString(`<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="none"/><line x1="0" y1="0" x2="0" y2="6" stroke="#000" stroke-width="2" stroke-opacity="0.55"/></pattern>` +
		`<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>` + "\n")
	bw.WriteString(`<style>.pl{stroke:#fff;stroke-width:0.3}.reuse{fill:url(#hatch);pointer-events:none}.xfer{stroke:#333;stroke-width:1;marker-end:url(#arrow)}.grid{stroke:#ddd;stroke-width:0.5}.cap{stroke:#c00;stroke-dasharray:4 3}.frame{fill:#fafafa;stroke:#999}.brk{fill:#fff;stroke:none}.brkz{fill:none;stroke:#777;stroke-width:1}.tgroup{stroke:#999}.tlabel{fill:#333;font-size:10px}</style>` + "\n")
	flight := InFlight(lays...) > 0
	if o.Zoomable {
		// Strokes keep their width however far the time axis is
		// stretched.
		bw.WriteString(`<style>.zoom *{vector-effect:non-scaling-stroke}.zoom{cursor:grab}</style>` + "\n")
	}
	if flight {
		// Only plans with copies in flight get the pattern, so that the
		// drawing of any other plan stays as it was.
		bw.WriteString(`<defs><pattern id="inflight" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="5" height="5" fill="#fff" fill-opacity="0.6"/><line x1="0" y1="0" x2="0" y2="5" stroke="#333" stroke-width="1.6" stroke-opacity="0.7"/></pattern></defs>` + "\n" +
			`<style>.inflight{fill:url(#inflight);stroke-width:1}</style>` + "\n")
	}
	spans, group := timeSpans(p.Prog, t0, t1, float64(o.Width))
	for i, d := range ds {
		g := &geometry{
			x0:     diagW*float64(i) + float64(diagramGap*i) + marginLeft,
			width:  float64(o.Width),
			panelH: float64(o.PanelHeight),
			t0:     t0,
			t1:     t1,
			dx:     float64(o.Width) / float64(t1-t0),
			axes:   axes,
			ranges: ranges,
			agg:    aggs[i],
			zoom:   o.Zoomable,
		}
		y := float64(marginTop)
		for l := 0; l < L; l++ {
			g.panelY0 = append(g.panelY0, y)
			y += float64(o.PanelHeight) + float64(axisHeight+namesHeight) + float64(panelGap)
		}
		if err := drawDiagram(bw, p, d, g, spans, group); err != nil {
			return err
		}
	}
	legendY := totalH - float64(legendHeight) - 4
	if anyAgg {
		legendY -= aggNoteHeight
		fmt.Fprintf(bw, `<text class="aggnote" x="%d" y="%s" fill="#555">%d timesteps on %d px: a pixel each, in the colour of the kind filling most of it (grey: a copy in flight); hover a column</text>`+"\n",
			marginLeft, num(legendY+legendHeight+6), t1-t0, o.Width)
	}
	drawLegend(bw, legendY, flight)
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

func drawDiagram(bw *bufio.Writer, p *state.Problem, d Diagram, g *geometry, spans []timeSpan, group bool) error {
	T := p.Prog.Timesteps()
	title := d.Title
	if g.t0 > 0 || g.t1 < T {
		title = fmt.Sprintf("timesteps %d–%d of %d · %s", g.t0, g.t1-1, T, title)
	}
	// A title longer than the drawing is cut, whole in its tooltip.
	shown, tip := title, ""
	if room := int(g.width / diagramTitleCharW); utf8.RuneCountInString(title) > room {
		shown, tip = string([]rune(title)[:max(room-1, 1)])+"…", "<title>"+esc(title)+"</title>"
	}
	fmt.Fprintf(bw, `<g class="diagram"><text x="%s" y="%d" font-size="14" font-weight="bold">%s%s</text>`+"\n",
		num(g.x0), marginTop-22, esc(shown), tip)
	for l := range p.HW.Levels {
		drawPanel(bw, p, g, l, spans, group)
	}
	lay := d.Layout
	if g.zoom {
		// The plan's drawing in a viewport of its own, its viewBox the
		// same rectangle: [t0, t1) across the plot, every panel down.
		y0 := g.panelY0[0]
		h := g.panelY0[len(g.panelY0)-1] + g.panelH - y0
		var bottoms []string
		for _, y := range g.panelY0 {
			bottoms = append(bottoms, num(y+g.panelH))
		}
		fmt.Fprintf(bw, `<svg class="zoom" x="%s" y="%s" width="%s" height="%s" viewBox="%s %s %s %s" preserveAspectRatio="none" data-t0="%d" data-t1="%d" data-bottoms="%s">`+"\n",
			num(g.x0), num(y0), num(g.width), num(h), num(g.x0), num(y0), num(g.width), num(h), g.t0, g.t1, strings.Join(bottoms, " "))
		defer bw.WriteString("</svg></g>\n")
	} else {
		defer bw.WriteString("</g>\n")
	}
	if g.agg {
		return drawAggregated(bw, p, lay, g)
	}
	// Placements.
	for b, segs := range lay.Segs {
		blk := p.Block(b)
		for i, s := range segs {
			to := blk.Last
			if i+1 < len(segs) {
				to = int(segs[i+1].From) - 1
			}
			l := int(s.Level)
			f := p.Foot(b, l)
			from, upto := int(s.From), to
			resident := ""
			if s.IsResident() {
				// Its range is kept for the whole run (FORMATS.md rule 10).
				from, upto = 0, T-1
				resident = fmt.Sprintf(" · resident: its range is kept for the whole run [0,%d]", T-1)
			}
			from, upto, ok := g.clip(from, upto)
			if !ok {
				continue
			}
			x0, x1 := g.x(from), g.x(upto+1)
			y0, y1 := g.y(l, s.Offset+f), g.y(l, s.Offset)
			h := math.Max(y1-y0, 0.6)
			bw.WriteString(`<rect class="pl k-`)
			bw.WriteString(blk.Kind.String())
			bw.WriteString(`" x="`)
			bw.WriteString(num(x0))
			bw.WriteString(`" y="`)
			bw.WriteString(num(y0))
			bw.WriteString(`" width="`)
			bw.WriteString(num(math.Max(x1-x0, 0.4)))
			bw.WriteString(`" height="`)
			bw.WriteString(num(h))
			bw.WriteString(`" fill="`)
			bw.WriteString(kindColor[blk.Kind])
			bw.WriteString(`"><title>`)
			bw.WriteString(esc(fmt.Sprintf("%s · %s · %d B · lifetime [%d,%d] · %s @ %d during [%d,%d]%s",
				blk.Name, blk.Kind, blk.Size, blk.First, blk.Last, p.HW.Levels[l].Name, s.Offset, s.From, to, resident)))
			bw.WriteString("</title></rect>\n")
		}
	}
	// Copies in flight: a segment filled by a copy issued before its
	// timestep has its range reserved from the copy's start; that
	// reservation is hatched.
	for b, segs := range lay.Segs {
		for i, s := range segs {
			if s.Lead <= 0 {
				continue
			}
			l := int(s.Level)
			from, upto, ok := g.clip(int(s.Start()), int(s.From)-1)
			if !ok {
				continue
			}
			y0, y1 := g.y(l, s.Offset+p.Foot(b, l)), g.y(l, s.Offset)
			x0, x1 := g.x(from), g.x(upto+1)
			fmt.Fprintf(bw, `<rect class="inflight" x="%s" y="%s" width="%s" height="%s" stroke="%s"><title>%s</title></rect>`+"\n",
				num(x0), num(y0), num(math.Max(x1-x0, 0.4)), num(math.Max(y1-y0, 0.6)), kindColor[p.Block(b).Kind],
				esc(fmt.Sprintf("%s in flight: %s, issued at timestep %d for timestep %d; %s @ %d reserved during [%d,%d]",
					p.Block(b).Name, copyLevels(p, b, segs, i), s.Start(), s.From, p.HW.Levels[l].Name, s.Offset, s.Start(), s.From-1)))
		}
	}
	// Reused space: where a block created at t starts where a reusable
	// block ending at t sits, the shared bytes at t are hatched.
	for t := g.t0; t < g.t1; t++ {
		for _, bi := range p.Created(t) {
			b := int(bi)
			sb := lay.At(b, t)
			for _, ai := range p.Dying(t) {
				a := int(ai)
				if a == b || !state.ReusePair(p, a, b, t) || len(lay.Segs[a]) == 0 {
					continue
				}
				if sa := lay.At(a, t); sa.Pos() == sb.Pos() && (p.Block(b).First == t && p.Block(a).Last == t) {
					l := int(sa.Level)
					shared := min(p.Foot(a, l), p.Foot(b, l))
					y0, y1 := g.y(l, sa.Offset+shared), g.y(l, sa.Offset)
					fmt.Fprintf(bw, `<rect class="reuse" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`+"\n",
						num(g.x(t)), num(y0), num(math.Max(g.dx, 0.4)), num(math.Max(y1-y0, 0.6)),
						esc(fmt.Sprintf("%s takes over %s's space at timestep %d", p.Block(b).Name, p.Block(a).Name, t)))
				}
			}
		}
	}
	// Transfers: an arrow from the old place to the new one, from the
	// copy's start to its timestep (vertical when they are the same).
	for b, segs := range lay.Segs {
		for i := 1; i < len(segs); i++ {
			from, to := segs[i-1], segs[i]
			if int(to.From) < g.t0 || int(to.From) >= g.t1 {
				continue // drawn where the copy arrives
			}
			fl, tl := int(from.Level), int(to.Level)
			y0 := g.y(fl, from.Offset+p.Foot(b, fl)/2)
			y1 := g.y(tl, to.Offset+p.Foot(b, tl)/2)
			what := fmt.Sprintf("%s moves at timestep %d: %s @ %d → %s @ %d", p.Block(b).Name, to.From,
				p.HW.Levels[fl].Name, from.Offset, p.HW.Levels[tl].Name, to.Offset)
			if to.Lead > 0 {
				what += fmt.Sprintf(", the copy issued at timestep %d", to.Start())
			}
			fmt.Fprintf(bw, `<line class="xfer" x1="%s" y1="%s" x2="%s" y2="%s"><title>%s</title></line>`+"\n",
				num(g.x(max(int(to.Start()), g.t0))), num(y0), num(g.x(int(to.From))), num(y1), esc(what))
		}
		// A load (the timeline model: a constant's first segment outside
		// its home level, not resident) comes from the home level, where
		// the constant has no address: the arrow starts at the top of its
		// panel.
		if len(segs) > 0 && isLoad(p, b, segs[0]) && int(segs[0].From) >= g.t0 && int(segs[0].From) < g.t1 {
			s, home := segs[0], p.Home(b)
			l := int(s.Level)
			fmt.Fprintf(bw, `<line class="xfer load" x1="%s" y1="%s" x2="%s" y2="%s"><title>%s</title></line>`+"\n",
				num(g.x(max(int(s.Start()), g.t0))), num(g.panelY0[home]), num(g.x(int(s.From))), num(g.y(l, s.Offset+p.Foot(b, l)/2)),
				esc(fmt.Sprintf("%s is loaded for timestep %d: %s → %s @ %d, the copy issued at timestep %d", p.Block(b).Name, s.From,
					p.HW.Levels[home].Name, p.HW.Levels[l].Name, s.Offset, s.Start())))
		}
	}
	return nil
}

// isLoad reports whether s, block b's first segment, is filled by a load:
// under the timeline model, a constant outside its home level and not
// resident (FORMATS.md 6.2).
func isLoad(p *state.Problem, b int, s state.Seg) bool {
	return p.Timeline() && p.Block(b).Kind == workload.Constant && int(s.Level) != p.Home(b) && !s.IsResident()
}

// copyLevels says where segment i of block b is copied from and to:
// "SLOW @ 0 → FAST @ 64", or for a load "FLASH → FAST @ 64".
func copyLevels(p *state.Problem, b int, segs []state.Seg, i int) string {
	lv := p.HW.Levels
	to := segs[i]
	if i == 0 {
		return fmt.Sprintf("a load %s → %s @ %d", lv[p.Home(b)].Name, lv[to.Level].Name, to.Offset)
	}
	from := segs[i-1]
	return fmt.Sprintf("%s @ %d → %s @ %d", lv[from.Level].Name, from.Offset, lv[to.Level].Name, to.Offset)
}

// InFlight counts the copies of the layouts issued before their timestep
// (FORMATS.md 6.2: start < at), transfers and loads: the reservations that
// SVG hatches. It is 0 for a plan of any model but the timeline.
func InFlight(lays ...*state.Layout) int {
	n := 0
	for _, lay := range lays {
		for _, segs := range lay.Segs {
			for _, s := range segs {
				if s.Lead > 0 {
					n++
				}
			}
		}
	}
	return n
}

// drawPanel draws a level's frame, address bands, capacity and axes.
func drawPanel(bw *bufio.Writer, p *state.Problem, g *geometry, l int, spans []timeSpan, group bool) {
	lv := p.HW.Levels[l]
	top := g.panelY0[l]
	bottom := top + g.panelH
	left, right := g.x0, g.x0+g.width
	r, ax := g.ranges[l], g.axes[l]
	fmt.Fprintf(bw, `<g class="panel" data-level="%s"><rect class="frame" x="%s" y="%s" width="%s" height="%s"/>`+"\n",
		esc(lv.Name), num(left), num(top), num(g.width), num(g.panelH))
	fmt.Fprintf(bw, `<text x="%s" y="%s" font-weight="bold">%s</text>`, num(left), num(top-5), esc(lv.Name))
	if r.CapacityShown {
		cy := g.y(l, lv.Capacity)
		fmt.Fprintf(bw, `<line class="cap" x1="%s" y1="%s" x2="%s" y2="%s"/><text x="%s" y="%s" text-anchor="end" fill="#c00">capacity %s</text>`+"\n",
			num(left), num(cy), num(right), num(cy), num(right), num(cy-3), esc(bytesLabel(lv.Capacity)))
	} else {
		// The capacity is far above the drawn range: a break mark on the
		// panel's top edge.
		breakMark(bw, left, right, top, fmt.Sprintf("%s above %s not drawn: no placement there; capacity %s",
			lv.Name, addrLabel(r.Top()), bytesLabel(lv.Capacity)))
		fmt.Fprintf(bw, `<text x="%s" y="%s" text-anchor="end" fill="#c00">capacity %s (drawn to %s)</text>`+"\n",
			num(right), num(top-5), esc(bytesLabel(lv.Capacity)), esc(addrLabel(r.Top())))
	}
	// The cuts between bands.
	for i := 1; i < len(r.Bands); i++ {
		y1, y0 := bottom-ax.y1[i-1], bottom-ax.y0[i]
		fmt.Fprintf(bw, `<rect class="brk" x="%s" y="%s" width="%s" height="%s"/>`, num(left-1), num(y0), num(g.width+2), num(y1-y0))
		breakMark(bw, left, right, (y0+y1)/2, fmt.Sprintf("%s %s–%s not drawn: no placement there", lv.Name, addrLabel(r.Bands[i-1].Hi), addrLabel(r.Bands[i].Lo)))
	}
	// Address ticks: in each band, a power of two apart, about four per
	// panel; a label too close to the one below is left out.
	lastY := math.Inf(1)
	for i, b := range r.Bands {
		h := ax.y1[i] - ax.y0[i]
		n := max(1, int(math.Round(4*h/g.panelH)))
		for _, a := range bandTicks(b, n) {
			y := g.y(l, a)
			if lastY-y < 11 {
				continue
			}
			lastY = y
			label := addrLabel(a)
			fmt.Fprintf(bw, `<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/><text x="%s" y="%s" text-anchor="end">%s</text>`+"\n",
				num(left), num(y), num(right), num(y), num(left-4), num(y+4), esc(label))
		}
	}
	// Timestep ticks: a step of 1, 2 or 5 times a power of ten, so that
	// there are at most about 12 labels whatever the length.
	if g.zoom {
		bw.WriteString(`<g class="tax">`)
	}
	span := g.t1 - g.t0
	step := int(tickStep(float64(span), 12))
	for t := (g.t0 + step - 1) / step * step; t <= g.t1; t += step {
		x := g.x(t)
		anchor := "middle"
		if x > right-16 {
			anchor = "end" // within the drawing
		}
		fmt.Fprintf(bw, `<line stroke="#999" x1="%s" y1="%s" x2="%s" y2="%s"/><text x="%s" y="%s" text-anchor="%s">%d</text>`+"\n",
			num(x), num(bottom), num(x), num(bottom+4), num(x), num(bottom+15), anchor, t)
	}
	fmt.Fprintf(bw, `<text x="%s" y="%s" text-anchor="end" fill="#666">timestep</text>`, num(left-12), num(bottom+15))
	drawNames(bw, g, bottom+axisHeight, spans, group)
	if g.zoom {
		bw.WriteString(`</g>`)
	}
	bw.WriteString("</g>\n")
}

// drawNames writes the row of op or group names at y (the top of the
// row): a tick where each group starts, each label in a box of known
// width (textLength), hover for the group's ops.
func drawNames(bw *bufio.Writer, g *geometry, y float64, spans []timeSpan, group bool) {
	what := "op"
	if group {
		what = "group"
		lastX := math.Inf(-1)
		for _, s := range spans {
			x := g.x(s.T0)
			if x-lastX < 3 {
				continue // groups under 3 px: one tick for them
			}
			lastX = x
			fmt.Fprintf(bw, `<line class="tgroup" x1="%s" y1="%s" x2="%s" y2="%s"><title>%s</title></line>`,
				num(x), num(y-6), num(x), num(y+4), esc(s.Title))
		}
	}
	fmt.Fprintf(bw, `<text x="%s" y="%s" text-anchor="end" fill="#666">%s</text>`, num(g.x0-12), num(y+9), what)
	for _, pl := range placeLabels(spans, g.x, g.x0, g.x0+g.width) {
		fmt.Fprintf(bw, `<text class="tlabel" x="%s" y="%s" text-anchor="middle" textLength="%s" lengthAdjust="spacingAndGlyphs">%s</text>`,
			num(pl.X), num(y+9), num(pl.W), esc(pl.Text))
	}
	bw.WriteString("\n")
}

// breakMark draws a zigzag across [left, right] at y, the sign of
// addresses cut out, with title as its tooltip.
func breakMark(bw *bufio.Writer, left, right, y float64, title string) {
	var d strings.Builder
	fmt.Fprintf(&d, "M%s %s", num(left-4), num(y))
	up := true
	for x := left; x < right+4; x += 8 {
		dy := 2.5
		if up {
			dy = -2.5
		}
		fmt.Fprintf(&d, "L%s %s", num(x), num(y+dy))
		up = !up
	}
	fmt.Fprintf(bw, `<path class="brkz" d="%s"><title>%s</title></path>`+"\n", d.String(), esc(title))
}

// bandTicks returns about n tick addresses in band b, a power of two
// apart (multiples of the step), with the band's ends.
func bandTicks(b Band, n int) []int64 {
	step := int64(1) << max(0, int(math.Ceil(math.Log2(math.Max(float64(b.Hi-b.Lo)/float64(n), 1)))))
	out := []int64{b.Lo}
	for v := (b.Lo/step + 1) * step; v < b.Hi; v += step {
		out = append(out, v)
	}
	return append(out, b.Hi)
}

func drawLegend(bw *bufio.Writer, y float64, flight bool) {
	x := float64(marginLeft)
	bw.WriteString(`<g class="legend">`)
	for _, k := range []workload.Kind{workload.Input, workload.Activation, workload.Scratch, workload.Output, workload.Constant} {
		fmt.Fprintf(bw, `<rect x="%s" y="%s" width="12" height="12" fill="%s"/><text x="%s" y="%s">%s</text>`,
			num(x), num(y), kindColor[k], num(x+16), num(y+10), k)
		x += 95
	}
	fmt.Fprintf(bw, `<rect x="%s" y="%s" width="12" height="12" fill="url(#hatch)" stroke="#999"/><text x="%s" y="%s">reused space</text>`,
		num(x), num(y), num(x+16), num(y+10))
	x += 110
	fmt.Fprintf(bw, `<line stroke="#333" marker-end="url(#arrow)" x1="%s" y1="%s" x2="%s" y2="%s"/><text x="%s" y="%s">transfer</text>`,
		num(x), num(y+12), num(x), num(y), num(x+8), num(y+10))
	if flight {
		x += 80
		fmt.Fprintf(bw, `<rect x="%s" y="%s" width="12" height="12" fill="url(#inflight)" stroke="#333"/><text x="%s" y="%s">copy in flight (destination reserved)</text>`,
			num(x), num(y), num(x+16), num(y+10))
	}
	bw.WriteString("</g>\n")
}

// tickStep returns a step of 1, 2 or 5 times a power of ten that puts at
// most about n ticks on [0, span].
func tickStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	s := niceCeil(math.Max(raw, 1))
	return s
}

// ticks returns up to about n tick values on [0, top] (bytes): a power of
// two apart, so that they read 1 MiB, 2 MiB and not 1.9 MiB.
func ticks(top float64, n int) []float64 {
	step := math.Pow(2, math.Ceil(math.Log2(math.Max(top/float64(n), 1))))
	var out []float64
	for v := 0.0; v <= top*1.0001; v += step {
		out = append(out, v)
	}
	return out
}

// bytesLabel prints a byte count compactly: 512, 4 KiB, 1.5 MiB.
func bytesLabel(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10)
	}
	v, exp := float64(n), -1
	for v >= unit && exp < 5 {
		v /= unit
		exp++
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + string("KMGTPE"[exp]) + "iB"
}

// num prints a coordinate with at most two decimals.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

func esc(s string) string { return html.EscapeString(s) }
