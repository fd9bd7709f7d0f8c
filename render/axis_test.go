package render_test

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/state"
)

// problemWith binds prog to hwArg and returns the problem and the
// initializer's plan.
func planned(t *testing.T, prog string, hwArg string) (*state.Problem, *state.Layout) {
	t.Helper()
	p := problem(t, shipped(t, prog), hwArg)
	return p, initial(t, p)
}

// place puts block name at offset off of level l for its whole life.
func place(t *testing.T, p *state.Problem, lay *state.Layout, name string, l int, off int64) {
	t.Helper()
	b, ok := p.BlockID(name)
	require.True(t, ok, name)
	blk := p.Block(b)
	lay.Segs[b] = []state.Seg{{From: int32(blk.First), Level: int32(l), Offset: off}}
}

// TestRangesHoldEveryPlacement: on every shipped pair, every placement
// of the initializer's plan is inside a band of its level, and every
// band holds one.
func TestRangesHoldEveryPlacement(t *testing.T) {
	for _, p := range testprog.ShippedPairs(t, "..") {
		lay := state.NewLayout(p.Blocks())
		if _, err := actions.NewInitializer(p).Run(lay, 0); err != nil {
			continue
		}
		ranges := render.Ranges(p, lay)
		hit := make([][]bool, len(ranges))
		for l, r := range ranges {
			hit[l] = make([]bool, len(r.Bands))
			assert.LessOrEqual(t, r.Top(), r.Capacity)
		}
		for b, segs := range lay.Segs {
			for _, s := range segs {
				l := int(s.Level)
				lo, hi := s.Offset, s.Offset+p.Foot(b, l)
				in := -1
				for i, band := range ranges[l].Bands {
					if lo >= band.Lo && hi <= band.Hi {
						in = i
					}
				}
				if assert.GreaterOrEqual(t, in, 0, "%s on %s: %s [%d,%d) outside %v", p.Prog.Name, p.HW.Name, p.Block(b).Name, lo, hi, ranges[l]) {
					hit[l][in] = true
				}
			}
		}
		for l := range hit {
			if len(hit[l]) > 1 || ranges[l].Bands[0].Lo > 0 {
				assert.NotContains(t, hit[l], false, "%s on %s level %d: an empty band in %v", p.Prog.Name, p.HW.Name, l, ranges[l])
			}
		}
	}
}

func mustID(t *testing.T, p *state.Problem, name string) int {
	t.Helper()
	b, ok := p.BlockID(name)
	require.True(t, ok, name)
	return b
}

var (
	frameRE = regexp.MustCompile(`<rect class="frame" x="[^"]*" y="([^"]*)" width="[^"]*" height="([^"]*)"/>`)
	plRE    = regexp.MustCompile(`<rect class="pl [^"]*" x="[^"]*" y="([^"]*)" width="[^"]*" height="([^"]*)"`)
)

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return v
}

// coverage returns, per panel of the first diagram, the share of its
// height that placements cover (the union of their rows).
func coverage(t *testing.T, svg string, panels int) []float64 {
	t.Helper()
	frames := frameRE.FindAllStringSubmatch(svg, -1)
	require.GreaterOrEqual(t, len(frames), panels)
	type iv struct{ a, b float64 }
	rows := make([][]iv, panels)
	for _, m := range plRE.FindAllStringSubmatch(svg, -1) {
		y, h := atof(t, m[1]), atof(t, m[2])
		for i := range panels {
			top, ph := atof(t, frames[i][1]), atof(t, frames[i][2])
			if y >= top-0.01 && y+h <= top+ph+0.01 {
				rows[i] = append(rows[i], iv{y, y + h})
			}
		}
	}
	out := make([]float64, panels)
	for i := range panels {
		ivs := rows[i]
		slices.SortFunc(ivs, func(a, b iv) int {
			switch {
			case a.a < b.a:
				return -1
			case a.a > b.a:
				return 1
			}
			return 0
		})
		covered, end := 0.0, -1.0
		for _, v := range ivs {
			if v.b <= end {
				continue
			}
			covered += v.b - max(v.a, end)
			end = v.b
		}
		out[i] = covered / atof(t, frames[i][2])
	}
	return out
}

// TestPanelsAreNotEmptyStrips: a level a plan uses a little of (DRAM,
// 2 GiB, ~120 MiB used), or uses at the bottom and at the very top, is
// drawn so that its placements cover most of its panel's height, not a
// strip at the bottom.
func TestPanelsAreNotEmptyStrips(t *testing.T) {
	p, lay := planned(t, "gpt2-small-like-int8", "ethos-u65")
	for _, top := range []bool{false, true} {
		if top {
			// And one more block at the very top.
			place(t, p, lay, "lm_head.out", 1, p.HW.Levels[1].Capacity-p.Foot(mustID(t, p, "lm_head.out"), 1))
		}
		var buf bytes.Buffer
		require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: lay}}, render.Options{}))
		wellFormed(t, buf.Bytes())
		cov := coverage(t, buf.String(), 2)
		assert.Greater(t, cov[1], 0.6, "DRAM panel covered %.2f (block at the top: %v)", cov[1], top)
		// The initializer puts a few blocks at the top of DRAM: the
		// 1.9 GiB between is cut out, with a tooltip.
		assert.Equal(t, 1, strings.Count(buf.String(), `<rect class="brk"`))
		assert.Contains(t, buf.String(), "DRAM 128 MiB–")
		assert.Contains(t, buf.String(), "MiB not drawn: no placement there")
	}
}

// TestASCIIDrawsTheRangeUsed: the text map's DRAM rows are mostly
// filled, and a cut is a row of '~'.
func TestASCIIDrawsTheRangeUsed(t *testing.T) {
	p, lay := planned(t, "gpt2-small-like-int8", "ethos-u65")
	var buf bytes.Buffer
	require.NoError(t, render.ASCII(&buf, p, lay, 60, 8, nil))
	out := buf.String()
	dram := out[strings.Index(out, "\nDRAM"):]
	assert.Contains(t, dram, "DRAM (capacity 2 GiB; drawn: 0–128 MiB, ")
	assert.Contains(t, dram, "~~~~~~~~~~", "the cut between the bands")
	empty := 0
	for _, line := range strings.Split(dram, "\n") {
		if i := strings.Index(line, "|"); i >= 0 && strings.TrimSpace(strings.Trim(line[i:], "|")) == "" {
			empty++
		}
	}
	assert.LessOrEqual(t, empty, 1, "at most one empty row:\n%s", dram)

}

// TestRangesOnALongProgram: a generated program on h100-sm uses a few
// GiB of the 79 GiB HBM3 (at the bottom, and a little at the top): most
// of what is drawn is used.
func TestRangesOnALongProgram(t *testing.T) {
	prog, err := gen.Generate(gen.Options{Ops: 300, Seed: 1})
	require.NoError(t, err)
	p := problem(t, prog, "h100-sm")
	lay := initial(t, p)
	var buf bytes.Buffer
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "x", Layout: lay}}, render.Options{}))
	cov := coverage(t, buf.String(), 3)
	assert.Greater(t, cov[2], 0.5, "HBM3 covered %.2f", cov[2])
}
