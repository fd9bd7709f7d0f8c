package render

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/costmodel/timeline"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
)

// Timeline is one run of a program under the timeline model (FORMATS.md
// section 6), to draw: the simulation's trace and the names the trace
// does not know.
type Timeline struct {
	// Title heads the run's drawing, e.g. "initial" or "final".
	Title string
	// Trace is the run, from timeline.Breakdown. Required.
	Trace *timeline.Trace
	// OpNames are the ops' names, one per op of the trace, or nil: an op
	// is then shown by its index alone.
	OpNames []string
	// Copies label the copies, one per copy of the trace in its order, or
	// nil: a copy is then shown by its index alone.
	Copies []CopyLabel
	// Channels is the number of DMA channels, a lane each; 0 means as many
	// as the copies use (at least one).
	Channels int
	// TimeUnit is the profile's time unit ("cycle", "ns"); "" means "time
	// unit".
	TimeUnit string
}

// CopyLabel is what the drawing says of one copy (a transfer or a load).
type CopyLabel struct {
	Block    string // the block's name
	From, To string // the source and destination levels' names
	Bytes    int64  // the block's size
	// Start is the op at whose beginning the copy is issued, At the op
	// that waits for it (FORMATS.md 6.2).
	Start, At int
}

// TimelineOptions size a timeline drawing. Zero values mean the defaults.
type TimelineOptions struct {
	// Width is the width of the plot area in pixels, its number of pixel
	// columns (default 960).
	Width int
}

// TimelineElementsPerColumn bounds a timeline drawing's size: each lane
// holds at most this many SVG elements per pixel column of the plot, plus
// 3 (its group, frame and name). An op drawn alone takes 6 (a group, its
// title, a compute and a memory bar, a stall bar and its title), a copy 5
// (a group, its title, a queue and a transfer bar, a label), an
// aggregated column at most 5; a lane draws its items one by one only
// when they are no more than the columns.
const TimelineElementsPerColumn = 6

// TimelineFixedElements bounds the rest: at most this many elements per
// run (its group, title, end marker and time axis) and as many again for
// the document (root, style, legend). So a drawing of r runs, each with c
// DMA channels, on w columns has at most
// r*((c+1)*(TimelineElementsPerColumn*w+3) + TimelineFixedElements) +
// TimelineFixedElements elements.
const TimelineFixedElements = 50

// Timeline drawing colours (Okabe-Ito, and red for stalls as in the
// diagrams' capacity lines).
const (
	tlComputeColor  = "#0072B2"
	tlMemoryColor   = "#E69F00"
	tlStallColor    = "#c00"
	tlQueueColor    = "#888"
	tlTransferColor = "#009E73"
)

// The timeline's geometry, in pixels.
const (
	tlTitleH     = 26 // a run's title, above its lanes
	tlComputeH   = 36 // the compute lane: compute above its middle, memory below
	tlCopyH      = 30 // a DMA lane: queue rows above, transfers below
	tlQueueRows  = 3  // rows of the queue band; deeper queues share the last
	tlQueueRowH  = 3  // one queue row
	tlQueueBand  = tlQueueRows*tlQueueRowH + 2
	tlLaneGap    = 6
	tlAxisH      = 30
	tlRunGap     = 18
	tlCharW      = 6.2 // the width of a label's character at font-size 10, generously
	tlTitleCharW = 8.6 // the width of a run title's character (font-size 14, bold), generously
	tlTitleMin   = 24  // the fewest characters of a run's title drawn
	tlLabelPad   = 4
	tlMinBar     = 0.4 // the narrowest bar drawn
	tlMinDensity = 0.6 // the lowest bar drawn in an aggregated column
	tlGapFrom    = 3   // bars wider than this end tlGap early
	tlGap        = 0.5
)

