package render_test

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/render"
)

var aggImageRE = regexp.MustCompile(`<image class="agg" x="[^"]*" y="[^"]*" width="(\d+)" height="(\d+)" [^>]*href="data:image/png;base64,([^"]*)"/>`)

// TestAggregatedDiagram: the initializer's plan of a generated 8,000-op
// program on h100-sm (more than AggregateMinPlacements placements, more
// timesteps than the 960 pixel columns) is drawn a pixel at a time: no
// rectangle per placement, a picture per panel of 960 by 160 pixels,
// mostly opaque where the fastest level is full, a hover column per 4
// pixels; and a 2,000-op program still gets a rectangle per placement.
func TestAggregatedDiagram(t *testing.T) {
	prog, err := gen.Generate(gen.Options{Ops: 8000, Seed: 1})
	require.NoError(t, err)
	p := problem(t, prog, "h100-sm")
	lay := initial(t, p)
	require.Greater(t, placements(lay), render.AggregateMinPlacements)
	var buf bytes.Buffer
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: lay}}, render.Options{}))
	c := wellFormed(t, buf.Bytes())
	assert.Zero(t, c["rect.pl"])
	assert.Equal(t, p.Levels(), c["image.agg"])
	assert.Equal(t, p.Levels(), c["g.aggcols"])
	for _, m := range regexp.MustCompile(`<g class="aggcols"[^>]*>(.*)</g>`).FindAllStringSubmatch(buf.String(), -1) {
		assert.Equal(t, 960/4, strings.Count(m[1], "<rect "), "a hover column per 4 px")
		assert.Equal(t, 960/4, strings.Count(m[1], "<title>timesteps "))
	}
	assert.Contains(t, buf.String(), "8000 timesteps on 960 px: a pixel each")
	imgs := aggImageRE.FindAllStringSubmatch(buf.String(), -1)
	require.Len(t, imgs, p.Levels())
	data, err := base64.StdEncoding.DecodeString(imgs[0][3])
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Equal(t, 960, img.Bounds().Dx())
	assert.Equal(t, 160, img.Bounds().Dy())
	opaque := 0
	for y := range 160 {
		for x := range 960 {
			if _, _, _, a := img.At(x, y).RGBA(); a > 0 {
				opaque++
			}
		}
	}
	// The initializer fills SharedMem: most of its pixels are covered.
	assert.Greater(t, float64(opaque)/(960*160), 0.5)
	assert.Less(t, buf.Len(), 1<<20, "well under a MiB")
	t.Logf("8,000 ops, %d placements: %d bytes", placements(lay), buf.Len())

	prog, err = gen.Generate(gen.Options{Ops: 2000, Seed: 1})
	require.NoError(t, err)
	p = problem(t, prog, "h100-sm")
	lay = initial(t, p)
	buf.Reset()
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: lay}}, render.Options{}))
	c = wellFormed(t, buf.Bytes())
	assert.Equal(t, placements(lay), c["rect.pl"])
	assert.Zero(t, c["image.agg"])
}

// BenchmarkReport20000 writes the report of the initializer's plan of a
// generated 20,000-op program on h100-sm and reports its size (target:
// under 3 MB).
func BenchmarkReport20000(b *testing.B) {
	prog, err := gen.Generate(gen.Options{Ops: 20000, Seed: 1})
	require.NoError(b, err)
	p := problem(b, prog, "h100-sm")
	lay := initial(b, p)
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		if err := render.WriteReport(&buf, &render.Report{Problem: p, Final: lay}); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "bytes")
}

// TestLongReportStaysSmall: the report of the 8,000-op program draws its
// diagram a pixel at a time and its occupancy a pixel column at a time
// (at most 960 steps a path, the peaks kept).
func TestLongReportStaysSmall(t *testing.T) {
	prog, err := gen.Generate(gen.Options{Ops: 8000, Seed: 1})
	require.NoError(t, err)
	p := problem(t, prog, "h100-sm")
	lay := initial(t, p)
	var buf bytes.Buffer
	require.NoError(t, render.WriteReport(&buf, &render.Report{Problem: p, Final: lay}))
	doc := buf.String()
	assert.Contains(t, doc, `class="agg"`)
	paths := regexp.MustCompile(`<svg class="r-occ"[^>]*>[^\n]*\n(?:[^\n]*\n)*?<path d="([^"]*)"`).FindAllStringSubmatch(doc, -1)
	require.Len(t, paths, p.Levels())
	for _, m := range paths {
		assert.LessOrEqual(t, strings.Count(m[1], "H"), 960)
	}
	assert.Less(t, buf.Len(), 3<<20)
	t.Logf("8,000 ops: report %d bytes", buf.Len())
}
