package render

// An internal test, with helpers prefixed "rt", so that it shares no name
// with the SVG tests of package render_test.

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// rtProblem binds prog to hwArg, a built-in name meaning that profile's
// seed-model copy (testdata/hw/seed003/NAME.yaml: its levels, no compute,
// dma, read-only level or cost_model): these tests draw the seed model's
// plans (state.Bind without Semantics), and the built-in profiles name
// the timeline model.
func rtProblem(t testing.TB, prog *workload.Program, hwArg string) *state.Problem {
	t.Helper()
	if _, ok := profiles.YAML(hwArg); ok {
		hwArg = filepath.Join("..", "testdata", "hw", "seed003", hwArg+".yaml")
	}
	prof, err := profiles.Load(hwArg)
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, "test")
	require.NoError(t, err)
	return p
}

func rtShipped(t testing.TB, name string) *workload.Program {
	t.Helper()
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", name+".json"))
	require.NoError(t, err)
	return prog
}

func rtInitial(t testing.TB, p *state.Problem) *state.Layout {
	t.Helper()
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	return lay
}

func rtSearch(t testing.TB, p *state.Problem) *state.Layout {
	t.Helper()
	res, err := hieropt.Plan(context.Background(), p.Prog, p.HW, nil)
	require.NoError(t, err)
	return res.Layout
}

func rtWrite(t testing.TB, r *Report) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteReport(&buf, r))
	return buf.String()
}

var rtPlacementRe = regexp.MustCompile(`class="pl[ "]`)

// rtSVGs checks that every outermost <svg>…</svg> fragment of the report is
// well-formed XML and returns them.
func rtSVGs(t *testing.T, doc string) []string {
	t.Helper()
	var out []string
	rest := doc
	for {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		// The matching </svg>: a diagram holds an <svg class="zoom">.
		j, depth := i, 0
		for {
			o, c := strings.Index(rest[j+1:], "<svg"), strings.Index(rest[j+1:], "</svg>")
			require.GreaterOrEqual(t, c, 0, "an <svg> without </svg>")
			if o >= 0 && o < c {
				depth++
				j += 1 + o
				continue
			}
			j += 1 + c
			if depth == 0 {
				break
			}
			depth--
		}
		j -= i
		frag := rest[i : i+j+len("</svg>")]
		dec := xml.NewDecoder(strings.NewReader(frag))
		dec.Strict = true
		for {
			_, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err, "SVG fragment %d is not well-formed XML", len(out))
		}
		out = append(out, frag)
		rest = rest[i+j:]
	}
	return out
}

