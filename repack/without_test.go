package repack

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// TestWithoutMatchesRebuild: for every candidate of every level already
// partly in the level (a constant streamed under the timeline, an
// activation moved; some in reuse chains), the buffers a probe sees
// (without: the level state but the run's items, plus the rest of their
// chains) keep busy exactly the bytes that the level's buffers rebuilt
// without the run do, and the probe finds the same offset as first fit
// over the rebuilt buffers.
func TestWithoutMatchesRebuild(t *testing.T) {
	cases := []struct {
		workload, hw string
		timeline     bool
	}{
		{"resnet18-int8", "../testdata/hw/seed003/ethos-u65.yaml", false},
		{"mobilenet_v2-int8", "../configs/hw/ethos-u55.yaml", true},
		{"gpt2-small-like-int8", "../configs/hw/tpu-v4-core.yaml", true},
		{"gen-1000", "../configs/hw/h100-sm.yaml", true},
	}
	mixed, probed := 0, 0
	for _, tc := range cases {
		var prog *workload.Program
		var err error
		if tc.workload == "gen-1000" && testmode.Quick() {
			continue // its search takes seconds, minutes under -race
		}
		if tc.workload == "gen-1000" {
			prog, err = gen.Generate(gen.Options{Ops: 1000, Seed: 1})
		} else {
			prog, err = workload.ReadFile(filepath.Join("..", "workloads", tc.workload+".json"))
		}
		require.NoError(t, err)
		prof, err := hw.ReadFile(tc.hw)
		require.NoError(t, err)
		p, err := state.Bind(prog, prof, tc.workload, state.Semantics{Timeline: tc.timeline})
		require.NoError(t, err)
		start := state.NewLayout(p.Blocks())
		_, err = actions.NewInitializerOrder(p, actions.WorkloadOrder).Run(start, 0)
		require.NoError(t, err)
		var m costmodel.Model = costmodel.Seed003{}
		if tc.timeline {
			var ok bool
			m, ok = costmodel.Lookup("timeline")
			require.True(t, ok)
		}
		// The search's plan: what repacking gets.
		res, err := search.Walk(context.Background(), p, search.Start{Layout: start, Model: m}, &search.Settings{Workers: 1})
		require.NoError(t, err)
		lay := res.Layout
		r := &repacker{p: p, cfg: Settings{Workers: 1}, model: m, lay: lay}
		if _, sep := m.(costmodel.Separable); !sep {
			r.pr = m.Price(p, lay)
			r.cost = r.pr.Cost()
		}
		multi := 0
		for _, s := range lay.Segs {
			if len(s) > 1 {
				multi++
			}
		}
		t.Logf("%s: %d blocks with several segments, %d candidates in L0", tc.workload, multi, len(r.candidates(0)))
		for l := range p.Levels() {
			ls := r.levelState(l)
			for _, c := range r.candidates(l) {
				if !r.runInLevel(l, c) {
					continue
				}
				o := r.without(ls, l, c)
				if len(o.extra) > 0 {
					mixed++
				}
				var seen []item
				for k, it := range ls.its {
					if !slices.Contains(o.skip, int32(k)) {
						seen = append(seen, it)
					}
				}
				seen = append(seen, o.extra...)
				rebuilt := r.items(l, c)
				require.Equal(t, r.spans(rebuilt), r.spans(seen), "%s level %d block %d run [%d, %d]", tc.workload, l, c.b, c.i, c.j)
				var scratch []state.Gap
				ins := r.probe(l, c, o, &scratch)
				want := firstFit(rebuilt, c, p.Foot(c.b, l), p.Align(c.b, l))
				if want+p.Foot(c.b, l) <= p.HW.Levels[l].Capacity {
					require.NotNil(t, ins.segs, "%s block %d: room at %d", tc.workload, c.b, want)
				}
				if ins.segs != nil {
					got := slices.IndexFunc(ins.segs, func(s state.Seg) bool {
						return int(s.Level) == l && s.From == r.runSeg(c.b, r.lay.Segs[c.b], c.i, l, 0).From
					})
					require.GreaterOrEqual(t, got, 0)
					require.Equal(t, want, ins.segs[got].Offset, "%s block %d", tc.workload, c.b)
				}
				probed++
			}
		}
	}
	t.Logf("%d candidates partly in their level probed, %d through a reuse chain", probed, mixed)
	require.Positive(t, probed)
}

// TestWithoutInPass: repacking gpt2-small-like-int8 on Ethos-U65 meets,
// during its pass, a candidate whose run is part of a reuse chain in the
// level (the search's plan has one after some insertions); in checking
// mode without compares every answer with the level's buffers rebuilt
// without the run, and panics on a difference.
func TestWithoutInPass(t *testing.T) {
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", "gpt2-small-like-int8.json"))
	require.NoError(t, err)
	prof, err := hw.ReadFile("../configs/hw/ethos-u65.yaml")
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, "gpt2")
	require.NoError(t, err)
	start := state.NewLayout(p.Blocks())
	_, err = actions.NewInitializerOrder(p, actions.WorkloadOrder).Run(start, 0)
	require.NoError(t, err)
	res, err := search.Walk(context.Background(), p, search.Start{Layout: start}, &search.Settings{Workers: 1})
	require.NoError(t, err)
	r, err := Run(context.Background(), p, res.Layout, &Settings{Check: true})
	require.NoError(t, err)
	require.Positive(t, r.Stats.Promoted)
}

// firstFit is the lowest offset, at the alignment, where f bytes overlap
// none of the buffers its alive with candidate c (a brute force).
func firstFit(its []item, c candidate, f, a int64) int64 {
	var off int64
	for moved := true; moved; {
		moved = false
		for _, it := range its {
			if it.to >= c.from && it.from <= c.to && off < it.off+it.size && it.off < off+f {
				off, moved = state.AlignUp(it.off+it.size, a), true
			}
		}
	}
	return off
}
