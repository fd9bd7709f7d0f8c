package render_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/costmodel/timeline"
	"github.com/hieropt/hieropt/render"
)

// tlEvil is a block name that is HTML.
const tlEvil = `<b>&"`

// tlSmall is a hand-made program of 4 ops on 2 DMA channels and its two
// runs: the initial one, where w4 is copied at op 3 that needs it, and the
// final one, where w4 is prefetched at op 2.
//
// Ops: compute 2, 4, 3, 2; memory 1, 1, 5, 1. Copies issued at op 0, by
// (at, name): w1 (at 1, 3 units) on DMA 0 [0, 3]; <b>&" (at 2, 2) on DMA
// 1 [0, 2]; w2 (at 2, 5) on DMA 1, which finishes first (2 < 3), queued
// [0, 2] then [2, 7].
//
//	op 0: [0, 2]                       (d = max(2, 1) = 2)
//	op 1: waits for w1 until 3, stall 1, [3, 7]
//	op 2: w2 ended at 7: [7, 12] (memory-bound, d = 5)
//
// Initial: w4 (4 units) issued at op 3's start, 12, on DMA 0 (3 < 7),
// [12, 16]; op 3 stalls 4: [16, 18]. Cost 18. Final: w4 issued at op 2's
// start, 7, on DMA 0: [7, 11] <= 12; op 3 runs [12, 14] without a stall.
// Cost 14.
func tlSmall() (initial, final *render.Timeline, initialProg, finalProg *timeline.Program) {
	ops := func(stall3 float64) []timeline.OpTrace {
		return []timeline.OpTrace{
			{Begin: 0, End: 2, Compute: 2, Memory: 1},
			{Begin: 3, End: 7, Compute: 4, Memory: 1, Stall: 1},
			{Begin: 7, End: 12, Compute: 3, Memory: 5},
			{Begin: 12 + stall3, End: 14 + stall3, Compute: 2, Memory: 1, Stall: stall3},
		}
	}
	copies := func(w4 timeline.CopyTrace) []timeline.CopyTrace {
		return []timeline.CopyTrace{
			{Issue: 0, Begin: 0, End: 3, Channel: 0},
			{Issue: 0, Begin: 2, End: 7, Channel: 1},
			{Issue: 0, Begin: 0, End: 2, Channel: 1},
			w4,
		}
	}
	labels := func(w4start int) []render.CopyLabel {
		return []render.CopyLabel{
			{Block: "w1", From: "flash", To: "SRAM", Bytes: 3072, Start: 0, At: 1},
			{Block: "w2", From: "flash", To: "SRAM", Bytes: 5120, Start: 0, At: 2},
			{Block: tlEvil, From: "flash", To: "SRAM", Bytes: 2048, Start: 0, At: 2},
			{Block: "w4", From: "flash", To: "SRAM", Bytes: 4096, Start: w4start, At: 3},
		}
	}
	names := []string{"conv1", "conv2", "fc<1>", "fc2"}
	initial = &render.Timeline{Title: "initial", OpNames: names, Channels: 2, TimeUnit: "cycle", Copies: labels(3),
		Trace: &timeline.Trace{Cost: 18, Ops: ops(4), Copies: copies(timeline.CopyTrace{Issue: 12, Begin: 12, End: 16, Channel: 0})}}
	final = &render.Timeline{Title: "final", OpNames: names, Channels: 2, TimeUnit: "cycle", Copies: labels(2),
		Trace: &timeline.Trace{Cost: 14, Ops: ops(0), Copies: copies(timeline.CopyTrace{Issue: 7, Begin: 7, End: 11, Channel: 0})}}
	prog := func(w4start int) *timeline.Program {
		return &timeline.Program{
			Compute: []float64{2, 4, 3, 2}, Memory: []float64{1, 1, 5, 1}, Channels: 2,
			// Ranks in name order: <b>&" < w1 < w2 < w4.
			Copies: []timeline.Copy{{Start: 0, At: 1, Rank: 1, Time: 3}, {Start: 0, At: 2, Rank: 2, Time: 5}, {Start: 0, At: 2, Rank: 0, Time: 2}, {Start: w4start, At: 3, Rank: 3, Time: 4}},
		}
	}
	return initial, final, prog(3), prog(2)
}