// TimelineSVG draws one run of a program under the timeline model, as seed
// 004's figures 3 and 4 draw weight loading against inference: time runs
// to the right, in the profile's time unit; a lane per DMA channel on top
// (DMA 0 first) and the compute unit's lane at the bottom, so that a
// copy's end sits above the op that waits for it.
//
// The compute lane has a bar per op from its begin to its end: above the
// lane's middle its compute time, below it its memory time, both from the
// op's begin, so the longer fills the op (it lasts max(compute, memory))
// and shows what bounds it. A stall, the wait of an op for its copies
// from the previous op's end to its begin, is a red bar; every stall > 0
// is drawn, however short. A DMA lane has a bar per copy from its issue to
// its end: the queueing (issue to begin, waiting for the channel) is a
// thin grey line in the band at the top of the lane, one row per copy
// waiting at once (up to three; deeper queues share the third), and the
// transfer (begin to end) is a green bar below it, labelled with the
// block's name when the name fits. Hovering an op, a stall or a copy shows
// its figures: an op's name, times and bound; a stall's op and the copy it
// waits for; a copy's block, levels, bytes, ops, channel and times.
//
// A lane with more items than the plot has pixel columns (long programs:
// thousands of ops) is drawn a pixel column at a time instead: in the
// compute lane, bars whose heights are the share of the column's time the
// unit computes (up) and accesses memory (down), and a red column where
// any op stalls, the more opaque the more of the column's time is stalled;
// in a DMA lane, the share of the column the channel transfers and the
// mean number of copies waiting. A column's hover gives its ops, the
// shares and its longest stall with the op (in a DMA lane, the shares and
// the copies that end in it). So the drawing
// keeps at most TimelineElementsPerColumn elements per column and lane
// whatever the program's length: a 100,000-op run with 50,000 copies on
// two channels is about 1 MB and takes about 30 ms to write.
//
// Every op, stall, copy and aggregated column is a <g> (or a <rect> for a
// stall) of class tl-op, tl-stall, tl-copy or tl-col, with a <title>;
// lanes are <g class="tl-lane">, runs <g class="tl-run">. The classes and
// the absence of ids let the drawing sit in an HTML page beside others.
func TimelineSVG(w io.Writer, t *Timeline, o TimelineOptions) error {
	return TimelinesSVG(w, []*Timeline{t}, o)
}

