package sweep

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/hw"
)

func profile(name string, levels ...string) *hw.Profile {
	p := &hw.Profile{Name: name, TimeUnit: hw.Cycle}
	for i, l := range levels {
		p.Levels = append(p.Levels, hw.Level{
			Name: l, Capacity: 1000 << (4 * i), Alignment: 16,
			In:  hw.Link{Latency: 2, Bandwidth: 8},
			Out: hw.Link{Latency: 3, Bandwidth: 16},
		})
	}
	return p
}

func params(t *testing.T, specs ...string) []Param {
	t.Helper()
	ps, err := ParseParams(specs)
	require.NoError(t, err)
	return ps
}

func TestSweepGridOrderAndSize(t *testing.T) {
	g, err := NewGrid([]string{"w0", "w1"}, []*hw.Profile{profile("p0", "A", "B"), profile("p1", "A", "B")}, nil,
		params(t, "beam=1,4,16", "segments=every,auto"))
	require.NoError(t, err)
	// 2 workloads x 2 profiles x 3 beams x 2 segments.
	require.Equal(t, 24, g.Len())
	assert.Equal(t, []string{"beam", "segments"}, g.Keys())
	assert.Empty(t, g.Notes)

	// The grid is nested loops: workload, profile, then the settings in
	// the order given, the last fastest.
	k := 0
	for w := 0; w < 2; w++ {
		for v := 0; v < 2; v++ {
			for _, beam := range []string{"1", "4", "16"} {
				for _, seg := range []string{"every", "auto"} {
					pt := g.Point(k)
					assert.Equal(t, Point{Run: k, Workload: w, Variant: v, Values: []string{beam, seg}}, pt, "run %d", k)
					row := g.Row(pt)
					assert.Equal(t, fmt.Sprintf("w%d p%d", w, v), row.Workload+" "+row.Profile)
					k++
				}
			}
		}
	}
	// No settings: one run per workload and profile.
	g, err = NewGrid([]string{"w0", "w1", "w2"}, []*hw.Profile{profile("p0", "A")}, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, g.Len())
	assert.Equal(t, Point{Run: 2, Workload: 2, Variant: 0, Values: []string{}}, g.Point(2))
}

func TestSweepGridRejectsDuplicates(t *testing.T) {
	_, err := NewGrid([]string{"w", "w"}, []*hw.Profile{profile("p", "A")}, nil, nil)
	assert.EqualError(t, err, `workload "w" is listed twice`)
	_, err = NewGrid([]string{"w"}, []*hw.Profile{profile("p", "A"), profile("p", "A")}, nil, nil)
	assert.EqualError(t, err, `profile "p" is listed twice`)
}

func TestSweepShardsPartitionTheGrid(t *testing.T) {
	for _, size := range []int{1, 7, 24} {
		for n := 1; n <= 5; n++ {
			seen := make([]int, size)
			for i := 1; i <= n; i++ {
				sh, err := ParseShard(fmt.Sprintf("%d/%d", i, n))
				require.NoError(t, err)
				prev := -1
				for _, k := range sh.Runs(size) {
					assert.Greater(t, k, prev, "in order")
					prev = k
					assert.True(t, sh.Has(k))
					assert.Equal(t, i-1, k%n, "run k belongs to shard k mod n + 1")
					seen[k]++
				}
			}
			for k, c := range seen {
				assert.Equal(t, 1, c, "size %d, n %d: run %d in %d shards", size, n, k, c)
			}
		}
	}
	sh, err := ParseShard("")
	require.NoError(t, err)
	assert.Equal(t, All, sh)
	assert.Equal(t, []int{0, 1, 2}, sh.Runs(3))
	for _, bad := range []string{"0/2", "3/2", "1/0", "x", "1", "1/2/3", "-1/2"} {
		_, err := ParseShard(bad)
		assert.EqualError(t, err, fmt.Sprintf("%q: want i/n with 1 <= i <= n (i is 1-based: JOB_COMPLETION_INDEX+1)", bad))
	}
}