// tlDoc is a drawing parsed: its elements by class, every element, the
// titles of the elements of each class.
type tlDoc struct {
	classes  map[string]int
	elements int
	titles   map[string][]string // class -> the titles of its elements (or of their groups)
}

// tlParse parses an SVG document as XML.
func tlParse(t *testing.T, svg []byte) tlDoc {
	t.Helper()
	d := tlDoc{classes: map[string]int{}, titles: map[string][]string{}}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	dec.Strict = true
	var stack []string // the class of each open element
	inTitle := false
	var title strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "the SVG is not well-formed XML")
		switch e := tok.(type) {
		case xml.StartElement:
			d.elements++
			class := ""
			for _, a := range e.Attr {
				if a.Name.Local == "class" {
					class = a.Value
					d.classes[e.Name.Local+"."+class]++
				}
			}
			stack = append(stack, class)
			if e.Name.Local == "title" {
				inTitle = true
				title.Reset()
			}
		case xml.CharData:
			if inTitle {
				title.Write(e)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if e.Name.Local == "title" {
				inTitle = false
				if len(stack) > 0 {
					d.titles[stack[len(stack)-1]] = append(d.titles[stack[len(stack)-1]], title.String())
				}
			}
		}
	}
	require.Empty(t, stack)
	return d
}

func tlDraw(t testing.TB, o render.TimelineOptions, ts ...*render.Timeline) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, render.TimelinesSVG(&buf, ts, o))
	return buf.Bytes()
}

