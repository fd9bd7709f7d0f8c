package render_test

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/workload"
)

// gpt2Like48 is a 48-layer GPT-2-like decoder of 724 ops named as
// torch.fx names gpt2-small-like's (wte, add, then per layer h_K_ln_1,
// h_K_attn_c_attn, matmul, mul, masked_fill, softmax, matmul_1,
// contiguous, h_K_attn_c_proj, add_1, h_K_ln_2, h_K_mlp_c_fc,
// h_K_mlp_gelu, h_K_mlp_c_proj, add_2, with fx's counters, then ln_f and
// lm_head): 2 + 48*15 + 2 = 724 ops. Each op writes a 96 KiB activation
// that the next op reads, and each layer reads a 2 MiB weight.
func gpt2Like48() *workload.Program {
	count := map[string]int{}
	fx := func(base string) string {
		n := count[base]
		count[base]++
		if n == 0 {
			return base
		}
		return fmt.Sprintf("%s_%d", base, n)
	}
	names := []string{"wte", fx("add")}
	for k := range 48 {
		h := fmt.Sprintf("h_%d_", k)
		names = append(names, h+"ln_1", h+"attn_c_attn", fx("matmul"), fx("mul"), fx("masked_fill"), fx("softmax"), fx("matmul"),
			fx("contiguous"), h+"attn_c_proj", fx("add"), h+"ln_2", h+"mlp_c_fc", h+"mlp_gelu", h+"mlp_c_proj", fx("add"))
	}
	names = append(names, "ln_f", "lm_head")
	prog := &workload.Program{Name: "gpt2-like-48", Source: "test"}
	for t, n := range names {
		prog.Ops = append(prog.Ops, workload.Op{Name: n})
		kind, last, reads := workload.Activation, t+1, []int{t + 1}
		if t == len(names)-1 {
			kind, last, reads = workload.Output, t, []int{t}
		}
		prog.Blocks = append(prog.Blocks, workload.Block{Name: n + ".out", Size: 96 << 10, Kind: kind, First: t, Last: last, Writes: []int{t}, Reads: reads})
	}
	for k := range 48 {
		t := 2 + 15*k + 1
		prog.Blocks = append(prog.Blocks, workload.Block{Name: fmt.Sprintf("h.%d.attn.c_attn.weight", k), Size: 2 << 20, Kind: workload.Constant,
			First: 0, Last: t, Reads: []int{t}})
	}
	return prog
}

var tlabelRE = regexp.MustCompile(`<text class="tlabel" x="([0-9.]+)" y="([0-9.]+)" text-anchor="middle" textLength="([0-9.]+)" lengthAdjust="spacingAndGlyphs">([^<]*)</text>`)

// labelBox is a label's box on its row: [x0, x1] at y.
type labelBox struct {
	x0, x1, y float64
	text      string
}

func labelBoxes(t *testing.T, svg string) []labelBox {
	t.Helper()
	var out []labelBox
	for _, m := range tlabelRE.FindAllStringSubmatch(svg, -1) {
		x, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		y, err := strconv.ParseFloat(m[2], 64)
		require.NoError(t, err)
		w, err := strconv.ParseFloat(m[3], 64)
		require.NoError(t, err)
		out = append(out, labelBox{x - w/2, x + w/2, y, m[4]})
	}
	return out
}

// assertNoOverlap: on each row, no two labels' boxes (textLength fixes
// their widths) overlap, and each is inside [left, right].
func assertNoOverlap(t *testing.T, boxes []labelBox, left, right float64) {
	t.Helper()
	rows := map[float64][]labelBox{}
	for _, b := range boxes {
		rows[b.y] = append(rows[b.y], b)
		assert.GreaterOrEqual(t, b.x0, left-0.01, "%q sticks out on the left", b.text)
		assert.LessOrEqual(t, b.x1, right+0.01, "%q sticks out on the right", b.text)
	}
	for y, row := range rows {
		sort.Slice(row, func(i, j int) bool { return row[i].x0 < row[j].x0 })
		for i := 1; i < len(row); i++ {
			assert.Less(t, row[i-1].x1, row[i].x0, "row %v: %q [%.1f,%.1f] overlaps %q [%.1f,%.1f]", y, row[i-1].text, row[i-1].x0, row[i-1].x1,
				row[i].text, row[i].x0, row[i].x1)
		}
	}
}