func TestSweepParseParam(t *testing.T) {
	p, err := ParseParam("beam=1,8,64")
	require.NoError(t, err)
	assert.Equal(t, Param{"beam", []string{"1", "8", "64"}}, p)
	// ';' separates values when present; '+' stands for ',' in actions
	// and segments.
	for _, spec := range []string{"actions=move+swap;move+swap+reuse+evict", "actions=move,swap;move,swap,reuse,evict", "actions=move+swap,move+swap+reuse+evict"} {
		p, err = ParseParam(spec)
		require.NoError(t, err)
		assert.Equal(t, Param{"actions", []string{"move,swap", "move,swap,reuse,evict"}}, p, spec)
	}
	p, err = ParseParam("segments=every;fixed:4;at:3,7;auto")
	require.NoError(t, err)
	assert.Equal(t, []string{"every", "fixed:4", "at:3,7", "auto"}, p.Values)

	_, err = ParseParam("speed=1")
	assert.EqualError(t, err, `"speed=1": unknown setting "speed" (known: segments, beam, actions, max-candidates, rounds, horizon, initial-only, cost-model, no-search, repack)`)
	_, err = ParseParam("beam")
	assert.EqualError(t, err, `"beam": want KEY=V1,V2,... with KEY one of segments, beam, actions, max-candidates, rounds, horizon, initial-only, cost-model, no-search, repack`)
	_, err = ParseParam("beam=1,,2")
	assert.EqualError(t, err, `"beam=1,,2": empty value`)
	_, err = ParseParam("beam=1,1")
	assert.EqualError(t, err, `"beam=1,1": value "1" repeated`)
	_, err = ParseParams([]string{"beam=1", "rounds=2", "beam=4"})
	assert.EqualError(t, err, `"beam=4": beam is already swept by an earlier --set`)
}

func TestSweepScaleVariants(t *testing.T) {
	sc, err := ParseScale("SRAM.bandwidth=0.5,1,2")
	require.NoError(t, err)
	assert.Equal(t, Scale{"SRAM", "bandwidth", []float64{0.5, 1, 2}}, sc)
	sc2, err := ParseScale("L3.slice.in.latency=3")
	require.NoError(t, err)
	assert.Equal(t, Scale{"L3.slice", "in.latency", []float64{3}}, sc2, "a level name may hold dots")
	cap, err := ParseScale("DRAM.capacity=0.3333")
	require.NoError(t, err)

	u55 := profile("u55", "SRAM", "DRAM")
	k210 := profile("k210", "AISRAM", "DRAM")
	g, err := NewGrid([]string{"w"}, []*hw.Profile{u55, k210}, []Scale{sc, cap}, nil)
	require.NoError(t, err)
	var names []string
	for _, v := range g.Variants {
		names = append(names, v.Profile.Name)
		assert.Equal(t, VariantName(v.Base, v.Scale), v.Profile.Name)
	}
	// Per profile: unscaled first, then each scale's factors other than 1.
	assert.Equal(t, []string{"u55", "u55[SRAM.bandwidth*0.5]", "u55[SRAM.bandwidth*2]", "u55[DRAM.capacity*0.3333]",
		"k210", "k210[DRAM.capacity*0.3333]"}, names)
	assert.Equal(t, []string{`profile k210 has no level "SRAM": SRAM.bandwidth skipped for it`}, g.Notes)
	assert.Equal(t, 6, g.Len())

	half := g.Variants[1].Profile
	assert.Equal(t, hw.Link{Latency: 2, Bandwidth: 4}, half.Levels[0].In, "bandwidth: both directions")
	assert.Equal(t, hw.Link{Latency: 3, Bandwidth: 8}, half.Levels[0].Out)
	assert.Equal(t, u55.Levels[1], half.Levels[1], "other levels unchanged")
	assert.Equal(t, hw.Link{Latency: 2, Bandwidth: 8}, u55.Levels[0].In, "the original is not changed")
	// 16000 * 0.3333 = 5332.8, rounded to 5333.
	assert.Equal(t, int64(5333), g.Variants[3].Profile.Levels[1].Capacity)

	for field, want := range map[string][2]hw.Link{
		"latency":       {{Latency: 4, Bandwidth: 8}, {Latency: 6, Bandwidth: 16}},
		"in.bandwidth":  {{Latency: 2, Bandwidth: 16}, {Latency: 3, Bandwidth: 16}},
		"out.bandwidth": {{Latency: 2, Bandwidth: 8}, {Latency: 3, Bandwidth: 32}},
		"in.latency":    {{Latency: 4, Bandwidth: 8}, {Latency: 3, Bandwidth: 16}},
		"out.latency":   {{Latency: 2, Bandwidth: 8}, {Latency: 6, Bandwidth: 16}},
	} {
		s, err := ParseScale("SRAM." + field + "=2")
		require.NoError(t, err)
		p, ok, err := s.Apply(u55, 2)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, want, [2]hw.Link{p.Levels[0].In, p.Levels[0].Out}, field)
		assert.Equal(t, "u55[SRAM."+field+"*2]", p.Name)
	}

	// A level no profile has is an error; a capacity below the alignment too.
	nope, err := ParseScale("HBM.latency=2")
	require.NoError(t, err)
	_, err = NewGrid([]string{"w"}, []*hw.Profile{u55, k210}, []Scale{nope}, nil)
	assert.EqualError(t, err, `HBM.latency: no profile has a level "HBM" (levels: SRAM, DRAM, AISRAM)`)
	tiny, err := ParseScale("SRAM.capacity=0.001")
	require.NoError(t, err)
	_, err = NewGrid([]string{"w"}, []*hw.Profile{u55}, []Scale{tiny}, nil)
	// 1000 * 0.001 = 1 byte, below the level's alignment of 16.
	assert.EqualError(t, err, `hardware profile "u55[SRAM.capacity*0.001]": level "SRAM": alignment 16 is larger than the capacity 1`)

	for spec, msg := range map[string]string{
		"SRAM.speed=2":     `"SRAM.speed=2": want LEVEL.FIELD=F1,F2,... with FIELD one of bandwidth, latency, in.bandwidth, out.bandwidth, in.latency, out.latency, capacity`,
		"bandwidth=2":      `"bandwidth=2": want LEVEL.FIELD=F1,F2,... with FIELD one of bandwidth, latency, in.bandwidth, out.bandwidth, in.latency, out.latency, capacity`,
		"SRAM.latency":     `"SRAM.latency": want LEVEL.FIELD=F1,F2,... with FIELD one of bandwidth, latency, in.bandwidth, out.bandwidth, in.latency, out.latency, capacity`,
		"SRAM.latency=0":   `"SRAM.latency=0": factor "0": want a number > 0`,
		"SRAM.latency=x":   `"SRAM.latency=x": factor "x": want a number > 0`,
		"SRAM.latency=2,2": `"SRAM.latency=2,2": factor 2 repeated`,
	} {
		_, err := ParseScale(spec)
		assert.EqualError(t, err, msg, spec)
	}
}