// TestTimelineGolden pins the drawing of tlSmall's two runs. go test
// ./render -update rewrites it.
func TestTimelineGolden(t *testing.T) {
	ini, fin, pi, pf := tlSmall()
	// The hand-made traces are the model's.
	assert.Equal(t, ini.Trace, timeline.Breakdown(pi))
	assert.Equal(t, fin.Trace, timeline.Breakdown(pf))
	svg := tlDraw(t, render.TimelineOptions{}, ini, fin)
	golden := filepath.Join("..", "testdata", "golden", "timeline-small.svg")
	if *update {
		require.NoError(t, os.WriteFile(golden, svg, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test ./render -update to create it")
	assert.Equal(t, string(want), string(svg))
}

// TestTimelineSmall checks the drawing of tlSmall: a bar per op and per
// copy, stalls exactly where they are, lanes, hover titles, escaping, one
// time scale.
func TestTimelineSmall(t *testing.T) {
	ini, fin, _, _ := tlSmall()
	svg := tlDraw(t, render.TimelineOptions{}, ini, fin)
	d := tlParse(t, svg)
	assert.Equal(t, 2, d.classes["g.tl-run"])
	assert.Equal(t, 2*3, d.classes["g.tl-lane"], "per run, 2 DMA lanes and the compute lane")
	assert.Equal(t, 2*4, d.classes["g.tl-op"])
	assert.Equal(t, 2*4, d.classes["g.tl-copy"])
	assert.Zero(t, d.classes["g.tl-col"], "few ops: no aggregation")
	// Stalls: ops 1 and 3 initially, op 1 finally.
	assert.Equal(t, 3, d.classes["rect.tl-stall"])
	st := d.titles["tl-stall"]
	require.Len(t, st, 3)
	assert.Equal(t, "stall 1.00 cycles before op 1 conv2 (2.00–3.00): waits for w1, which ends at 3.00", st[0])
	assert.Equal(t, "stall 4.00 cycles before op 3 fc2 (12.00–16.00): waits for w4, which ends at 16.00", st[1])
	assert.Equal(t, "stall 1.00 cycles before op 1 conv2 (2.00–3.00): waits for w1, which ends at 3.00", st[2])
	// Queueing: w2 waits for DMA 1 in both runs.
	assert.Equal(t, 2, d.classes["rect.tl-q"])
	// Every op a compute and a memory bar.
	assert.Equal(t, 8, d.classes["rect.tl-c"])
	assert.Equal(t, 8, d.classes["rect.tl-m"])
	// Labels: every block's name fits its bar (at least 2 of 18 units of
	// 960 px, 106 px).
	assert.Equal(t, 8, d.classes["text.tl-lbl"])
	ops := d.titles["tl-op"]
	require.Len(t, ops, 8)
	assert.Equal(t, "op 2 fc<1> · 7.00–12.00 cycles · compute 3.00 · memory 5.00 · memory-bound", ops[2])
	assert.Equal(t, "op 3 fc2 · 16.00–18.00 cycles · compute 2.00 · memory 1.00 · compute-bound · stalled 4.00 before", ops[3])
	cps := d.titles["tl-copy"]
	require.Len(t, cps, 8)
	assert.Contains(t, cps, `<b>&" · flash → SRAM · 2.0 KiB · issued at op 0 conv1, for op 2 fc<1> · DMA 1 · issue 0.00, begin 0.00, end 2.00 cycles (queued 0.00, transfer 2.00)`)
	assert.Contains(t, cps, `w2 · flash → SRAM · 5.0 KiB · issued at op 0 conv1, for op 2 fc<1> · DMA 1 · issue 0.00, begin 2.00, end 7.00 cycles (queued 2.00, transfer 5.00)`)
	assert.Contains(t, cps, `w4 · flash → SRAM · 4.0 KiB · issued at op 2 fc<1>, for op 3 fc2 · DMA 0 · issue 7.00, begin 7.00, end 11.00 cycles (queued 0.00, transfer 4.00)`)
	// The HTML of the names is text, not markup.
	s := string(svg)
	assert.NotContains(t, s, tlEvil)
	assert.NotContains(t, s, "fc<1>")
	assert.Contains(t, s, "&lt;b&gt;&amp;&#34;")
	// One time scale: the final run's end is at 14/18 of the plot.
	ends := regexp.MustCompile(`<line class="tl-end" x1="([0-9.]+)"`).FindAllStringSubmatch(s, -1)
	require.Len(t, ends, 2)
	x0 := 78.0 // the plot's left
	xi, _ := strconv.ParseFloat(ends[0][1], 64)
	xf, _ := strconv.ParseFloat(ends[1][1], 64)
	assert.InDelta(t, 960, xi-x0, 0.01)
	assert.InDelta(t, 960*14.0/18, xf-x0, 0.01)
	// The same drawing twice.
	assert.Equal(t, svg, tlDraw(t, render.TimelineOptions{}, ini, fin))
}

// tlRandom is a random valid program of n ops: a copy for about every
// second op, issued up to 3 ops ahead, some ops with no compute or no
// memory time.
func tlRandom(rng *rand.Rand, n, channels int) *timeline.Program {
	p := &timeline.Program{Compute: make([]float64, n), Memory: make([]float64, n), Channels: channels}
	for t := range n {
		if rng.IntN(5) > 0 {
			p.Compute[t] = float64(rng.IntN(8)) / 2
		}
		if rng.IntN(5) > 0 {
			p.Memory[t] = float64(rng.IntN(8)) / 2
		}
	}
	for k := range n / 2 {
		at := rng.IntN(n)
		p.Copies = append(p.Copies, timeline.Copy{Start: at - rng.IntN(min(at, 3)+1), At: at, Rank: int64(k), Time: float64(rng.IntN(12)) / 2})
	}
	return p
}

func tlOf(p *timeline.Program, title string, channels int) *render.Timeline {
	tr := timeline.Breakdown(p)
	t := &render.Timeline{Title: title, Trace: tr, Channels: channels, TimeUnit: "ns",
		OpNames: make([]string, p.Len()), Copies: make([]render.CopyLabel, len(p.Copies))}
	for i := range t.OpNames {
		t.OpNames[i] = "op" + strconv.Itoa(i)
	}
	for k, c := range p.Copies {
		t.Copies[k] = render.CopyLabel{Block: fmt.Sprintf("b%d", k), From: "DRAM", To: "SRAM", Bytes: 1000, Start: c.Start, At: c.At}
	}
	return t
}

// TestTimelineRandom draws random programs' traces: a bar per op and per
// copy, a stall bar exactly for each op that stalls, naming it, a lane per
// channel and one for compute, each copy in its channel's lane.
func TestTimelineRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n, channels := 1+rng.IntN(80), 1+rng.IntN(3)
		p := tlRandom(rng, n, channels)
		require.NoError(t, p.Validate())
		tl := tlOf(p, "r", channels)
		svg := tlDraw(t, render.TimelineOptions{}, tl)
		d := tlParse(t, svg)
		tr := tl.Trace
		assert.Equal(t, n, d.classes["g.tl-op"], "round %d", round)
		assert.Equal(t, len(p.Copies), d.classes["g.tl-copy"])
		assert.Equal(t, channels+1, d.classes["g.tl-lane"])
		var want []string
		for i, op := range tr.Ops {
			if op.Stall > 0 {
				want = append(want, "op "+strconv.Itoa(i)+" op"+strconv.Itoa(i)+" (")
			}
		}
		got := d.titles["tl-stall"]
		require.Len(t, got, len(want), "round %d: a stall bar per op that stalls", round)
		for i := range want {
			assert.Contains(t, got[i], want[i])
		}
		// Each lane holds its channel's copies: the lanes are DMA 0, DMA
		// 1, ..., compute.
		lanes := strings.Split(string(svg), `<g class="tl-lane"`)[1:]
		require.Len(t, lanes, channels+1)
		for c := range channels {
			k := 0
			for i := range tr.Copies {
				if tr.Copies[i].Channel == c {
					k++
					assert.Contains(t, lanes[c], "<title>b"+strconv.Itoa(i)+" · ")
				}
			}
			assert.Equal(t, k, strings.Count(lanes[c], `class="tl-copy"`))
		}
	}
}

// TestTimelineChannels: Channels 0 means the channels the copies use; a
// channel without copies still gets its lane.
func TestTimelineChannels(t *testing.T) {
	ini, _, _, _ := tlSmall()
	for _, c := range []struct{ given, lanes int }{{0, 2 + 1}, {2, 2 + 1}, {5, 5 + 1}} {
		tl := *ini
		tl.Channels = c.given
		d := tlParse(t, tlDraw(t, render.TimelineOptions{}, &tl))
		assert.Equal(t, c.lanes, d.classes["g.tl-lane"], "channels %d", c.given)
		assert.Equal(t, 4, d.classes["g.tl-copy"])
	}
	// No copies, no names: one DMA lane, ops by their index.
	tl := &render.Timeline{Trace: &timeline.Trace{Cost: 2, Ops: []timeline.OpTrace{{Begin: 0, End: 2, Compute: 0, Memory: 2}}}}
	d := tlParse(t, tlDraw(t, render.TimelineOptions{}, tl))
	assert.Equal(t, 2, d.classes["g.tl-lane"])
	assert.Equal(t, []string{"op 0 · 0.00–2.00 time units · compute 0.00 · memory 2.00 · memory-bound"}, d.titles["tl-op"])
}

// TestTimelineErrors: a drawing of a trace that is not one, or of labels
// that do not match it, is an error naming the item.
func TestTimelineErrors(t *testing.T) {
	bad := func(f func(tl *render.Timeline)) error {
		ini, _, _, _ := tlSmall()
		f(ini)
		var buf bytes.Buffer
		return render.TimelineSVG(&buf, ini, render.TimelineOptions{})
	}
	for want, f := range map[string]func(tl *render.Timeline){
		"no trace":                              func(tl *render.Timeline) { tl.Trace = nil },
		"3 op names for 4 ops":                  func(tl *render.Timeline) { tl.OpNames = tl.OpNames[:3] },
		"5 copy labels for 4 copies":            func(tl *render.Timeline) { tl.Copies = append(tl.Copies, render.CopyLabel{}) },
		"-1 channels":                           func(tl *render.Timeline) { tl.Channels = -1 },
		"copy 1: channel 1 of 1":                func(tl *render.Timeline) { tl.Channels = 1 },
		"op 2: begin NaN":                       func(tl *render.Timeline) { tl.Trace.Ops[2].Begin = math.NaN() },
		"cost +Inf":                             func(tl *render.Timeline) { tl.Trace.Cost = math.Inf(1) },
		"copy 0: issue 0, begin 0, end -1":      func(tl *render.Timeline) { tl.Trace.Copies[0].End = -1 },
		`copy 3 ("w4"): start 3, at 4`:          func(tl *render.Timeline) { tl.Copies[3].At = 4 },
		`copy 2 ("<b>&\""): start -1, at 2`:     func(tl *render.Timeline) { tl.Copies[2].Start = -1 },
		"op 1: begin 3, end 7, compute 4, memo": func(tl *render.Timeline) { tl.Trace.Ops[1].Stall = 3.5 },
	} {
		err := bad(f)
		if assert.Error(t, err, want) {
			assert.Contains(t, err.Error(), want)
			assert.Contains(t, err.Error(), `render: timeline 0 ("initial")`)
		}
	}
	var buf bytes.Buffer
	assert.Error(t, render.TimelinesSVG(&buf, nil, render.TimelineOptions{}))
	assert.Error(t, render.TimelineSVG(&buf, nil, render.TimelineOptions{}))
	assert.Zero(t, buf.Len(), "nothing written on an error")
}

// tlCap is the most elements TimelineElementsPerColumn and
// TimelineFixedElements allow.
func tlCap(ts []*render.Timeline, width int) int {
	n := render.TimelineFixedElements
	for _, t := range ts {
		n += (t.Channels+1)*(render.TimelineElementsPerColumn*width+3) + render.TimelineFixedElements
	}
	return n
}

// TestTimelineLong: long programs are drawn a pixel column at a time, within
// the element cap, in well under 2 MB, with a red column exactly where an
// op stalls; up to as many ops as columns, an op at a time.
func TestTimelineLong(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ ops, width int }{{960, 960}, {961, 960}, {3000, 960}, {10000, 500}, {100000, 960}} {
		p := tlRandom(rng, c.ops, 2)
		tl := tlOf(p, "long", 2)
		o := render.TimelineOptions{Width: c.width}
		svg := tlDraw(t, o, tl)
		d := tlParse(t, svg)
		assert.LessOrEqual(t, d.elements, tlCap([]*render.Timeline{tl}, c.width), "%d ops", c.ops)
		assert.Less(t, len(svg), 2<<20, "%d ops", c.ops)
		assert.Equal(t, 3, d.classes["g.tl-lane"])
		if c.ops <= c.width {
			assert.Equal(t, c.ops, d.classes["g.tl-op"])
			assert.Zero(t, d.classes["g.tl-col"])
		} else {
			assert.Zero(t, d.classes["g.tl-op"], "%d ops", c.ops)
			// Every column of the run holds an op: the compute lane has
			// one group per column.
			lanes := strings.Split(string(svg), `<g class="tl-lane"`)[1:]
			require.Len(t, lanes, 3)
			assert.Equal(t, c.width, strings.Count(lanes[2], `<g class="tl-col">`))
			tlCheckStallColumns(t, tl.Trace, lanes[2], c.width)
		}
		// A DMA lane is aggregated when its channel has more copies than
		// columns: then a group per column at most.
		lanes := strings.Split(string(svg), `<g class="tl-lane"`)[1:]
		for ch, l := range lanes[:2] {
			n := 0
			for _, cp := range tl.Trace.Copies {
				if cp.Channel == ch {
					n++
				}
			}
			if n <= c.width {
				assert.Equal(t, n, strings.Count(l, `<g class="tl-copy">`))
				assert.Zero(t, strings.Count(l, `<g class="tl-col">`))
			} else {
				assert.Zero(t, strings.Count(l, `<g class="tl-copy">`))
				assert.LessOrEqual(t, strings.Count(l, `<g class="tl-col">`), c.width)
				assert.Positive(t, strings.Count(l, `<g class="tl-col">`))
			}
		}
		t.Logf("%d ops, %d copies, %d px: %d elements (cap %d), %d bytes", c.ops, len(p.Copies), c.width, d.elements,
			tlCap([]*render.Timeline{tl}, c.width), len(svg))
	}
	// Two runs of 100,000 ops side by side stay within the cap too.
	a, b := tlOf(tlRandom(rng, 100000, 2), "a", 2), tlOf(tlRandom(rng, 100000, 2), "b", 2)
	svg := tlDraw(t, render.TimelineOptions{}, a, b)
	d := tlParse(t, svg)
	assert.LessOrEqual(t, d.elements, tlCap([]*render.Timeline{a, b}, 960))
	t.Logf("two runs of 100000 ops: %d elements, %d bytes", d.elements, len(svg))
}

