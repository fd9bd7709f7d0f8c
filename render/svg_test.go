package render_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// seedProfile loads hwArg as profiles.Load does, but a built-in name as
// that profile's seed-model copy (testdata/hw/seed003/NAME.yaml: its
// levels, no compute, dma, read-only level or cost_model): these tests
// draw the seed model's plans (state.Bind without Semantics), and the
// built-in profiles name the timeline model.
func seedProfile(t testing.TB, hwArg string) *hw.Profile {
	t.Helper()
	if _, ok := profiles.YAML(hwArg); ok {
		hwArg = filepath.Join("..", "testdata", "hw", "seed003", hwArg+".yaml")
	}
	prof, err := profiles.Load(hwArg)
	require.NoError(t, err)
	return prof
}

func problem(t testing.TB, prog *workload.Program, hwArg string) *state.Problem {
	t.Helper()
	prof := seedProfile(t, hwArg)
	p, err := state.Bind(prog, prof, "test")
	require.NoError(t, err)
	return p
}

func shipped(t testing.TB, name string) *workload.Program {
	t.Helper()
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", name+".json"))
	require.NoError(t, err)
	return prog
}

func initial(t testing.TB, p *state.Problem) *state.Layout {
	t.Helper()
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	return lay
}

// wellFormed parses an SVG document as XML and counts its elements by
// class.
func wellFormed(t *testing.T, svg []byte) map[string]int {
	t.Helper()
	classes := map[string]int{}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	depth := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "the SVG is not well-formed XML")
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			for _, a := range e.Attr {
				if a.Name.Local == "class" {
					for _, c := range strings.Fields(a.Value) {
						classes[e.Name.Local+"."+c]++
					}
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	require.Zero(t, depth)
	return classes
}

func placements(lay *state.Layout) int {
	n := 0
	for _, s := range lay.Segs {
		n += len(s)
	}
	return n
}

// TestGoldenSeed000 pins the drawing of the seed-000 example before and
// after the search on the 5120-byte fast level (the seed's figures 3 and
// 4). go test ./render -update rewrites it.
func TestGoldenSeed000(t *testing.T) {
	p := problem(t, shipped(t, "seed000-example"), filepath.Join("..", "testdata", "hw", "two-level-5k.yaml"))
	before := initial(t, p)
	r, err := hieropt.Plan(context.Background(), p.Prog, p.HW, nil)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "initial", Layout: before}, {Title: "optimized", Layout: r.Layout}}, render.Options{}))
	golden := filepath.Join("..", "testdata", "golden", "seed000-example.two-level-5k.svg")
	if *update {
		require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test ./render -update to create it")
	assert.Equal(t, string(want), buf.String())
	c := wellFormed(t, buf.Bytes())
	assert.Equal(t, 12, c["rect.pl"], "6 blocks, one placement each, in two plans")
	assert.Equal(t, 4, c["g.panel"])
	assert.Equal(t, 2, c["g.diagram"])
	// op5.out is the output: SLOW before, FAST after.
	assert.Equal(t, 2, c["rect.k-output"])
}

// TestEverySVGIsWellFormed draws the initializer's plan of every shipped
// workload on every built-in profile and the search's plan beside it.
func TestEverySVGIsWellFormed(t *testing.T) {
	drawn := 0
	for _, p := range testprog.ShippedPairs(t, "..") {
		prog, h := p.Prog, p.HW.Name
		lay := state.NewLayout(p.Blocks())
		if _, err := actions.NewInitializer(p).Run(lay, 0); err != nil {
			continue
		}
		ds := []render.Diagram{{Title: "initializer", Layout: lay}}
		if !testmode.Quick() && prog.Timesteps() < 100 {
			r, err := hieropt.Plan(context.Background(), p.Prog, p.HW, nil)
			require.NoError(t, err)
			ds = append(ds, render.Diagram{Title: "search", Layout: r.Layout})
		}
		var buf bytes.Buffer
		require.NoError(t, render.SVG(&buf, p, ds, render.Options{}))
		c := wellFormed(t, buf.Bytes())
		want := 0
		for _, d := range ds {
			want += placements(d.Layout)
		}
		assert.Equal(t, want, c["rect.pl"], "%s on %s", prog.Name, h)
		assert.Equal(t, p.Levels()*len(ds), c["g.panel"])
		var ascii bytes.Buffer
		require.NoError(t, render.ASCII(&ascii, p, lay, 80, 6, nil))
		assert.Equal(t, p.Levels(), strings.Count(ascii.String(), "(capacity "))
		drawn++
	}
	assert.GreaterOrEqual(t, drawn, 80)
}

func TestTransfersAndReuseAreDrawn(t *testing.T) {
	// resnet50-int8 on Ethos-U55 has reusable activations (in-place
	// ReLUs and adds) and, searched, evictions; a hand-made transfer shows
	// as an arrow.
	p := problem(t, shipped(t, "resnet50-int8"), "ethos-u55")
	lay := initial(t, p)
	b, ok := p.BlockID("layer1_0_conv1.out")
	require.True(t, ok)
	blk := p.Block(b)
	require.Greater(t, blk.Last, blk.First)
	cur := lay.Segs[b][0]
	lay.MoveAt(b, blk.Last, state.Pos{Level: 1 - cur.Level, Offset: 0})
	var buf bytes.Buffer
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: lay}}, render.Options{}))
	c := wellFormed(t, buf.Bytes())
	assert.Equal(t, 1, c["line.xfer"], "one transfer")
	assert.Positive(t, c["rect.reuse"], "in-place ops share space")
	assert.Contains(t, buf.String(), "layer1_0_conv1.out moves at timestep")
}

func TestAxisLabelsStayFew(t *testing.T) {
	for _, n := range []int{6, 40, 300, 2000} {
		prog, err := gen.Generate(gen.Options{Ops: n, Seed: 1, Mix: gen.MixCNN})
		require.NoError(t, err)
		p := problem(t, prog, "h100-sm")
		var buf bytes.Buffer
		require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: initial(t, p)}}, render.Options{}))
		// Timestep labels: at most about a dozen per panel whatever n.
		labels := strings.Count(buf.String(), `text-anchor="middle">`)
		assert.LessOrEqual(t, labels, 3*14, "%d timesteps", n)
		assert.GreaterOrEqual(t, labels, 3*2, "%d timesteps", n)
	}
}

// BenchmarkRender2000 draws the initializer's plan of a generated
// 2,000-op program (target: well under 2 s).
func BenchmarkRender2000(b *testing.B) {
	prog, err := gen.Generate(gen.Options{Ops: 2000, Seed: 1})
	require.NoError(b, err)
	p := problem(b, prog, "h100-sm")
	lay := initial(b, p)
	var size int
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		if err := render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: lay}}, render.Options{}); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "bytes")
}