// TimelinesSVG draws runs one above the other on one time scale, so that
// their time axes line up and a shorter run ends visibly earlier: the
// comparison of seed 004's figures 3 and 4. Put the reference (the initial
// plan) first. Each run is drawn as TimelineSVG draws one.
func TimelinesSVG(w io.Writer, ts []*Timeline, o TimelineOptions) error {
	if len(ts) == 0 {
		return errors.New("render: a timeline drawing needs at least one run")
	}
	if o.Width <= 0 {
		o.Width = 960
	}
	runs := make([]*tlRun, len(ts))
	tmax := 0.0
	for i, t := range ts {
		r, err := newTLRun(t)
		if err != nil {
			return fmt.Errorf("render: timeline %d (%q): %w", i, tlTitle(t), err)
		}
		runs[i] = r
		tmax = max(tmax, r.tr.Cost)
	}
	if tmax <= 0 {
		tmax = 1
	}
	totalW := float64(marginLeft + o.Width + marginRight)
	totalH := float64(marginTop)/2 + float64(legendHeight) + 8
	for _, r := range runs {
		totalH += r.height() + tlRunGap
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" class="tl" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="11">`+"\n",
		num(totalW), num(totalH), num(totalW), num(totalH))
	bw.WriteString(`<style>.tl-frame{fill:#fafafa;stroke:#999}.tl-c{fill:` + tlComputeColor + `}.tl-m{fill:` + tlMemoryColor + `}.tl-stall{fill:` + tlStallColor +
		`}.tl-q{fill:` + tlQueueColor + `}.tl-x{fill:` + tlTransferColor + `}.tl-lbl{fill:#fff;font-size:10px;pointer-events:none}.tl-end{stroke:#333;stroke-dasharray:4 3}</style>` + "\n")
	y := float64(marginTop) / 2
	for _, r := range runs {
		g := tlGeom{x0: marginLeft, width: float64(o.Width), cols: o.Width, tmax: tmax, y0: y}
		r.draw(bw, &g)
		y += r.height() + tlRunGap
	}
	tlLegend(bw, y)
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

func tlTitle(t *Timeline) string {
	if t == nil {
		return ""
	}
	return t.Title
}

// tlRun is one run checked and ready to draw.
type tlRun struct {
	t        *Timeline
	tr       *timeline.Trace
	channels int
	unit     string  // plural
	byChan   [][]int // per channel, its copies in issue order
	waitsFor []int   // per op, the copy it waits for that ends last, or -1
}

// newTLRun checks a run: a trace whose times are finite and >= 0, labels
// that match it, channels that hold its copies.
func newTLRun(t *Timeline) (*tlRun, error) {
	if t == nil || t.Trace == nil {
		return nil, errors.New("no trace")
	}
	tr := t.Trace
	if !tlTime(tr.Cost) {
		return nil, fmt.Errorf("cost %v (rule: a finite time >= 0)", tr.Cost)
	}
	for i := range tr.Ops {
		op := &tr.Ops[i]
		if !tlTime(op.Begin) || !tlTime(op.End) || !tlTime(op.Compute) || !tlTime(op.Memory) || !tlTime(op.Stall) || op.End < op.Begin || op.Stall > op.Begin {
			return nil, fmt.Errorf("op %d: begin %v, end %v, compute %v, memory %v, stall %v (rule: finite times >= 0, begin - stall >= 0, end >= begin)",
				i, op.Begin, op.End, op.Compute, op.Memory, op.Stall)
		}
	}
	if t.OpNames != nil && len(t.OpNames) != len(tr.Ops) {
		return nil, fmt.Errorf("%d op names for %d ops (rule: one per op, or none)", len(t.OpNames), len(tr.Ops))
	}
	if t.Copies != nil && len(t.Copies) != len(tr.Copies) {
		return nil, fmt.Errorf("%d copy labels for %d copies (rule: one per copy, or none)", len(t.Copies), len(tr.Copies))
	}
	if t.Channels < 0 {
		return nil, fmt.Errorf("%d channels (rule: >= 0, 0 for as many as the copies use)", t.Channels)
	}
	r := &tlRun{t: t, tr: tr, channels: max(t.Channels, 1), unit: "time units"}
	if t.TimeUnit != "" {
		r.unit = hw.Units(t.TimeUnit)
	}
	for k := range tr.Copies {
		c := &tr.Copies[k]
		if !tlTime(c.Issue) || !tlTime(c.Begin) || !tlTime(c.End) || c.Begin < c.Issue || c.End < c.Begin || c.Channel < 0 {
			return nil, fmt.Errorf("copy %d: issue %v, begin %v, end %v, channel %d (rule: finite times, issue <= begin <= end, channel >= 0)",
				k, c.Issue, c.Begin, c.End, c.Channel)
		}
		if t.Channels > 0 && c.Channel >= t.Channels {
			return nil, fmt.Errorf("copy %d: channel %d of %d (rule: channel < channels)", k, c.Channel, t.Channels)
		}
		if t.Channels == 0 {
			r.channels = max(r.channels, c.Channel+1)
		}
	}
	if t.Copies != nil {
		for k := range t.Copies {
			if l := &t.Copies[k]; l.Start < 0 || l.Start > l.At || l.At >= len(tr.Ops) {
				return nil, fmt.Errorf("copy %d (%q): start %d, at %d (rule: 0 <= start <= at < %d ops)", k, l.Block, l.Start, l.At, len(tr.Ops))
			}
		}
	}
	r.byChan = make([][]int, r.channels)
	for k := range tr.Copies {
		r.byChan[tr.Copies[k].Channel] = append(r.byChan[tr.Copies[k].Channel], k)
	}
	for _, ks := range r.byChan {
		// A channel runs its copies in the order they are issued (both
		// their issues and their begins increase); the trace lists them in
		// the program's order.
		slices.SortFunc(ks, func(a, b int) int {
			ca, cb := &tr.Copies[a], &tr.Copies[b]
			return cmp.Or(cmp.Compare(ca.Begin, cb.Begin), cmp.Compare(ca.Issue, cb.Issue), cmp.Compare(a, b))
		})
	}
	r.waitsFor = make([]int, len(tr.Ops))
	for i := range r.waitsFor {
		r.waitsFor[i] = -1
	}
	for k := range t.Copies {
		a := t.Copies[k].At
		if j := r.waitsFor[a]; j < 0 || tr.Copies[k].End > tr.Copies[j].End {
			r.waitsFor[a] = k
		}
	}
	return r, nil
}

// tlCount prints n things: "1 copy", "2 copies".
func tlCount(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func tlTime(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }

func (r *tlRun) height() float64 {
	return tlTitleH + float64(r.channels)*(tlCopyH+tlLaneGap) + tlComputeH + tlAxisH
}

// tlGeom maps a run's times to pixels.
type tlGeom struct {
	x0, width float64
	cols      int
	tmax      float64 // the time at the right edge, shared by every run
	y0        float64 // the top of the run
}

func (g *tlGeom) x(t float64) float64 { return g.x0 + g.width*t/g.tmax }

// span returns the left and the width of [a, b], at least tlMinBar wide.
func (g *tlGeom) span(a, b float64) (float64, float64) {
	x0, x1 := g.x(a), g.x(b)
	return x0, math.Max(x1-x0, tlMinBar)
}

// bar is span for a bar that may touch the next one of its colour: a bar
// wider than tlGapFrom pixels ends tlGap early, so that the two read as
// two.
func (g *tlGeom) bar(a, b float64) (float64, float64) {
	x, w := g.span(a, b)
	if w > tlGapFrom {
		w -= tlGap
	}
	return x, w
}

func (r *tlRun) opName(t int) string {
	if r.t.OpNames != nil && r.t.OpNames[t] != "" {
		return fmt.Sprintf("op %d %s", t, r.t.OpNames[t])
	}
	return fmt.Sprintf("op %d", t)
}

func (r *tlRun) copyName(k int) string {
	if r.t.Copies != nil {
		return r.t.Copies[k].Block
	}
	return fmt.Sprintf("copy %d", k)
}

func (r *tlRun) draw(bw *bufio.Writer, g *tlGeom) {
	tr := r.tr
	stats := fmt.Sprintf("%s %s; stalls %s (%.1f%%); %s, %s, %s", repCost(tr.Cost), r.unit,
		repCost(tr.Stall()), repPct(tr.Stall(), tr.Cost), tlCount(len(tr.Ops), "op", "ops"), tlCount(len(tr.Copies), "copy", "copies"),
		tlCount(r.channels, "DMA channel", "DMA channels"))
	// The title ends before the figures on its right: a longer one (a
	// plan's file and planner, say) is cut, whole in its tooltip; it keeps
	// tlTitleMin characters however narrow the drawing.
	title := r.t.Title
	room := max(int((g.width-tlCharW*float64(utf8.RuneCountInString(stats))-2*tlLabelPad)/tlTitleCharW), tlTitleMin)
	if n := utf8.RuneCountInString(title); n > room {
		title = string([]rune(title)[:max(room-1, 0)]) + "…"
	}
	fmt.Fprintf(bw, `<g class="tl-run"><text x="%s" y="%s" font-size="14" font-weight="bold">%s`, num(g.x0), num(g.y0+16), esc(title))
	if title != r.t.Title {
		fmt.Fprintf(bw, `<title>%s</title>`, esc(r.t.Title))
	}
	fmt.Fprintf(bw, `</text><text x="%s" y="%s" text-anchor="end" fill="#555">%s</text>`+"\n", num(g.x0+g.width), num(g.y0+16), esc(stats))
	y := g.y0 + tlTitleH
	for c := 0; c < r.channels; c++ {
		r.lane(bw, g, y, tlCopyH, "DMA "+strconv.Itoa(c), fmt.Sprintf("channel %d", c))
		if len(r.byChan[c]) <= g.cols {
			r.copies(bw, g, c, y)
		} else {
			r.copyColumns(bw, g, c, y)
		}
		bw.WriteString("</g>\n")
		y += tlCopyH + tlLaneGap
	}
	r.lane(bw, g, y, tlComputeH, "compute", "compute")
	if len(tr.Ops) <= g.cols {
		r.ops(bw, g, y)
	} else {
		r.opColumns(bw, g, y)
	}
	bw.WriteString("</g>\n")
	bottom := y + tlComputeH
	// The run's end, across its lanes.
	xe := g.x(tr.Cost)
	fmt.Fprintf(bw, `<line class="tl-end" x1="%s" y1="%s" x2="%s" y2="%s"><title>%s</title></line>`+"\n",
		num(xe), num(g.y0+tlTitleH-4), num(xe), num(bottom+4), esc(fmt.Sprintf("%s ends at %s %s", r.t.Title, repCost(tr.Cost), r.unit)))
	tlAxis(bw, g, bottom, r.unit)
	bw.WriteString("</g>\n")
}

// lane opens a lane's group and draws its frame and name.
func (r *tlRun) lane(bw *bufio.Writer, g *tlGeom, y, h float64, name, data string) {
	fmt.Fprintf(bw, `<g class="tl-lane" data-lane="%s"><rect class="tl-frame" x="%s" y="%s" width="%s" height="%s"/><text x="%s" y="%s" text-anchor="end">%s</text>`+"\n",
		esc(data), num(g.x0), num(y), num(g.width), num(h), num(g.x0-6), num(y+h/2+4), esc(name))
}

// ops draws the compute lane an op at a time.
func (r *tlRun) ops(bw *bufio.Writer, g *tlGeom, y float64) {
	mid := y + tlComputeH/2
	half := tlComputeH/2 - 2.0
	for t := range r.tr.Ops {
		op := &r.tr.Ops[t]
		if op.Stall > 0 {
			x, w := g.span(op.Begin-op.Stall, op.Begin)
			fmt.Fprintf(bw, `<rect class="tl-stall" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`+"\n",
				num(x), num(y+1), num(math.Max(w, 0.8)), num(tlComputeH-2), esc(r.stallTitle(t)))
		}
		bw.WriteString(`<g class="tl-op"><title>`)
		bw.WriteString(esc(r.opTitle(t)))
		bw.WriteString(`</title>`)
		if op.Compute > 0 {
			x, w := g.bar(op.Begin, op.Begin+op.Compute)
			fmt.Fprintf(bw, `<rect class="tl-c" x="%s" y="%s" width="%s" height="%s"/>`, num(x), num(mid-half), num(w), num(half))
		}
		if op.Memory > 0 || op.Compute == 0 {
			x, w := g.bar(op.Begin, op.Begin+op.Memory)
			fmt.Fprintf(bw, `<rect class="tl-m" x="%s" y="%s" width="%s" height="%s"/>`, num(x), num(mid), num(w), num(half))
		}
		bw.WriteString("</g>\n")
	}
}

func (r *tlRun) opTitle(t int) string {
	op := &r.tr.Ops[t]
	bound := "compute-bound"
	switch {
	case op.Memory > op.Compute:
		bound = "memory-bound"
	case op.Memory == op.Compute:
		bound = "compute = memory"
	}
	s := fmt.Sprintf("%s · %s–%s %s · compute %s · memory %s · %s", r.opName(t), repCost(op.Begin), repCost(op.End), r.unit,
		repCost(op.Compute), repCost(op.Memory), bound)
	if op.Stall > 0 {
		s += " · stalled " + repCost(op.Stall) + " before"
	}
	return s
}

func (r *tlRun) stallTitle(t int) string {
	op := &r.tr.Ops[t]
	s := fmt.Sprintf("stall %s %s before %s (%s–%s)", repCost(op.Stall), r.unit, r.opName(t), repCost(op.Begin-op.Stall), repCost(op.Begin))
	if k := r.waitsFor[t]; k >= 0 {
		s += fmt.Sprintf(": waits for %s, which ends at %s", r.copyName(k), repCost(r.tr.Copies[k].End))
	}
	return s
}

// copies draws channel c's lane a copy at a time.
func (r *tlRun) copies(bw *bufio.Writer, g *tlGeom, c int, y float64) {
	var rowEnd [tlQueueRows]float64 // per queue row, the begin of its last copy
	barY, barH := y+tlQueueBand, float64(tlCopyH-tlQueueBand-1)
	for _, k := range r.byChan[c] {
		cp := &r.tr.Copies[k]
		bw.WriteString(`<g class="tl-copy"><title>`)
		bw.WriteString(esc(r.copyTitle(k)))
		bw.WriteString(`</title>`)
		if cp.Begin > cp.Issue {
			row := tlQueueRows - 1
			for i, e := range rowEnd {
				if e <= cp.Issue {
					row = i
					break
				}
			}
			rowEnd[row] = max(rowEnd[row], cp.Begin)
			x, w := g.span(cp.Issue, cp.Begin)
			fmt.Fprintf(bw, `<rect class="tl-q" x="%s" y="%s" width="%s" height="%s"/>`, num(x), num(y+1+float64(row*tlQueueRowH)), num(w), num(tlQueueRowH-1))
		}
		x, w := g.bar(cp.Begin, cp.End)
		fmt.Fprintf(bw, `<rect class="tl-x" x="%s" y="%s" width="%s" height="%s"/>`, num(x), num(barY), num(w), num(barH))
		if name := r.copyName(k); w >= tlCharW*float64(utf8.RuneCountInString(name))+tlLabelPad {
			fmt.Fprintf(bw, `<text class="tl-lbl" x="%s" y="%s">%s</text>`, num(x+tlLabelPad/2), num(barY+barH/2+3.5), esc(name))
		}
		bw.WriteString("</g>\n")
	}
}

func (r *tlRun) copyTitle(k int) string {
	cp := &r.tr.Copies[k]
	var b strings.Builder
	if r.t.Copies != nil {
		l := &r.t.Copies[k]
		fmt.Fprintf(&b, "%s · %s → %s · %s · issued at %s, for %s · ", l.Block, l.From, l.To, Bytes(l.Bytes), r.opName(l.Start), r.opName(l.At))
	} else {
		fmt.Fprintf(&b, "copy %d · ", k)
	}
	fmt.Fprintf(&b, "DMA %d · issue %s, begin %s, end %s %s (queued %s, transfer %s)", cp.Channel, repCost(cp.Issue), repCost(cp.Begin), repCost(cp.End), r.unit,
		repCost(cp.Begin-cp.Issue), repCost(cp.End-cp.Begin))
	return b.String()
}

// tlCols sums, per pixel column, the time intervals cover in it: O(1) per
// interval and O(columns) to read, however long the intervals.
type tlCols struct {
	dt   float64   // a column's time
	full []float64 // difference array: +1 where a run of fully covered columns starts, -1 after it ends
	part []float64 // partly covered columns' overlaps
}

func newTLCols(g *tlGeom) *tlCols {
	return &tlCols{dt: g.tmax / float64(g.cols), full: make([]float64, g.cols+1), part: make([]float64, g.cols)}
}

// col is the column holding time v.
func (c *tlCols) col(v float64) int {
	return min(max(int(v/c.dt), 0), len(c.part)-1)
}

// last is the column holding the end of an interval that ends at v > its
// start: the column before v's when v is on a boundary.
func (c *tlCols) last(a, v float64) int {
	k := c.col(v)
	if k > c.col(a) && float64(k)*c.dt >= v {
		k--
	}
	return k
}

func (c *tlCols) add(a, b float64) {
	if b <= a {
		return
	}
	k0, k1 := c.col(a), c.last(a, b)
	if k0 == k1 {
		c.part[k0] += b - a
		return
	}
	c.part[k0] += max(float64(k0+1)*c.dt-a, 0)
	c.part[k1] += max(b-float64(k1)*c.dt, 0)
	c.full[k0+1]++
	c.full[k1]--
}

// sums returns the covered time per column.
func (c *tlCols) sums() []float64 {
	out := make([]float64, len(c.part))
	run := 0.0
	for k := range out {
		run += c.full[k]
		out[k] = c.part[k] + run*c.dt
	}
	return out
}

// opColumns draws the compute lane a pixel column at a time.
func (r *tlRun) opColumns(bw *bufio.Writer, g *tlGeom, y float64) {
	ops := r.tr.Ops
	comp, mem, stall := newTLCols(g), newTLCols(g), newTLCols(g)
	first, last, worst := make([]int, g.cols), make([]int, g.cols), make([]int, g.cols)
	for k := range first {
		first[k], worst[k] = -1, -1
	}
	for t := range ops {
		op := &ops[t]
		comp.add(op.Begin, op.Begin+op.Compute)
		mem.add(op.Begin, op.Begin+op.Memory)
		stall.add(op.Begin-op.Stall, op.Begin)
		a := op.Begin - op.Stall
		k1 := comp.col(a)
		if op.End > a {
			k1 = comp.last(a, op.End)
		}
		// Ops follow one another in time: the columns an op touches,
		// summed over the ops, are at most ops + columns.
		for k := comp.col(a); k <= k1; k++ {
			if first[k] < 0 {
				first[k] = t
			}
			last[k] = t
			if op.Stall > 0 && k <= stall.last(a, op.Begin) && (worst[k] < 0 || op.Stall > ops[worst[k]].Stall) {
				worst[k] = t
			}
		}
	}
	cs, ms, ss := comp.sums(), mem.sums(), stall.sums()
	mid := y + tlComputeH/2
	half := tlComputeH/2 - 2.0
	cw := g.width / float64(g.cols)
	for k := range first {
		if first[k] < 0 {
			continue
		}
		x := g.x0 + float64(k)*cw
		fc, fm, fs := min(cs[k]/comp.dt, 1), min(ms[k]/comp.dt, 1), min(ss[k]/comp.dt, 1)
		bw.WriteString(`<g class="tl-col"><title>`)
		bw.WriteString(esc(r.opColumnTitle(k, comp.dt, first[k], last[k], worst[k], fc, fm, fs)))
		bw.WriteString(`</title>`)
		if worst[k] >= 0 {
			fmt.Fprintf(bw, `<rect class="tl-stall" x="%s" y="%s" width="%s" height="%s" fill-opacity="%s"/>`,
				num(x), num(y+1), num(cw), num(tlComputeH-2), num(0.35+0.65*fs))
		}
		if fc > 0 {
			h := math.Max(fc*half, tlMinDensity)
			fmt.Fprintf(bw, `<rect class="tl-c" x="%s" y="%s" width="%s" height="%s"/>`, num(x), num(mid-h), num(cw), num(h))
		}
		if fm > 0 {
			fmt.Fprintf(bw, `<rect class="tl-m" x="%s" y="%s" width="%s" height="%s"/>`, num(x), num(mid), num(cw), num(math.Max(fm*half, tlMinDensity)))
		}
		bw.WriteString("</g>\n")
	}
}

func (r *tlRun) opColumnTitle(k int, dt float64, first, last, worst int, fc, fm, fs float64) string {
	var b strings.Builder
	if first == last {
		b.WriteString(r.opName(first))
	} else {
		fmt.Fprintf(&b, "%s … %s", r.opName(first), r.opName(last))
	}
	fmt.Fprintf(&b, " · %s–%s %s · compute %.0f%%, memory %.0f%%, stall %.0f%% of the column", repCompact(float64(k)*dt), repCompact(float64(k+1)*dt), r.unit,
		100*fc, 100*fm, 100*fs)
	if worst >= 0 {
		fmt.Fprintf(&b, " · longest stall %s before %s", repCost(r.tr.Ops[worst].Stall), r.opName(worst))
	}
	return b.String()
}

// copyColumns draws channel c's lane a pixel column at a time.
func (r *tlRun) copyColumns(bw *bufio.Writer, g *tlGeom, c int, y float64) {
	busy, queue := newTLCols(g), newTLCols(g)
	ends, firstEnd := make([]int, g.cols), make([]int, g.cols)
	for _, k := range r.byChan[c] {
		cp := &r.tr.Copies[k]
		busy.add(cp.Begin, cp.End)
		queue.add(cp.Issue, cp.Begin)
		e := busy.col(cp.End)
		if ends[e] == 0 {
			firstEnd[e] = k
		}
		ends[e]++
	}
	bs, qs := busy.sums(), queue.sums()
	barY, barH := y+tlQueueBand, float64(tlCopyH-tlQueueBand-1)
	cw := g.width / float64(g.cols)
	for k := range bs {
		if bs[k] <= 0 && qs[k] <= 0 && ends[k] == 0 {
			continue
		}
		x := g.x0 + float64(k)*cw
		fb, mq := min(bs[k]/busy.dt, 1), qs[k]/busy.dt
		bw.WriteString(`<g class="tl-col"><title>`)
		s := fmt.Sprintf("DMA %d · %s–%s %s · transfers %.0f%% of the column · %.2g copies waiting on average", c,
			repCompact(float64(k)*busy.dt), repCompact(float64(k+1)*busy.dt), r.unit, 100*fb, mq)
		if ends[k] > 0 {
			s += fmt.Sprintf(" · %d copies end here, the first %s", ends[k], r.copyName(firstEnd[k]))
		}
		bw.WriteString(esc(s))
		bw.WriteString(`</title>`)
		if mq > 0 {
			h := math.Max(math.Min(mq/tlQueueRows, 1)*(tlQueueBand-2), tlMinDensity)
			fmt.Fprintf(bw, `<rect class="tl-q" x="%s" y="%s" width="%s" height="%s"/>`, num(x), num(y+tlQueueBand-1-h), num(cw), num(h))
		}
		if fb > 0 {
			h := math.Max(fb*barH, tlMinDensity)
			fmt.Fprintf(bw, `<rect class="tl-x" x="%s" y="%s" width="%s" height="%s"/>`, num(x), num(barY+barH-h), num(cw), num(h))
		}
		bw.WriteString("</g>\n")
	}
}

// tlAxis draws the time ticks under a run whose lowest lane ends at y.
func tlAxis(bw *bufio.Writer, g *tlGeom, y float64, unit string) {
	bw.WriteString(`<g class="tl-axis">`)
	step := repStep(g.tmax, 10)
	for i := 0; ; i++ {
		v := float64(i) * step
		if v > g.tmax*(1+1e-9) {
			break
		}
		x := g.x(v)
		fmt.Fprintf(bw, `<line stroke="#999" x1="%s" y1="%s" x2="%s" y2="%s"/><text x="%s" y="%s" text-anchor="middle">%s</text>`,
			num(x), num(y), num(x), num(y+4), num(x), num(y+15), repCompact(v))
	}
	fmt.Fprintf(bw, `<text x="%s" y="%s" text-anchor="end" fill="#666">%s</text></g>`+"\n", num(g.x0+g.width), num(y+26), esc(unit))
}

func tlLegend(bw *bufio.Writer, y float64) {
	x := float64(marginLeft)
	bw.WriteString(`<g class="legend">`)
	for _, it := range []struct{ color, name string }{
		{tlComputeColor, "compute"}, {tlMemoryColor, "memory"}, {tlStallColor, "stall"}, {tlQueueColor, "copy queued"}, {tlTransferColor, "copy transferring"},
	} {
		fmt.Fprintf(bw, `<rect x="%s" y="%s" width="12" height="12" fill="%s"/><text x="%s" y="%s">%s</text>`,
			num(x), num(y), it.color, num(x+16), num(y+10), it.name)
		x += 40 + 6.5*float64(len(it.name))
	}
	bw.WriteString("</g>\n")
}

// PlanTimeline is the Timeline of a plan of p under the timeline model,
// from its breakdown (costmodel.Breakdown under a model whose Timeline()
// holds): the ops named as in the workload, each copy labelled with its
// block, levels and size, the profile's DMA channels and time unit.
func PlanTimeline(p *state.Problem, title string, rep *costmodel.Report) (*Timeline, error) {
	if rep == nil || rep.Timeline == nil {
		return nil, errors.New("render: a timeline drawing needs a breakdown under the timeline model")
	}
	tl := rep.Timeline
	tr := &timeline.Trace{Ops: tl.Ops, Copies: make([]timeline.CopyTrace, len(tl.Copies))}
	if n := len(tl.Ops); n > 0 {
		tr.Cost = tl.Ops[n-1].End
	}
	labels := make([]CopyLabel, len(tl.Copies))
	lv := p.HW.Levels
	for k := range tl.Copies {
		c := &tl.Copies[k]
		tr.Copies[k] = c.CopyTrace
		labels[k] = CopyLabel{Block: p.Block(c.Block).Name, From: lv[c.From].Name, To: lv[c.To].Name, Bytes: p.Block(c.Block).Size, Start: c.Start, At: c.At}
	}
	names := make([]string, len(p.Prog.Ops))
	for t := range names {
		names[t] = p.Prog.Ops[t].Name
	}
	return &Timeline{Title: title, Trace: tr, OpNames: names, Copies: labels, Channels: p.HW.Channels(), TimeUnit: p.HW.TimeUnit}, nil
}