// rows6 is a hand-made sweep: beam 1 and 4 over three workloads.
func rows6() *Table {
	return &Table{Keys: []string{"beam"}, Runs: 6, Rows: []Row{
		{Run: 0, Workload: "a", Profile: "p", Values: []string{"1"}, Status: StatusValid, Initial: 100, Final: 50, Seconds: 0.5, Commits: 3, Replans: 40, ReplanSteps: 900},
		{Run: 1, Workload: "a", Profile: "p", Values: []string{"4"}, Status: StatusValid, Initial: 100, Final: 80, Seconds: 0.25},
		{Run: 2, Workload: "b", Profile: "p", Values: []string{"1"}, Status: StatusValid, Initial: 200, Final: 200, Seconds: 1},
		{Run: 3, Workload: "b", Profile: "p", Values: []string{"4"}, Status: StatusValid, Initial: 200, Final: 100, Seconds: 1.125},
		{Run: 4, Workload: "c", Profile: "p", Values: []string{"1"}, Status: "does not fit: 2.0 KiB live at step 1, 1.0 KiB in all levels", Seconds: 0.000125},
		{Run: 5, Workload: "c", Profile: "p", Values: []string{"4"}, Status: StatusValid, Initial: 10, Final: 2, Seconds: 0.125},
	}}
}