var tlColRe = regexp.MustCompile(`<g class="tl-col"><title>([^<]*)</title>(<rect class="tl-stall" x="([0-9.]+)")?`)

// tlCheckStallColumns checks an aggregated compute lane: a column is red
// exactly when some op's stall overlaps it, and its title names the
// longest such stall.
func tlCheckStallColumns(t *testing.T, tr *timeline.Trace, lane string, width int) {
	t.Helper()
	dt := tr.Cost / float64(width)
	longest := make([]int, width) // per column, the op with the longest stall in it, or -1
	for k := range longest {
		longest[k] = -1
	}
	for i, op := range tr.Ops {
		if op.Stall <= 0 {
			continue
		}
		a, b := op.Begin-op.Stall, op.Begin
		for k := int(math.Floor(a / dt)); k < width && float64(k)*dt < b; k++ {
			if longest[k] < 0 || op.Stall > tr.Ops[longest[k]].Stall {
				longest[k] = i
			}
		}
	}
	cols := tlColRe.FindAllStringSubmatch(lane, -1)
	require.Len(t, cols, width)
	red := 0
	for k, m := range cols {
		if longest[k] < 0 {
			assert.Empty(t, m[2], "column %d: no stall", k)
			assert.NotContains(t, m[1], "longest stall")
			continue
		}
		red++
		if assert.NotEmpty(t, m[2], "column %d: a stall", k) {
			x, err := strconv.ParseFloat(m[3], 64)
			require.NoError(t, err)
			assert.InDelta(t, 78+float64(k), x, 0.01)
		}
		op := tr.Ops[longest[k]]
		assert.Contains(t, m[1], fmt.Sprintf("longest stall %s before op %d op%d", tlCost(op.Stall), longest[k], longest[k]), "column %d", k)
	}
	assert.Positive(t, red, "the random programs stall")
}