// TestTimeAxisNamesLayers: the 724-op GPT-2-like program at the default
// width has its layers named under each panel (h_K_), at least every
// fourth of the 48, no two labels overlapping; each layer has its tick and
// tooltip.
func TestTimeAxisNamesLayers(t *testing.T) {
	prog := gpt2Like48()
	require.Len(t, prog.Ops, 724)
	p := problem(t, prog, "ethos-u65")
	lay := initial(t, p)
	var buf bytes.Buffer
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: lay}}, render.Options{}))
	c := wellFormed(t, buf.Bytes())
	boxes := labelBoxes(t, buf.String())
	// Default width 960 from x = 78.
	assertNoOverlap(t, boxes, 78, 78+960)
	perPanel := len(boxes) / p.Levels()
	assert.GreaterOrEqual(t, perPanel, 12, "at least every fourth layer named")
	for _, b := range boxes {
		assert.Regexp(t, `^h_\d+_$`, b.text)
	}
	assert.Equal(t, 48*p.Levels(), c["line.tgroup"], "a tick per layer per panel")
	assert.Contains(t, buf.String(), "<title>h_12_: timesteps 182–196 (h_12_ln_1 … add_26)</title>")
}

// TestTimeAxisNamesOps: a short program names each op; a long one without
// structure in its names falls back to op names, never overlapping.
func TestTimeAxisNamesOps(t *testing.T) {
	p := problem(t, shipped(t, "seed000-example"), "ethos-u55")
	var buf bytes.Buffer
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: initial(t, p)}}, render.Options{}))
	boxes := labelBoxes(t, buf.String())
	var texts []string
	for _, b := range boxes[:6] {
		texts = append(texts, b.text)
	}
	assert.Equal(t, []string{"op0", "op1", "op2", "op3", "op4", "op5"}, texts)

	prog := gpt2Like48()
	for t := range prog.Ops {
		prog.Ops[t].Name = fmt.Sprintf("node%d", t*7919%724)
	}
	p = problem(t, prog, "ethos-u65")
	buf.Reset()
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: initial(t, p)}}, render.Options{Width: 500}))
	boxes = labelBoxes(t, buf.String())
	assertNoOverlap(t, boxes, 78, 78+500)
	assert.NotEmpty(t, boxes)
}

// TestTimeAxisGroupsOfGeneratedAndTracedPrograms: the groups of a
// generated program (names s3.b2.conv1) are its stages, s0. s1. ...; of
// resnet50 (torch.fx names layer3_2_conv1) its layers.
func TestTimeAxisGroupsOfGeneratedAndTracedPrograms(t *testing.T) {
	prog, err := gen.Generate(gen.Options{Ops: 2000, Seed: 1})
	require.NoError(t, err)
	p := problem(t, prog, "h100-sm")
	var buf bytes.Buffer
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: initial(t, p)}}, render.Options{}))
	boxes := labelBoxes(t, buf.String())
	assertNoOverlap(t, boxes, 78, 78+960)
	require.NotEmpty(t, boxes)
	for _, b := range boxes {
		assert.Regexp(t, `^(s\d+|stem)\.$`, b.text)
	}

	p = problem(t, shipped(t, "resnet50-int8"), "ethos-u55")
	buf.Reset()
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: initial(t, p)}}, render.Options{}))
	boxes = labelBoxes(t, buf.String())
	var texts []string
	for _, b := range boxes[:4] {
		texts = append(texts, b.text)
	}
	assert.Equal(t, []string{"layer1_", "layer2_", "layer3_", "layer4_"}, texts)
}