func TestSweepSummaryByHand(t *testing.T) {
	s := Summarize(rows6())
	assert.Equal(t, 6, s.Runs)
	assert.Equal(t, 5, s.Valid)
	assert.InDelta(t, 0.5+0.25+1+1.125+0.000125+0.125, s.Seconds, 1e-12)
	require.Len(t, s.Groups, 3)
	assert.Empty(t, s.Correlations)

	// all: reductions 50, 20, 0, 50, 80 (run 4 has no plan).
	// mean = 200/5 = 40; deviations 10,-20,-40,10,40, squares sum 3800,
	// sample variance 3800/4 = 950.
	// sorted 0,20,50,50,80; empirical quantile p: the first x[i] with
	// i+1 >= 5p: p10 -> 0.5 -> x[0] = 0; p50 -> 2.5 -> x[2] = 50;
	// p90 -> 4.5 -> x[4] = 80.
	// ratios .5,.8,1,.5,.2: product .04, geometric mean .04^(1/5).
	all := s.Groups[0]
	assert.Equal(t, "all", all.Label())
	assert.Equal(t, 6, all.Runs)
	assert.Equal(t, 5, all.N)
	assert.InDelta(t, 40, all.Mean, 1e-12)
	assert.InDelta(t, math.Sqrt(950), all.StdDev, 1e-12)
	assert.Equal(t, [3]float64{0, 50, 80}, [3]float64{all.P10, all.P50, all.P90})
	assert.InDelta(t, 100*(1-math.Pow(0.04, 0.2)), all.GeoReduction, 1e-9)
	assert.InDelta(t, 47.4695, all.GeoReduction, 1e-4)

	// beam=1: reductions 50, 0: mean 25, variance (625+625)/1 = 1250;
	// sorted 0,50: p10 -> 0.2 -> 0; p50 -> 1 -> x[0] = 0; p90 -> 1.8 ->
	// x[1] = 50; ratios .5, 1: geometric mean sqrt(.5).
	b1 := s.Groups[1]
	assert.Equal(t, "beam=1", b1.Label())
	assert.Equal(t, 3, b1.Runs)
	assert.Equal(t, 2, b1.N)
	assert.InDelta(t, 25, b1.Mean, 1e-12)
	assert.InDelta(t, math.Sqrt(1250), b1.StdDev, 1e-12)
	assert.Equal(t, [3]float64{0, 0, 50}, [3]float64{b1.P10, b1.P50, b1.P90})
	assert.InDelta(t, 100*(1-math.Sqrt(0.5)), b1.GeoReduction, 1e-9)

	// beam=4: reductions 20, 50, 80: mean 50, variance (900+0+900)/2 = 900;
	// p10 -> 0.3 -> 20; p50 -> 1.5 -> x[1] = 50; p90 -> 2.7 -> x[2] = 80;
	// ratios .8,.5,.2: product .08, geometric mean .08^(1/3).
	b4 := s.Groups[2]
	assert.Equal(t, "beam=4", b4.Label())
	assert.Equal(t, 3, b4.N)
	assert.InDelta(t, 50, b4.Mean, 1e-12)
	assert.InDelta(t, 30, b4.StdDev, 1e-12)
	assert.Equal(t, [3]float64{20, 50, 80}, [3]float64{b4.P10, b4.P50, b4.P90})
	assert.InDelta(t, 100*(1-math.Cbrt(0.08)), b4.GeoReduction, 1e-9)

	var buf bytes.Buffer
	require.NoError(t, s.Write(&buf))
	assert.Equal(t, `6 runs, 5 valid, 1 without a plan; planning time 3.00 s (the runs' seconds summed)

reduction of the final cost against the initializer's, %, over the valid runs:
  group   runs valid     mean       sd      p10      p50      p90  geomean
  all        6     5    40.00    30.82     0.00    50.00    80.00    47.47
  beam=1     3     2    25.00    35.36     0.00     0.00    50.00    29.29
  beam=4     3     3    50.00    30.00    20.00    50.00    80.00    56.91
  (sd: sample standard deviation; p10/p50/p90: empirical quantiles; geomean: 100*(1 - geometric mean of final/initial))
`, buf.String())

	// One valid run: no standard deviation; none: nothing.
	one := Summarize(&Table{Keys: nil, Runs: 2, Rows: []Row{
		{Run: 0, Status: StatusValid, Initial: 4, Final: 3},
		{Run: 1, Status: "no plan: block x fits no level at step 0"},
	}})
	assert.Equal(t, 25.0, one.Groups[0].Mean)
	assert.True(t, math.IsNaN(one.Groups[0].StdDev))
	none := Summarize(&Table{Runs: 1, Rows: []Row{{Run: 0, Status: "does not fit"}}})
	assert.True(t, math.IsNaN(none.Groups[0].Mean))
	buf.Reset()
	require.NoError(t, none.Write(&buf))
	assert.Contains(t, buf.String(), "  all       1     0        -        -        -        -        -        -\n")
}

