package render_test

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/state"
)

// bruteGap is the largest free gap of the level named level at timestep t
// in lay, from its plan's placements.
func bruteGap(p *state.Problem, lay *state.Layout, level string, t int) int64 {
	l := slices.IndexFunc(p.HW.Levels, func(x hw.Level) bool { return x.Name == level })
	type r struct{ off, end int64 }
	var rs []r
	for _, pl := range lay.Plan(p).Placements {
		if pl.Level != level || pl.From > t || pl.To < t {
			continue
		}
		b, _ := p.BlockID(pl.Block)
		rs = append(rs, r{pl.Offset, pl.Offset + p.Foot(b, l)})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].off < rs[j].off })
	var best, at int64
	for _, x := range rs {
		best = max(best, x.off-at)
		at = max(at, x.end)
	}
	return max(best, p.HW.Levels[l].Capacity-at)
}

// TestDiffPlans: resnet50-int8 on the Ethos-U55's seed-model copy, the
// initializer's plan against the search's: the costs are the plans', the
// changed and alike blocks are all the blocks, the savings (largest first)
// add up to the difference of the costs (the seed model is separable),
// and each reason for a block left in the slow level names a timestep
// where the fast level's largest free gap, recomputed from the plan's
// placements, was smaller than the block.
func TestDiffPlans(t *testing.T) {
	p := problem(t, shipped(t, "resnet50-int8"), "ethos-u55")
	ini := initial(t, p)
	res, err := hieropt.Plan(context.Background(), p.Prog, p.HW, nil)
	require.NoError(t, err)
	m, _ := costmodel.Lookup(costmodel.Default)
	d, err := render.DiffPlans(p, m, ini, res.Layout)
	require.NoError(t, err)

	assert.Equal(t, costmodel.Total(m, p, ini), d.CostA)
	assert.Equal(t, costmodel.Total(m, p, res.Layout), d.CostB)
	assert.Less(t, d.CostB, d.CostA, "the search saves")
	assert.True(t, d.Separable)
	require.NotEmpty(t, d.Changes)
	assert.Equal(t, p.Blocks(), d.Unchanged+len(d.Changes))
	changed := map[int]bool{}
	var saved float64
	slow, gapless := 0, 0
	for i, c := range d.Changes {
		changed[c.Block] = true
		saved += c.Saved
		assert.False(t, slices.Equal(ini.Segs[c.Block], res.Layout.Segs[c.Block]), c.Name)
		assert.InDelta(t, c.CostA-c.CostB, c.Saved, 1e-9)
		if i > 0 {
			assert.GreaterOrEqual(t, d.Changes[i-1].Saved, c.Saved, "largest saving first")
		}
		for _, r := range c.Slow {
			require.Less(t, r.Faster, r.Level)
			if r.T < 0 {
				gapless++
				continue
			}
			slow++
			assert.Less(t, r.Gap, r.Need, "%s at %d", c.Name, r.T)
			assert.Equal(t, bruteGap(p, res.Layout, p.HW.Levels[r.Faster].Name, r.T), r.Gap, "%s at %d", c.Name, r.T)
			assert.Equal(t, p.Foot(c.Block, r.Faster), r.Need)
		}
	}
	for b := range p.Blocks() {
		if !changed[b] {
			assert.Equal(t, ini.Segs[b], res.Layout.Segs[b], "block %d alike", b)
		}
	}
	// saved sums per-block costs; the totals sum them in another order.
	assert.InDelta(t, d.CostA-d.CostB, saved, 1e-9*d.CostA)
	assert.Positive(t, slow, "some block did not fit the fast level")
	t.Logf("%d changed, %d alike; %d slow segments explained by a timestep, %d with room at every timestep", len(d.Changes), d.Unchanged, slow, gapless)

	var buf bytes.Buffer
	require.NoError(t, d.WriteText(&buf, p, "initial.json", "final.json", 5))
	out := buf.String()
	assert.Contains(t, out, "A: initial.json, cost ")
	assert.Contains(t, out, "under the seed003 model")
	assert.Contains(t, out, d.Changes[0].Name)
	assert.Contains(t, out, "more changed blocks; --top 0 lists them all")
	buf.Reset()
	require.NoError(t, d.WriteText(&buf, p, "initial.json", "final.json", 0))
	all := buf.String()
	assert.Equal(t, slow, strings.Count(all, "did not fit in SRAM at timestep "), "a line per slow segment")
	assert.NotContains(t, all, "more changed blocks")
	t.Log("\n" + out)
}
