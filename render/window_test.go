package render_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/render"
)

var plXRE = regexp.MustCompile(`<rect class="pl [^"]*" x="([^"]*)" y="[^"]*" width="([^"]*)"`)

// TestWindow: a window of timesteps [40, 80] of gpt2-small-like-int8
// draws exactly the placements that meet it, cut to it (each rectangle
// inside the plot), its ticks from 40 to 81, its title says which
// window; bad windows are errors.
func TestWindow(t *testing.T) {
	p, lay := planned(t, "gpt2-small-like-int8", "ethos-u65")
	meet := 0
	for b, segs := range lay.Segs {
		for i, s := range segs {
			to := p.Block(b).Last
			if i+1 < len(segs) {
				to = int(segs[i+1].From) - 1
			}
			if s.IsResident() || (int(s.From) <= 80 && to >= 40) {
				meet++
			}
		}
	}
	var buf bytes.Buffer
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: lay}}, render.Options{Window: &render.Window{From: 40, To: 80}}))
	c := wellFormed(t, buf.Bytes())
	assert.Equal(t, meet, c["rect.pl"])
	assert.Less(t, meet, placements(lay), "some placements are outside the window")
	for _, m := range plXRE.FindAllStringSubmatch(buf.String(), -1) {
		x, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		w, err := strconv.ParseFloat(m[2], 64)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, x, 78.0)
		assert.LessOrEqual(t, x+w, 78+960+0.01)
	}
	assert.Contains(t, buf.String(), ">timesteps 40–80 of 184 · x</text>")
	ticks := regexp.MustCompile(`text-anchor="middle">(\d+)</text>`).FindAllStringSubmatch(buf.String(), -1)
	require.NotEmpty(t, ticks)
	for _, m := range ticks {
		v, _ := strconv.Atoi(m[1])
		assert.True(t, v >= 40 && v <= 81, "tick %d", v)
	}
	// 41 timesteps on 960 px: groups (layers h_2_ to h_5_), not ops.
	boxes := labelBoxes(t, buf.String())
	assertNoOverlap(t, boxes, 78, 78+960)
	assert.Equal(t, "h_2_", boxes[0].text)

	// A window of 10 timesteps names its ops.
	buf.Reset()
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: lay}}, render.Options{Window: &render.Window{From: 17, To: 26}}))
	boxes = labelBoxes(t, buf.String())
	require.NotEmpty(t, boxes)
	assert.Equal(t, "h_1_ln_1", boxes[0].text)

	for _, w := range []render.Window{{From: -1, To: 5}, {From: 5, To: 184}, {From: 9, To: 8}, {From: 184, To: 184}} {
		buf.Reset()
		err := render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: lay}}, render.Options{Window: &w})
		assert.Error(t, err, "%v", w)
		assert.Zero(t, buf.Len(), "nothing written for %v", w)
	}
	require.NoError(t, render.ASCII(&buf, p, lay, 41, 8, &render.Window{From: 40, To: 80}))
	assert.Contains(t, buf.String(), "41 timesteps [40,80] of 184, 1 per column")
	assert.Error(t, render.ASCII(&buf, p, lay, 41, 8, &render.Window{From: 80, To: 40}))
}

// TestLongTitleIsCut: a diagram's title longer than the drawing is cut
// with an ellipsis, whole in its tooltip.
func TestLongTitleIsCut(t *testing.T) {
	p, lay := planned(t, "seed000-example", "ethos-u55")
	long := strings.Repeat("a very long plan name ", 20)
	var buf bytes.Buffer
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: long, Layout: lay}}, render.Options{Width: 420}))
	m := regexp.MustCompile(`font-size="14" font-weight="bold">([^<]*)<title>([^<]*)</title></text>`).FindStringSubmatch(buf.String())
	require.NotNil(t, m)
	assert.Equal(t, long, m[2])
	assert.LessOrEqual(t, utf8.RuneCountInString(m[1]), 50, "420 px at 8.4 px a character")
	assert.True(t, strings.HasSuffix(m[1], "…"))
}

// TestZoomable: with Options.Zoomable each diagram's plan is drawn in a
// nested svg of class "zoom" whose viewBox is its own viewport (so that it
// draws the same with no script), over the window's timesteps, with every
// placement inside it; each panel's time axis is in a group of class
// "tax". Without the option there is none of them.
func TestZoomable(t *testing.T) {
	p := problem(t, shipped(t, "resnet18-int8"), "ethos-u55")
	lay := initial(t, p)
	ds := []render.Diagram{{Title: "a", Layout: lay}, {Title: "b", Layout: lay}}
	var plain, zoom bytes.Buffer
	require.NoError(t, render.SVG(&plain, p, ds, render.Options{}))
	require.NoError(t, render.SVG(&zoom, p, ds, render.Options{Zoomable: true}))
	assert.NotContains(t, plain.String(), `class="zoom"`)
	assert.NotContains(t, plain.String(), `class="tax"`)
	c := wellFormed(t, zoom.Bytes())
	assert.Equal(t, 2, c["svg.zoom"], "one per diagram")
	assert.Equal(t, 2*p.Levels(), c["g.tax"], "one per panel")
	assert.Equal(t, 2*placements(lay), c["rect.pl"])
	zs := regexp.MustCompile(`<svg class="zoom" x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)" viewBox="([0-9.]+) ([0-9.]+) ([0-9.]+) ([0-9.]+)" preserveAspectRatio="none" data-t0="0" data-t1="(\d+)"`).FindAllStringSubmatch(zoom.String(), -1)
	require.Len(t, zs, 2)
	for _, m := range zs {
		assert.Equal(t, m[1:5], m[5:9], "the viewBox is the viewport")
		assert.Equal(t, strconv.Itoa(p.Prog.Timesteps()), m[9])
	}
	// Every placement of a diagram is inside its zoom viewport.
	parts := strings.Split(zoom.String(), `<svg class="zoom"`)
	require.Len(t, parts, 3)
	for _, part := range parts[1:] {
		inner := part[:strings.Index(part, "</svg>")]
		assert.Equal(t, placements(lay), strings.Count(inner, `<rect class="pl `))
	}
}