func TestSweepCorrelations(t *testing.T) {
	assert.Equal(t, []float64{3.5, 1, 3.5, 2}, ranks([]float64{3, 1, 3, 2}), "ties get their mean rank")

	// Base finals 1,2,3,4; variant finals 2,4,6,9 (workload e: no plan).
	// Means 2.5 and 5.25; dx = -1.5,-.5,.5,1.5; dy = -3.25,-1.25,.75,3.75;
	// sum dx*dy = 11.5, sum dx^2 = 5, sum dy^2 = 26.75:
	// Pearson = 11.5/sqrt(5*26.75) = 0.994373...; the ranks agree: Spearman 1.
	base := []float64{1, 2, 3, 4}
	up := []float64{2, 4, 6, 9}
	t0 := &Table{Keys: []string{"beam"}}
	for i, w := range []string{"a", "b", "c", "d", "e"} {
		add := func(profile, scale string, final float64, valid bool) {
			r := Row{Run: len(t0.Rows), Workload: w, Profile: profile, Scale: scale, Values: []string{"4"}, Status: StatusValid, Initial: 10, Final: final}
			if !valid {
				r.Status = "no plan: x"
			}
			t0.Rows = append(t0.Rows, r)
		}
		if i < 4 {
			add("p", "", base[i], true)
			add("p[L.bandwidth*2]", "L.bandwidth*2", up[i], true)
			add("p[L.latency*3]", "L.latency*3", 5-base[i], true)
		} else {
			add("p", "", 1, true)
			add("p[L.bandwidth*2]", "L.bandwidth*2", 1, false)
			add("p[L.latency*3]", "L.latency*3", 1, true)
		}
	}
	t0.Runs = len(t0.Rows)
	s := Summarize(t0)
	require.Len(t, s.Correlations, 2)
	c := s.Correlations[0]
	assert.Equal(t, "p[L.bandwidth*2]", c.Variant)
	assert.Equal(t, "p", c.Profile)
	assert.Equal(t, 4, c.Pairs)
	assert.InDelta(t, 11.5/math.Sqrt(5*26.75), c.Pearson, 1e-12)
	assert.InDelta(t, 1, c.Spearman, 1e-12)
	c = s.Correlations[1]
	assert.Equal(t, 5, c.Pairs)
	// The other variant, with e: base x = 1,2,3,4,1, variant y = 4,3,2,1,1.
	// Means 2.2; dx = -1.2,-.2,.8,1.8,-1.2; dy = 1.8,.8,-.2,-1.2,-1.2;
	// sum dx*dy = -3.2, sum dx^2 = sum dy^2 = 6.8: Pearson = -3.2/6.8.
	// Ranks (ties averaged): x 1.5,3,4,5,1.5; y 5,4,3,1.5,1.5; means 3;
	// sum dx*dy = -3 + 0 + 0 - 3 + 2.25 = -3.75, sum dx^2 = sum dy^2 = 9.5:
	// Spearman = -3.75/9.5.
	assert.InDelta(t, -3.2/6.8, c.Pearson, 1e-12)
	assert.InDelta(t, -3.75/9.5, c.Spearman, 1e-12)
	var labels []string
	for _, g := range s.Groups {
		labels = append(labels, g.Label())
	}
	assert.Equal(t, []string{"all", "beam=4", "scale=none", "scale=L.bandwidth*2", "scale=L.latency*3"}, labels)
	var buf bytes.Buffer
	require.NoError(t, s.Write(&buf))
	assert.Contains(t, buf.String(), `scale sensitivity: correlation of each variant's final costs with its unscaled profile's,
paired by workload and settings:
  variant          pairs  pearson spearman
  p[L.bandwidth*2]     4   0.9944   1.0000
`)
}