// rtSelfContained checks that the report loads nothing: no URL but the SVG
// namespace, no script, no external reference.
func rtSelfContained(t *testing.T, doc string) {
	t.Helper()
	for _, scheme := range []string{"http://", "https://"} {
		for i := 0; ; {
			j := strings.Index(doc[i:], scheme)
			if j < 0 {
				break
			}
			i += j
			assert.True(t, strings.HasPrefix(doc[i:], "http://www.w3.org/2000/svg\""), "external URL at %q", doc[i:min(len(doc), i+60)])
			i += len(scheme)
		}
	}
	low := strings.ToLower(doc)
	// One inline script, the diagrams' zoom: nothing it loads.
	assert.Equal(t, 1, strings.Count(low, "<script"), "one script")
	assert.Equal(t, 1, strings.Count(low, "<script>\n"), "inline, with no attributes")
	assert.NotContains(t, low, "fetch(")
	assert.NotContains(t, low, "xmlhttprequest")
	assert.NotContains(t, low, "@import")
	assert.NotContains(t, low, " src=")
	assert.NotContains(t, low, "//fonts.")
	for _, m := range regexp.MustCompile(`url\(([^)]*)\)`).FindAllStringSubmatch(doc, -1) {
		assert.True(t, strings.HasPrefix(m[1], "#"), "url(%s) is not a fragment", m[1])
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(doc, -1) {
		assert.True(t, strings.HasPrefix(m[1], "#") || m[1] == "data:,", "href %q", m[1])
	}
}

func rtSections(t *testing.T, doc string) {
	t.Helper()
	assert.True(t, strings.HasPrefix(doc, "<!DOCTYPE html>\n<html"))
	assert.True(t, strings.HasSuffix(doc, "</html>\n"))
	for _, id := range ReportSections {
		assert.Equal(t, 1, strings.Count(doc, `<section id="`+id+`">`), "section %s", id)
	}
	assert.Equal(t, strings.Count(doc, "<section"), strings.Count(doc, "</section>"))
	assert.Equal(t, strings.Count(doc, "<table"), strings.Count(doc, "</table>"))
}

// section returns the HTML of the section with the given id.
func rtSection(t *testing.T, doc, id string) string {
	t.Helper()
	i := strings.Index(doc, `<section id="`+id+`">`)
	require.GreaterOrEqual(t, i, 0, id)
	j := strings.Index(doc[i:], "</section>")
	require.GreaterOrEqual(t, j, 0, id)
	return doc[i : i+j]
}

func TestReportShippedWorkloads(t *testing.T) {
	cases := []struct{ workload, hw string }{
		{"seed000-example", filepath.Join("..", "testdata", "hw", "two-level-5k.yaml")},
		{"resnet50-int8", "ethos-u55"},
	}
	for _, c := range cases {
		t.Run(c.workload, func(t *testing.T) {
			p := rtProblem(t, rtShipped(t, c.workload), c.hw)
			ini, fin := rtInitial(t, p), rtSearch(t, p)
			model, _ := costmodel.Lookup(costmodel.Default)
			doc := rtWrite(t, &Report{Problem: p, Model: model, Initial: ini, Final: fin, Planner: "search: test",
				Settings: [][2]string{{"beam", "4"}, {"status", "converged"}}, Version: "v0-test"})
			rtSections(t, doc)
			rtSelfContained(t, doc)
			svgs := rtSVGs(t, doc)
			same := ini.Equal(fin)
			want := len(fin.Plan(p).Placements)
			if !same {
				want += len(ini.Plan(p).Placements)
			}
			assert.Equal(t, want, len(rtPlacementRe.FindAllString(doc, -1)), "one rect.pl per placement of each plan")
			// One diagram SVG, the time chart, one occupancy chart per level.
			assert.Len(t, svgs, 2+p.Levels())
			diag := rtSection(t, doc, "diagrams")
			assert.Equal(t, want, len(rtPlacementRe.FindAllString(diag, -1)), "the placements are all in the diagrams section")
			nd := 2
			if same {
				nd = 1
			}
			assert.Equal(t, nd, strings.Count(diag, `<g class="diagram">`))
			assert.Equal(t, nd*p.Levels(), strings.Count(diag, `<g class="panel"`))
			// Summary figures.
			sum := rtSection(t, doc, "summary")
			st := p.Prog.ComputeStats()
			assert.Contains(t, sum, repCost(costmodel.Total(model, p, fin)))
			assert.Contains(t, sum, repCost(costmodel.Total(model, p, ini)))
			assert.Contains(t, sum, "cycles")
			assert.Contains(t, sum, strings.TrimSpace(Bytes(st.MaxLive)))
			for _, lv := range p.HW.Levels {
				assert.Contains(t, sum, ">"+lv.Name+"</td>")
			}
			for l, peak := range costmodel.PeakBytes(p, fin) {
				assert.Contains(t, sum, `title="`+strconv.FormatInt(peak, 10)+` B"`, "peak of level %d", l)
			}
			// The time chart: a bar per timestep (short programs).
			assert.Equal(t, p.Prog.Timesteps(), strings.Count(rtSection(t, doc, "time"), `<g class="r-bar">`))
			// Blocks: the top 20 (or all).
			blocks := rtSection(t, doc, "blocks")
			assert.Equal(t, min(ReportTopBlocks, p.Blocks()), strings.Count(blocks, "<tr>")-1)
			// Transfers: one row each.
			tr := rtSection(t, doc, "transfers")
			if n := fin.Transfers(); n == 0 {
				assert.Contains(t, tr, "moves no block")
			} else {
				assert.Equal(t, min(n, ReportMaxTransfers), strings.Count(tr, "<tr>")-1)
			}
			set := rtSection(t, doc, "settings")
			for _, s := range []string{"search: test", "v0-test", "converged", "seed003"} {
				assert.Contains(t, set, s)
			}
			// Deterministic.
			again := rtWrite(t, &Report{Problem: p, Model: model, Initial: ini, Final: fin, Planner: "search: test",
				Settings: [][2]string{{"beam", "4"}, {"status", "converged"}}, Version: "v0-test"})
			assert.Equal(t, doc, again)
			t.Logf("%s: %d bytes, %d placements drawn", c.workload, len(doc), want)
		})
	}
}

// TestReportBusyBytesMatchPeak: the occupancy charts count what
// costmodel.PeakBytes counts.
func TestReportBusyBytesMatchPeak(t *testing.T) {
	for _, name := range []string{"seed000-example", "resnet50-int8", "mobilenet_v2-int8"} {
		p := rtProblem(t, rtShipped(t, name), "ethos-u55")
		for _, lay := range []*state.Layout{rtInitial(t, p)} {
			busy := BusyBytes(p, lay)
			peak := costmodel.PeakBytes(p, lay)
			for l := range busy {
				var m int64
				for _, v := range busy[l] {
					m = max(m, v)
				}
				assert.Equal(t, peak[l], m, "%s level %d", name, l)
			}
		}
	}
}

// TestReportEscapes: names that are HTML are shown, not interpreted.
func TestReportEscapes(t *testing.T) {
	const evil = `<b>&"x`
	prog := testprog.New(`<w>&'`, 3).
		Block(evil, 100, "input", 0, 1).
		Block("y</td>", 200, "activation", 1, 2).
		Block("w'<script>", 64, "constant", 0, 2, testprog.Reads(2)).
		Program()
	prog.Ops[1].Name = `<i>op"1`
	prof := testprog.Profile(`<hw>`,
		testprog.Level{Name: `<L0>`, Capacity: 256, Align: 16, Latency: 1, Bandwidth: 8},
		testprog.Level{Name: `L"1`, Capacity: 4096, Align: 16, Latency: 10, Bandwidth: 1})
	p := testprog.Bind(prog, prof)
	ini := rtInitial(t, p)
	// A final plan with a transfer of the evil block.
	fin := ini.Clone()
	at := fin.At(0, 1)
	fin.MoveAt(0, 1, state.Pos{Level: 1 - at.Level, Offset: 2048})
	require.NoError(t, fin.CheckComplete(p))
	doc := rtWrite(t, &Report{Problem: p, Initial: ini, Final: fin, Planner: `<planner>`,
		Settings: [][2]string{{`<k>`, `<v>&`}, {"url", "see https://example.org/a"}}, Version: `<v1>`})
	for _, raw := range []string{evil, "y</td>", "w'<script>", `<i>op"1`, `<w>`, `<hw>`, `<L0>`, `L"1`, `<planner>`, `<k>`, `<v>&`, `<v1>`} {
		assert.NotContains(t, doc, raw)
	}
	// A URL in a user's text reads the same, its colon a character
	// reference: the file holds no URL to fetch.
	assert.Contains(t, rtSection(t, doc, "settings"), "see https&#58;//example.org/a")
	assert.Contains(t, doc, "&lt;b&gt;&amp;&#34;x")
	assert.Contains(t, rtSection(t, doc, "transfers"), "&lt;b&gt;&amp;&#34;x")
	assert.Contains(t, rtSection(t, doc, "blocks"), "&lt;b&gt;&amp;&#34;x")
	assert.Contains(t, doc, "&lt;v&gt;&amp;")
	rtSections(t, doc)
	rtSelfContained(t, doc)
	rtSVGs(t, doc)
	assert.Equal(t, len(ini.Plan(p).Placements)+len(fin.Plan(p).Placements), len(rtPlacementRe.FindAllString(doc, -1)))
}

// TestReportOnePlan: when the final plan is the initial one, one diagram.
func TestReportOnePlan(t *testing.T) {
	p := rtProblem(t, rtShipped(t, "seed000-example"), "ethos-u55")
	lay := rtInitial(t, p)
	for _, ini := range []*state.Layout{nil, lay, lay.Clone()} {
		doc := rtWrite(t, &Report{Problem: p, Initial: ini, Final: lay})
		rtSections(t, doc)
		diag := rtSection(t, doc, "diagrams")
		assert.Equal(t, 1, strings.Count(diag, `<g class="diagram">`))
		assert.Equal(t, len(lay.Plan(p).Placements), len(rtPlacementRe.FindAllString(doc, -1)))
		assert.NotContains(t, rtSection(t, doc, "summary"), "initial cost")
	}
}

// TestReportLongProgram: 2,000 timesteps make at most 400 bars, and the
// report stays well-formed.
func TestReportLongProgram(t *testing.T) {
	prog, err := gen.Generate(gen.Options{Ops: 2000, Seed: 1})
	require.NoError(t, err)
	p := rtProblem(t, prog, "h100-sm")
	lay := rtInitial(t, p)
	doc := rtWrite(t, &Report{Problem: p, Initial: lay, Final: lay, Planner: "initializer"})
	rtSections(t, doc)
	rtSelfContained(t, doc)
	rtSVGs(t, doc)
	assert.Equal(t, ReportMaxBars, strings.Count(rtSection(t, doc, "time"), `<g class="r-bar">`))
	assert.Contains(t, rtSection(t, doc, "time"), "bucket of 5 timesteps")
	assert.Equal(t, len(lay.Plan(p).Placements), len(rtPlacementRe.FindAllString(doc, -1)))
	t.Logf("2000 ops: %d bytes", len(doc))
}

// TestReportCapsTransfers: a block that moves at every timestep gives more
// transfers than the list shows.
func TestReportCapsTransfers(t *testing.T) {
	const T = 600
	prog := testprog.New("mover", T).Block("m", 64, "activation", 0, T-1, testprog.Reads(T-1)).Program()
	prof := testprog.Profile("two",
		testprog.Level{Name: "fast", Capacity: 1024, Align: 16, Latency: 1, Bandwidth: 8},
		testprog.Level{Name: "slow", Capacity: 1 << 20, Align: 16, Latency: 10, Bandwidth: 1})
	p := testprog.Bind(prog, prof)
	lay := rtInitial(t, p)
	for ts := 1; ts < T; ts++ {
		lay.MoveAt(0, ts, state.Pos{Level: int32(ts % 2), Offset: 0})
	}
	require.NoError(t, lay.CheckComplete(p))
	require.Equal(t, T-1, lay.Transfers())
	doc := rtWrite(t, &Report{Problem: p, Initial: rtInitial(t, p), Final: lay})
	tr := rtSection(t, doc, "transfers")
	assert.Equal(t, ReportMaxTransfers, strings.Count(tr, "<tr>")-1)
	assert.Contains(t, tr, "599 transfers in the final plan")
	assert.Contains(t, tr, "99 more transfers")
	rtSVGs(t, doc)
}

func TestReportRejectsIncompletePlans(t *testing.T) {
	p := rtProblem(t, rtShipped(t, "seed000-example"), "ethos-u55")
	var buf bytes.Buffer
	assert.Error(t, WriteReport(&buf, &Report{Problem: p, Final: state.NewLayout(p.Blocks())}))
	assert.Error(t, WriteReport(&buf, &Report{Problem: p}))
	assert.Error(t, WriteReport(&buf, nil))
}

// TestBytes: exact below 1 KiB, then one decimal in the largest binary
// unit that keeps the number at 1 or more.
func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 4 << 20: "4.0 MiB",
		132*(1<<20) + 1<<19: "132.5 MiB", 1 << 40: "1.0 TiB", 1<<63 - 1: "8.0 EiB",
	} {
		assert.Equal(t, want, Bytes(n), "%d", n)
	}
}