// tlCost prints a time as the titles do: two decimals, thousands
// separated.
func tlCost(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	i, f, _ := strings.Cut(s, ".")
	for j := len(i) - 3; j > 0; j -= 3 {
		i = i[:j] + "," + i[j:]
	}
	return i + "." + f
}

// BenchmarkTimelineSVG100k draws a 100,000-op run with 50,000 copies on
// two channels (target: well under a second).
func BenchmarkTimelineSVG100k(b *testing.B) {
	tl := tlOf(tlRandom(rand.New(rand.NewPCG(5, 6)), 100000, 2), "x", 2)
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		if err := render.TimelineSVG(&buf, tl, render.TimelineOptions{}); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "bytes")
}

// TestTimelineElementCap: the densest traces, every op stalled with
// compute and memory time and every copy queued, as many as the columns
// and one more, stay within the stated cap.
func TestTimelineElementCap(t *testing.T) {
	const w = 200
	for _, n := range []int{w, w + 1} {
		tr := &timeline.Trace{Cost: float64(2 * n)}
		for i := range n {
			tr.Ops = append(tr.Ops, timeline.OpTrace{Begin: float64(2*i + 1), End: float64(2*i + 2), Compute: 1, Memory: 1, Stall: 1})
		}
		for ch := range 2 {
			for k := range n {
				tr.Copies = append(tr.Copies, timeline.CopyTrace{Issue: 0, Begin: float64(2 * k), End: float64(2*k + 2), Channel: ch})
			}
		}
		tl := &render.Timeline{Title: "dense", Trace: tr, Channels: 2}
		d := tlParse(t, tlDraw(t, render.TimelineOptions{Width: w}, tl))
		limit := tlCap([]*render.Timeline{tl}, w)
		assert.LessOrEqual(t, d.elements, limit, "%d ops", n)
		if n == w {
			assert.Equal(t, n, d.classes["rect.tl-stall"])
			assert.Equal(t, 2*(n-1), d.classes["rect.tl-q"], "every copy but each channel's first is queued")
		} else {
			assert.Equal(t, w, d.classes["rect.tl-stall"], "a red column each")
		}
		t.Logf("%d ops and %d copies on %d columns: %d elements (cap %d)", n, 2*n, w, d.elements, limit)
	}
}