func TestSweepCSVRoundTripAndMerge(t *testing.T) {
	full := rows6()
	var buf bytes.Buffer
	require.NoError(t, full.WriteCSV(&buf))
	assert.Equal(t, `run,runs,workload,profile,scale,beam,status,initial_cost,final_cost,reduction_pct,seconds,commits,replans,replan_steps
0,6,a,p,,1,valid,100,50,50.0000,0.500000,3,40,900
1,6,a,p,,4,valid,100,80,20.0000,0.250000,0,0,0
2,6,b,p,,1,valid,200,200,0.0000,1.000000,0,0,0
3,6,b,p,,4,valid,200,100,50.0000,1.125000,0,0,0
4,6,c,p,,1,"does not fit: 2.0 KiB live at step 1, 1.0 KiB in all levels",,,,0.000125,,,
5,6,c,p,,4,valid,10,2,80.0000,0.125000,0,0,0
`, buf.String())
	back, err := ReadCSV(strings.NewReader(buf.String()), "full.csv")
	require.NoError(t, err)
	back.Source = ""
	assert.Equal(t, full, back)

	// Shards of 3, written and read back, merged in any order.
	shard := func(i int) *Table {
		sh := Shard{i, 3}
		part := &Table{Keys: full.Keys, Runs: full.Runs}
		for _, r := range full.Rows {
			if sh.Has(r.Run) {
				part.Rows = append(part.Rows, r)
			}
		}
		var b bytes.Buffer
		require.NoError(t, part.WriteCSV(&b))
		tb, err := ReadCSV(&b, fmt.Sprintf("shard-%d.csv", i))
		require.NoError(t, err)
		return tb
	}
	s1, s2, s3 := shard(1), shard(2), shard(3)
	merged, err := Merge(s3, s1, s2)
	require.NoError(t, err)
	var mb bytes.Buffer
	require.NoError(t, merged.WriteCSV(&mb))
	assert.Equal(t, buf.String(), mb.String(), "the merge restores grid order")

	_, err = Merge(s1, s3)
	assert.EqualError(t, err, "2 of 6 runs missing: 1, 4 (a shard not given or not finished?)")
	again := *s2
	again.Source = "shard-2-again.csv"
	_, err = Merge(s1, s2, s3, &again)
	assert.EqualError(t, err, "run 1 is in both shard-2.csv and shard-2-again.csv")
	_, err = Merge(s1, s2, s3, s2)
	assert.EqualError(t, err, "run 1 is twice in shard-2.csv")
	dup := &Table{Source: "x.csv", Keys: full.Keys, Runs: 6, Rows: []Row{full.Rows[0], full.Rows[0]}}
	_, err = Merge(dup)
	assert.EqualError(t, err, "run 0 is twice in x.csv")
	_, err = Merge(s1, &Table{Source: "other.csv", Keys: []string{"rounds"}})
	assert.EqualError(t, err, "other.csv sweeps rounds but shard-1.csv sweeps beam: not shards of one sweep")
	_, err = Merge(s1, &Table{Source: "big.csv", Keys: full.Keys, Runs: 7, Rows: []Row{{Run: 6}}})
	assert.EqualError(t, err, "big.csv has a grid of 7 runs but shard-1.csv of 6: not shards of one sweep")

	// An empty shard (more shards than runs) is only a header.
	empty, err := ReadCSV(strings.NewReader("run,runs,workload,profile,scale,beam,status,initial_cost,final_cost,reduction_pct,seconds,commits,replans,replan_steps\n"), "e.csv")
	require.NoError(t, err)
	merged, err = Merge(s1, empty, s2, s3)
	require.NoError(t, err)
	assert.Len(t, merged.Rows, 6)
	_, err = Merge(empty)
	assert.EqualError(t, err, "no runs: every file is empty")

	// Missing runs are listed, the first 20.
	var many []*Table
	many = append(many, &Table{Source: "m.csv", Runs: 30, Rows: []Row{{Run: 0}, {Run: 29}}})
	_, err = Merge(many...)
	assert.EqualError(t, err, "28 of 30 runs missing: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 8 more (a shard not given or not finished?)")

	for text, msg := range map[string]string{
		"":      `sweep CSV "bad.csv": empty: want the header line of a sweep CSV`,
		"a,b\n": `sweep CSV "bad.csv": line 1: not a sweep CSV header: want run,runs,workload,profile,scale,<settings>,status,initial_cost,final_cost,reduction_pct,seconds,commits,replans,replan_steps`,
		strings.Replace(buf.String(), "beam", "speed", 1):                                      `sweep CSV "bad.csv": line 1: unknown setting column "speed" (known: segments, beam, actions, max-candidates, rounds, horizon, initial-only, cost-model, no-search, repack)`,
		strings.Replace(buf.String(), "3,6,b,p,,4,valid,200,100", "3,6,b,p,,4,valid,200,x", 1): `sweep CSV "bad.csv": line 5: final_cost "x": want a number`,
		strings.Replace(buf.String(), "5,6,c", "5,7,c", 1):                                     `sweep CSV "bad.csv": line 7: runs 7: earlier lines say 6`,
		strings.Replace(buf.String(), "5,6,c", "6,6,c", 1):                                     `sweep CSV "bad.csv": line 7: runs "6": want the grid's size, more than the run index 6`,
	} {
		_, err := ReadCSV(strings.NewReader(text), "bad.csv")
		assert.EqualError(t, err, msg)
	}
}
