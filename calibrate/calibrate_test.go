package calibrate

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/profiles"
)

// truth are the parameters the synthetic samples are drawn from: latency
// 50 ns everywhere, bandwidths (bytes per ns) different per level and
// direction.
var truth = []struct {
	level   string
	in, out float64
}{
	{"L1", 80, 100},
	{"L2", 30, 40},
	{"L3", 12, 15},
	{"DRAM", 4, 5},
}

const (
	trueLatency = 50.0
	synthReps   = 50
	synthSizes  = 22 // 8 B and 16 B..16 MiB
)

// synthetic draws samples of time = 50 + bytes/bandwidth with 2%
// multiplicative Gaussian noise: 50 repetitions of 8 B (the latency rows)
// and of 21 sizes doubling from 16 B to 16 MiB. (The small sizes, whose
// time is mostly latency, pin the intercept: over 300 seeds the worst
// error is 0.44% for the latency, 0.27% for the bandwidth.)
func synthetic(seed uint64) []Sample {
	rng := rand.New(rand.NewPCG(seed, 7))
	sizes := []int64{LatencyBytes}
	for s := int64(16); s <= 16<<20; s *= 2 {
		sizes = append(sizes, s)
	}
	var out []Sample
	for _, tr := range truth {
		for rep := 0; rep < synthReps; rep++ {
			for _, d := range sizes {
				for _, side := range []struct {
					dir string
					bw  float64
				}{{In, tr.in}, {Out, tr.out}} {
					t := (trueLatency + float64(d)/side.bw) * (1 + 0.02*rng.NormFloat64())
					out = append(out, Sample{tr.level, side.dir, d, t})
				}
			}
		}
	}
	return out
}

func TestCalibrateFitRecoversKnownParameters(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		fits, err := Fit(synthetic(seed))
		require.NoError(t, err)
		require.Len(t, fits, 8)
		for i, tr := range truth {
			for j, side := range []struct {
				dir string
				bw  float64
			}{{In, tr.in}, {Out, tr.out}} {
				f := fits[2*i+j]
				assert.Equal(t, tr.level, f.Level)
				assert.Equal(t, side.dir, f.Direction)
				assert.Equal(t, synthReps*synthSizes, f.N)
				assert.InEpsilon(t, trueLatency, f.Latency, 0.01, "seed %d %s %s latency", seed, f.Level, f.Direction)
				assert.InEpsilon(t, side.bw, f.Bandwidth, 0.01, "seed %d %s %s bandwidth", seed, f.Level, f.Direction)
				assert.Greater(t, f.R2, 0.99)
				assert.False(t, f.Poor, f.Warnings)
				assert.InDelta(t, 0.02, f.ResidualStd, 0.004, "relative residuals of 2%% noise")
				assert.Less(t, f.LatencyCI[0], f.Latency)
				assert.Greater(t, f.LatencyCI[1], f.Latency)
				assert.Less(t, f.BandwidthCI[0], f.Bandwidth)
				assert.Greater(t, f.BandwidthCI[1], f.Bandwidth)
			}
		}
	}
}

// TestFitConfidenceIntervalsCover checks the 95% intervals: over many
// synthetic data sets they hold the true values about 95% of the time.
func TestCalibrateFitConfidenceIntervalsCover(t *testing.T) {
	var in, total int
	for seed := uint64(100); seed < 140; seed++ {
		fits, err := Fit(synthetic(seed))
		require.NoError(t, err)
		for _, f := range fits {
			i := slices.IndexFunc(truth, func(tr struct {
				level   string
				in, out float64
			}) bool {
				return tr.level == f.Level
			})
			bw := truth[i].out
			if f.Direction == In {
				bw = truth[i].in
			}
			total += 2
			if f.LatencyCI[0] <= trueLatency && trueLatency <= f.LatencyCI[1] {
				in++
			}
			if f.BandwidthCI[0] <= bw && bw <= f.BandwidthCI[1] {
				in++
			}
		}
	}
	cover := float64(in) / float64(total)
	assert.InDelta(t, 0.95, cover, 0.04, "coverage of the 95%% intervals")
}

func TestCalibrateFitExactLine(t *testing.T) {
	var s []Sample
	for _, d := range []int64{8, 1000, 2000, 4000} {
		s = append(s, Sample{"L1", Out, d, 2 + float64(d)/50})
	}
	fits, err := Fit(s)
	require.NoError(t, err)
	require.Len(t, fits, 1)
	assert.InDelta(t, 2, fits[0].Latency, 1e-9)
	assert.InDelta(t, 50, fits[0].Bandwidth, 1e-9)
	assert.InDelta(t, 1, fits[0].R2, 1e-12)
}

func TestCalibrateFitFlagsPoorFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var random []Sample
	for i := 0; i < 200; i++ {
		random = append(random, Sample{"L2", Out, int64(8 + rng.IntN(1<<20)), 100 + 900*rng.Float64()})
	}
	fits, err := Fit(random)
	require.NoError(t, err)
	require.Len(t, fits, 1)
	assert.True(t, fits[0].Poor)
	assert.Less(t, fits[0].R2, MinR2)
	assert.Contains(t, strings.Join(fits[0].Warnings, "; "), "R²")

	// Time falling with size: the slope is negative, the bandwidth clamped.
	var falling []Sample
	for _, d := range []int64{1000, 2000, 3000, 4000, 5000} {
		falling = append(falling, Sample{"L3", In, d, 1000 - float64(d)/10})
	}
	fits, err = Fit(falling)
	require.NoError(t, err)
	assert.True(t, fits[0].Poor)
	assert.Equal(t, 1/MinSlope, fits[0].Bandwidth)
	assert.Contains(t, strings.Join(fits[0].Warnings, "; "), "slope")

	// A line through the origin's left: the intercept is negative, the
	// latency clamped.
	var negative []Sample
	for _, d := range []int64{2000, 3000, 4000, 5000} {
		negative = append(negative, Sample{"DRAM", Out, d, -100 + float64(d)/10})
	}
	fits, err = Fit(negative)
	require.NoError(t, err)
	assert.True(t, fits[0].Poor)
	assert.Equal(t, MinLatency, fits[0].Latency)
	assert.InDelta(t, 10, fits[0].Bandwidth, 1e-9)
	assert.Contains(t, strings.Join(fits[0].Warnings, "; "), "intercept")
}

func TestCalibrateFitErrors(t *testing.T) {
	_, err := Fit(nil)
	assert.EqualError(t, err, "samples: no samples")
	_, err = Fit([]Sample{{"L1", Out, 8, 1}, {"L1", Out, 8, 1.1}, {"L1", Out, 8, 1.2}})
	assert.EqualError(t, err, `samples: level "L1" direction "out": 3 samples at 1 sizes: a fit needs at least 3 samples at 2 or more sizes`)
	assert.True(t, inputerr.Is(err))
}

func TestCalibrateFitOrder(t *testing.T) {
	var s []Sample
	for _, l := range []string{"SRAM", "DRAM", "L1"} {
		for _, dir := range []string{Out, In} {
			for _, d := range []int64{8, 100, 200} {
				s = append(s, Sample{l, dir, d, 1 + float64(d)})
			}
		}
	}
	fits, err := Fit(s)
	require.NoError(t, err)
	var got []string
	for _, f := range fits {
		got = append(got, f.Level+" "+f.Direction)
	}
	assert.Equal(t, []string{"L1 in", "L1 out", "DRAM in", "DRAM out", "SRAM in", "SRAM out"}, got)
}

func TestCalibrateSamplesRoundTrip(t *testing.T) {
	in := []Sample{{"L1", Out, 8, 1.25}, {"DRAM", In, 268435456, 9876543.125}}
	var buf bytes.Buffer
	require.NoError(t, WriteSamples(&buf, in))
	assert.Equal(t, "level,direction,bytes,ns\nL1,out,8,1.250\nDRAM,in,268435456,9876543.125\n", buf.String())
	out, err := ReadSamples("s.csv", &buf)
	require.NoError(t, err)
	assert.Equal(t, in, out)

	// Spaces around fields, a byte-order mark and CRLF are accepted.
	out, err = ReadSamples("s.csv", strings.NewReader("\uFEFFlevel, direction, bytes, ns\r\nL2 , in , 1024 , 3.5\r\n"))
	require.NoError(t, err)
	assert.Equal(t, []Sample{{"L2", In, 1024, 3.5}}, out)
}

func TestCalibrateReadSamplesErrors(t *testing.T) {
	const h = "level,direction,bytes,ns\n"
	for _, tc := range []struct{ in, want string }{
		{"", `samples "s.csv": line 1: missing header "level,direction,bytes,ns" (the file is empty)`},
		{"L1,out,8,1.5\n", `samples "s.csv": line 1: missing header "level,direction,bytes,ns" (got "L1,out,8,1.5")`},
		{"level,dir,bytes,ns\n", `samples "s.csv": line 1: missing header "level,direction,bytes,ns" (got "level,dir,bytes,ns")`},
		{h, `samples "s.csv": no samples after the header`},
		{h + "L1,out,8,1\nL1,out,8\n", `samples "s.csv": line 3: 3 columns, want 4 (level,direction,bytes,ns)`},
		{h + "L1,out,8,1,2\n", `samples "s.csv": line 2: 5 columns, want 4 (level,direction,bytes,ns)`},
		{h + "L1,out,eight,1\n", `samples "s.csv": line 2: bytes "eight" is not a number`},
		{h + "L1,out,8.5,1\n", `samples "s.csv": line 2: bytes "8.5" is not a whole number`},
		{h + "L1,out,99999999999999999999,1\n", `samples "s.csv": line 2: bytes 99999999999999999999 does not fit in 64 bits`},
		{h + "L1,out,8,fast\n", `samples "s.csv": line 2: ns "fast" is not a number`},
		{h + "L1,out,8,NaN\n", `samples "s.csv": line 2: ns "NaN" is not a finite number`},
		{h + "L1,out,8,1e999\n", `samples "s.csv": line 2: ns "1e999" is not a finite number`},
		{h + "L1,out,-8,1\n", `samples "s.csv": line 2: bytes -8 is negative`},
		{h + "L1,out,8,-1.5\n", `samples "s.csv": line 2: ns -1.5 is negative`},
		{h + "L1,up,8,1\n", `samples "s.csv": line 2: unknown direction "up": want "in" or "out"`},
		{h + ",out,8,1\n", `samples "s.csv": line 2: empty level name`},
		{h + "L1,\"out,8,1\n", `samples "s.csv": line 2: invalid CSV: extraneous or missing " in quoted-field`},
	} {
		_, err := ReadSamples("s.csv", strings.NewReader(tc.in))
		if assert.Error(t, err, tc.in) {
			assert.Equal(t, tc.want, err.Error(), tc.in)
			assert.True(t, inputerr.Is(err))
			assert.NotContains(t, err.Error(), "\n")
		}
	}
}

func TestCalibrateReadCaches(t *testing.T) {
	dir := t.TempDir()
	write := func(idx, level, typ, size string) {
		d := filepath.Join(dir, idx)
		require.NoError(t, os.MkdirAll(d, 0o755))
		for name, v := range map[string]string{"level": level, "type": typ, "size": size} {
			require.NoError(t, os.WriteFile(filepath.Join(d, name), []byte(v+"\n"), 0o644))
		}
	}
	write("index0", "1", "Data", "48K")
	write("index1", "1", "Instruction", "32K")
	write("index2", "2", "Unified", "2048K")
	c := readCaches(dir)
	assert.Equal(t, Caches{L1: 48 << 10, L2: 2 << 20, L3: FallbackL3, FromSys: [3]bool{true, true, false}}, c)

	c = readCaches(filepath.Join(dir, "absent"))
	assert.Equal(t, Caches{L1: FallbackL1, L2: FallbackL2, L3: FallbackL3}, c)

	for in, want := range map[string]int64{"48K": 48 << 10, "32M": 32 << 20, "1G": 1 << 30, "4096": 4096} {
		got, ok := parseCacheSize(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "K", "-1K", "12Q"} {
		_, ok := parseCacheSize(in)
		assert.False(t, ok, in)
	}
}

const baseYAML = `format: hieropt.hw/v1
name: my-box
time_unit: cycle
levels:
  - {name: L1, capacity: 40960, alignment: 32, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
  - {name: L2, capacity: 1310720, alignment: 64, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
  - {name: L3, capacity: 8388608, alignment: 64, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
  - {name: DRAM, capacity: 1073741824, alignment: 128, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
`

func TestCalibrateProfileWithBase(t *testing.T) {
	fits, err := Fit(synthetic(1))
	require.NoError(t, err)
	base, err := hw.Parse("base.yaml", []byte(baseYAML))
	require.NoError(t, err)
	p, err := Profile(fits, base, "tuned-box", "samples.csv")
	require.NoError(t, err)

	var buf bytes.Buffer
	require.NoError(t, WriteProfile(&buf, p))
	got, err := hw.Parse("tuned.yaml", buf.Bytes())
	require.NoError(t, err, buf.String())
	assert.Equal(t, "tuned-box", got.Name)
	assert.Equal(t, hw.NS, got.TimeUnit)
	assert.Equal(t, p.Description, got.Description)
	desc := strings.Join(strings.Fields(got.Description), " ")
	assert.Contains(t, desc, `Fitted by hieropt tune from the samples file "samples.csv"`)
	assert.Contains(t, desc, "R² per level: L1 in 0.99")
	assert.Contains(t, desc, `base profile "my-box"`)
	require.Len(t, got.Levels, 4)
	for i, l := range got.Levels {
		assert.Equal(t, base.Levels[i].Name, l.Name)
		assert.Equal(t, base.Levels[i].Capacity, l.Capacity)
		assert.Equal(t, base.Levels[i].Alignment, l.Alignment)
		assert.InEpsilon(t, trueLatency, l.In.Latency, 0.01)
		assert.InEpsilon(t, trueLatency, l.Out.Latency, 0.01)
		assert.InEpsilon(t, truth[i].in, l.In.Bandwidth, 0.01)
		assert.InEpsilon(t, truth[i].out, l.Out.Bandwidth, 0.01)
	}

	// The base's order wins over the samples'.
	rev := *base
	rev.Levels = slices.Clone(base.Levels)
	slices.Reverse(rev.Levels)
	p, err = Profile(fits, &rev, "", "")
	require.NoError(t, err)
	assert.Equal(t, []string{"DRAM", "L3", "L2", "L1"}, p.LevelNames())
	assert.Equal(t, DefaultName, p.Name)

	// Level names must match one for one.
	short := *base
	short.Levels = base.Levels[:3]
	_, err = Profile(fits, &short, "x", "")
	assert.EqualError(t, err, `hardware profile "my-box": has no level "DRAM" (it has L1, L2, L3): the base's level names must match the samples'`)
	other, err := profiles.Get("cpu-sapphire-rapids")
	require.NoError(t, err)
	_, err = Profile(fits, other, "x", "")
	assert.EqualError(t, err, `hardware profile "cpu-sapphire-rapids": level "L1D": no samples for this level (the samples have L1, L2, L3, DRAM): the base's level names must match`)
}

func TestCalibrateProfileWithoutBase(t *testing.T) {
	fits, err := Fit(synthetic(2))
	require.NoError(t, err)
	caches := Caches{L1: 48 << 10, L2: 1 << 20, L3: 32 << 20, FromSys: [3]bool{true, true, false}}
	p, err := buildProfile(fits, nil, "here", "s.csv", caches)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteProfile(&buf, p))
	got, err := hw.Parse("here.yaml", buf.Bytes())
	require.NoError(t, err, buf.String())
	assert.Equal(t, []string{"L1", "L2", "L3", "DRAM"}, got.LevelNames())
	for i, c := range []int64{48 << 10, 1 << 20, 32 << 20, DRAMCapacity} {
		assert.Equal(t, c, got.Levels[i].Capacity)
		assert.Equal(t, int64(DefaultAlignment), got.Levels[i].Alignment)
	}
	assert.Contains(t, strings.Join(strings.Fields(got.Description), " "), "L1 48 KiB (/sys), L2 1 MiB (/sys), L3 32 MiB (fallback), DRAM 16 GiB (assumed)")
	assert.Contains(t, buf.String(), "name: here\n")

	// This machine's caches (whatever they are) also make a valid profile.
	_, err = Profile(fits, nil, "x", "")
	require.NoError(t, err)

	// A level calibrate does not know has no capacity without a base.
	var s []Sample
	for _, dir := range []string{In, Out} {
		for _, d := range []int64{8, 100, 200} {
			s = append(s, Sample{"HBM", dir, d, 1 + float64(d)})
		}
	}
	fits, err = Fit(s)
	require.NoError(t, err)
	_, err = Profile(fits, nil, "x", "")
	assert.EqualError(t, err, `samples: level "HBM": no capacity known for this level (calibrate knows L1, L2, L3, DRAM): give a base profile that has it`)

	// Both directions are needed.
	_, err = Profile(fits[:1], nil, "x", "")
	assert.EqualError(t, err, `samples: level "HBM": no "out" samples: a profile needs both directions of every level`)
}

func TestCalibrateWriteProfileQuotes(t *testing.T) {
	for _, desc := range []string{"two\nlines: # not a comment", "\n\n  indented\n", "tab\there \"quoted\" ünïcode", "a\n\nb"} {
		p := &hw.Profile{Name: "yes", Description: desc, TimeUnit: hw.NS, Levels: []hw.Level{
			{Name: "a b", Capacity: 1 << 40, Alignment: 64, In: hw.Link{Latency: 0.001, Bandwidth: 1e6}, Out: hw.Link{Latency: 123456.75, Bandwidth: 1e-3}},
			{Name: "DRAM", Capacity: 1 << 30, Alignment: 64, In: hw.Link{Latency: 1, Bandwidth: 2}, Out: hw.Link{Latency: 3, Bandwidth: 4}},
		}}
		var buf bytes.Buffer
		require.NoError(t, WriteProfile(&buf, p))
		got, err := hw.Parse("q.yaml", buf.Bytes())
		require.NoError(t, err, buf.String())
		assert.Equal(t, p, got, buf.String())
	}
}

// TestCalibrateWriteProfileTimeline: the fields of FORMATS.md 6.1 are
// written and read back exactly, and a base profile's read-only levels,
// cost model, DMA and (in ns) compute unit carry over to the tuned one.
func TestCalibrateWriteProfileTimeline(t *testing.T) {
	link := hw.Link{Latency: 1, Bandwidth: 2}
	for _, p := range []*hw.Profile{
		{Name: "t", TimeUnit: hw.NS, CostModel: "timeline", Compute: &hw.Compute{MACsPerUnit: 0.125, OpOverhead: 3.5},
			DMA: hw.DMA{Channels: 4}, Levels: []hw.Level{
				{Name: "SRAM", Capacity: 4096, Alignment: 16, In: link, Out: link},
				{Name: "Flash", Capacity: 1 << 20, Alignment: 16, In: link, Out: link, ReadOnly: true}}},
		{Name: "odd model", TimeUnit: hw.Cycle, CostModel: "no", Compute: &hw.Compute{MACsPerUnit: 256},
			Levels: []hw.Level{{Name: "L", Capacity: 64, Alignment: 64, In: link, Out: link}}},
	} {
		var buf bytes.Buffer
		require.NoError(t, WriteProfile(&buf, p))
		got, err := hw.Parse("t.yaml", buf.Bytes())
		require.NoError(t, err, buf.String())
		assert.Equal(t, p, got, buf.String())
	}

	fits, err := Fit(synthetic(1))
	require.NoError(t, err)
	for _, unit := range []string{hw.NS, hw.Cycle} {
		base, err := hw.Parse("base.yaml", []byte(strings.Replace(strings.Replace(baseYAML, "time_unit: cycle\n",
			"time_unit: "+unit+"\ncost_model: timeline\ncompute: {macs_per_unit: 16}\ndma: {channels: 2}\n", 1),
			"alignment: 128,", "alignment: 128, read_only: true,", 1)))
		require.NoError(t, err)
		p, err := Profile(fits, base, "tuned", "s.csv")
		require.NoError(t, err)
		assert.Equal(t, "timeline", p.CostModel)
		assert.Equal(t, hw.DMA{Channels: 2}, p.DMA)
		assert.Equal(t, []bool{false, false, false, true}, []bool{p.Levels[0].ReadOnly, p.Levels[1].ReadOnly, p.Levels[2].ReadOnly, p.Levels[3].ReadOnly})
		desc := strings.Join(strings.Fields(p.Description), " ")
		if unit == hw.NS {
			assert.Equal(t, &hw.Compute{MACsPerUnit: 16}, p.Compute)
			assert.Contains(t, desc, "So are its read_only levels, the cost model, the DMA channels, the compute unit.")
		} else {
			assert.Nil(t, p.Compute)
			assert.Contains(t, desc, "So are its read_only levels, the cost model, the DMA channels. Its compute unit is not: it is in cycles, and this profile in ns.")
		}
	}
}

func TestCalibratePlan(t *testing.T) {
	c := Caches{L1: 48 << 10, L2: 1 << 20, L3: 32 << 20}
	plan, err := Plan(Options{Caches: &c})
	require.NoError(t, err)
	require.Len(t, plan, 4)
	bounds := map[string][2]int64{"L1": {6 << 10, 24 << 10}, "L2": {128 << 10, 512 << 10}, "L3": {4 << 20, 16 << 20}, "DRAM": {64 << 20, 256 << 20}}
	for i, p := range plan {
		assert.Equal(t, LevelOrder[i], p.Level)
		assert.Len(t, p.Sizes, 12)
		assert.Equal(t, bounds[p.Level][0], p.Sizes[0], p.Level)
		assert.Equal(t, bounds[p.Level][1], p.Sizes[11], p.Level)
		assert.True(t, slices.IsSorted(p.Sizes))
		for _, s := range p.Sizes {
			assert.Zero(t, s%256)
		}
		assert.Contains(t, p.Sizes, p.ChaseBytes)
		// Copies: half the smallest, a middle and the largest size.
		require.Len(t, p.CopySizes, 3, p.Level)
		assert.Equal(t, bounds[p.Level][0]/2, p.CopySizes[0], p.Level)
		assert.Equal(t, bounds[p.Level][1]/2, p.CopySizes[2], p.Level)
		assert.True(t, slices.IsSorted(p.CopySizes))
		for _, s := range p.CopySizes {
			assert.Zero(t, s%256)
		}
	}
	assert.Equal(t, []int64{3 << 10, 7 << 10, 12 << 10}, plan[0].CopySizes) // the middle one: half of the 6th size, 14 KiB
	plan, err = Plan(Options{Caches: &c, Quick: true, Levels: []string{"DRAM", "L1"}})
	require.NoError(t, err)
	assert.Equal(t, []int64{64 << 20, 80 << 20, 96 << 20}, plan[0].Sizes)
	assert.Equal(t, []int64{32 << 20, 40 << 20, 48 << 20}, plan[0].CopySizes)
	assert.Equal(t, "L1", plan[1].Level)

	// Tiny levels: copies are at least 256 bytes, without repeats.
	tiny := Caches{L1: 1 << 10, L2: 4 << 10, L3: 8 << 10}
	plan, err = Plan(Options{Caches: &tiny, Levels: []string{"L1"}})
	require.NoError(t, err)
	assert.Equal(t, []int64{256}, plan[0].CopySizes)

	_, err = Plan(Options{Levels: []string{"L4"}})
	assert.EqualError(t, err, `unknown level "L4": want L1, L2, L3, DRAM`)
	_, err = Plan(Options{Levels: []string{"L1", "L1"}})
	assert.EqualError(t, err, `level "L1" given twice`)
}

// TestMeasureQuick runs a real, short measurement: every level and both
// directions get positive times, streaming rows at the planned sizes and
// latency rows of LatencyBytes.
func TestCalibrateMeasureQuick(t *testing.T) {
	start := time.Now()
	var calls, last, total int
	res, err := Measure(context.Background(), Options{Quick: true, Repeat: 2, Batch: 20 * time.Microsecond,
		Progress: func(done, tot int) { calls++; last, total = done, tot }})
	require.NoError(t, err)
	samples := res.Samples
	t.Logf("quick measure: %d samples, %d copies in %v with %s kernels", len(samples), len(res.Copies), time.Since(start), Kernel())
	assert.Equal(t, total, last)
	assert.Equal(t, total, calls)
	plan, err := Plan(Options{Quick: true})
	require.NoError(t, err)
	steps := 0
	for _, p := range plan {
		steps += bestOf * 2 * (2*len(p.Sizes) + len(p.CopySizes))
	}
	assert.Equal(t, steps, total, "progress counts the copies")
	type key struct{ level, dir string }
	stream, latency := map[key]int{}, map[key]int{}
	for _, s := range samples {
		assert.Greater(t, s.NS, 0.0, "%+v", s)
		assert.False(t, math.IsInf(s.NS, 0) || math.IsNaN(s.NS), "%+v", s)
		if s.Bytes == LatencyBytes {
			latency[key{s.Level, s.Direction}]++
		} else {
			stream[key{s.Level, s.Direction}]++
		}
	}
	for _, p := range plan {
		for _, d := range []string{In, Out} {
			assert.Equal(t, 2*len(p.Sizes), stream[key{p.Level, d}], "%s %s", p.Level, d)
			assert.Equal(t, 2*len(p.Sizes), latency[key{p.Level, d}], "%s %s", p.Level, d)
		}
	}
	fits, err := Fit(samples)
	require.NoError(t, err)
	assert.Len(t, fits, 8)

	// Copies: every level, each copy size twice, in plan order.
	copies := map[string][]int64{}
	for _, c := range res.Copies {
		assert.Greater(t, c.NS, 0.0, "%+v", c)
		assert.False(t, math.IsInf(c.NS, 0) || math.IsNaN(c.NS), "%+v", c)
		copies[c.Level] = append(copies[c.Level], c.Bytes)
	}
	for _, p := range plan {
		assert.Equal(t, append(slices.Clone(p.CopySizes), p.CopySizes...), copies[p.Level], p.Level)
	}
	checks, err := CheckCopies(fits, res.Copies)
	require.NoError(t, err)
	assert.Len(t, checks, len(plan)*sizesQuick)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Measure(ctx, Options{Quick: true, Levels: []string{"L1"}})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestCalibrateKernels(t *testing.T) {
	assert.Equal(t, availableKernels[0].name, Kernel(), "Measure uses the fastest")
	assert.Equal(t, "go", availableKernels[len(availableKernels)-1].name)
	for _, k := range availableKernels {
		b := make([]uint64, 4*kernelWords)
		for i := range b {
			b[i] = uint64(i)
		}
		n := uint64(len(b))
		assert.Equal(t, n*(n-1)/2, k.read(b), k.name)
		k.write(b[:2*kernelWords], 7)
		for i, v := range b {
			if i < 2*kernelWords {
				assert.Equal(t, uint64(7), v, "%s %d", k.name, i)
			} else {
				assert.Equal(t, uint64(i), v, "%s %d", k.name, i)
			}
		}
		k.write(b, 9)
		assert.Equal(t, 9*n, k.read(b), k.name)
	}
	t.Logf("kernels: %s", Kernel())
}

// TestCalibrateCopyKernels checks that every copy kernel copies: after a
// copy of n words, the destination's n words equal the source's, byte for
// byte, and nothing else changed; at unaligned addresses too.
func TestCalibrateCopyKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range availableKernels {
		for _, words := range []int{0, kernelWords, 3 * kernelWords, 64 * kernelWords} {
			for _, skew := range []int{0, 1, 5} { // words: 8- and 40-byte misalignment
				src := make([]uint64, words+skew)
				for i := range src {
					src[i] = rng.Uint64()
				}
				before := slices.Clone(src)
				dst := make([]uint64, words+skew+kernelWords) // room after, which must stay 0
				k.copy(dst[skew:], src[skew:])
				assert.Equal(t, before, src, "%s %d words skew %d: source untouched", k.name, words, skew)
				assert.Equal(t, src[skew:], dst[skew:skew+words], "%s %d words skew %d", k.name, words, skew)
				assert.Equal(t, make([]uint64, skew), dst[:skew], "%s: before the destination", k.name)
				assert.Equal(t, make([]uint64, kernelWords), dst[skew+words:], "%s: after the destination", k.name)
			}
		}
	}

	// The level's buffers: source at the start, destination on the next
	// page boundary, disjoint, within the buffer Measure allocates.
	for _, size := range []int64{256, 3 << 10, 4 << 10, 7 << 10, 12 << 10} {
		buf := make([]uint64, copyOffset(size)+size/8)
		dst, src := copyBuffers(buf, size)
		assert.Len(t, src, int(size/8))
		assert.Len(t, dst, int(size/8))
		off := int64(uintptr(unsafe.Pointer(&dst[0])) - uintptr(unsafe.Pointer(&src[0])))
		assert.Zero(t, off%pageBytes, size)
		assert.GreaterOrEqual(t, off, size)
		assert.Less(t, off, size+pageBytes)
	}
}

// TestCalibrateMeasurePortableKernels runs Measure with the Go kernels.
func TestCalibrateMeasurePortableKernels(t *testing.T) {
	saved := kernels
	defer func() { kernels = saved }()
	kernels = goKernels
	res, err := Measure(context.Background(), Options{Quick: true, Repeat: 1, Levels: []string{"L1"}, Batch: 10 * time.Microsecond})
	require.NoError(t, err)
	assert.Len(t, res.Samples, 4*sizesQuick)
	for _, s := range res.Samples {
		assert.Greater(t, s.NS, 0.0)
	}
	assert.Len(t, res.Copies, sizesQuick)
	for _, c := range res.Copies {
		assert.Greater(t, c.NS, 0.0)
	}
}

func TestCalibratePredictCopy(t *testing.T) {
	fits := []LinkFit{
		{Level: "L1", Direction: In, Latency: 2, Bandwidth: 100},
		{Level: "L1", Direction: Out, Latency: 1, Bandwidth: 200},
		{Level: "DRAM", Direction: Out, Latency: 100, Bandwidth: 40},
	}
	ns, ok := PredictCopy(fits, "L1", 4000)
	assert.True(t, ok)
	assert.InDelta(t, 1+4000.0/200+2+4000.0/100, ns, 1e-12) // 63
	ns, ok = PredictCopy(fits, "L1", 0)
	assert.True(t, ok)
	assert.InDelta(t, 3, ns, 1e-12, "latencies only")
	_, ok = PredictCopy(fits, "DRAM", 4000)
	assert.False(t, ok, "no in fit")
	_, ok = PredictCopy(fits, "L2", 4000)
	assert.False(t, ok)

	// Fitted from exact lines, the prediction is the sum of the two.
	var s []Sample
	for _, d := range []int64{8, 1 << 10, 4 << 10, 16 << 10} {
		s = append(s, Sample{"L2", Out, d, 5 + float64(d)/150}, Sample{"L2", In, d, 6 + float64(d)/50})
	}
	fits, err := Fit(s)
	require.NoError(t, err)
	ns, ok = PredictCopy(fits, "L2", 30000)
	assert.True(t, ok)
	assert.InDelta(t, 5+30000.0/150+6+30000.0/50, ns, 1e-6)
}

func TestCalibrateCheckCopies(t *testing.T) {
	fits := []LinkFit{
		{Level: "DRAM", Direction: In, Latency: 100, Bandwidth: 20},
		{Level: "DRAM", Direction: Out, Latency: 100, Bandwidth: 20},
		{Level: "L1", Direction: In, Latency: 1, Bandwidth: 100},
		{Level: "L1", Direction: Out, Latency: 1, Bandwidth: 100},
	}
	copies := []CopySample{
		{"DRAM", 2000, 100}, {"L1", 1000, 30}, {"L1", 500, 12}, {"L1", 1000, 11}, {"L1", 1000, 40},
	}
	got, err := CheckCopies(fits, copies)
	require.NoError(t, err)
	want := []CopyCheck{
		{Level: "L1", Bytes: 500, N: 1, Measured: 12, Predicted: 12, Error: 0},
		{Level: "L1", Bytes: 1000, N: 3, Measured: 30, Predicted: 22, Error: 22.0/30 - 1}, // the median of 11, 30, 40
		{Level: "DRAM", Bytes: 2000, N: 1, Measured: 100, Predicted: 400, Error: 3},
	}
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].Level, got[i].Level)
		assert.Equal(t, want[i].Bytes, got[i].Bytes)
		assert.Equal(t, want[i].N, got[i].N)
		assert.InDelta(t, want[i].Measured, got[i].Measured, 1e-12)
		assert.InDelta(t, want[i].Predicted, got[i].Predicted, 1e-12)
		assert.InDelta(t, want[i].Error, got[i].Error, 1e-12)
	}
	assert.InDelta(t, 25.0, median([]float64{40, 10, 30, 20}), 1e-12)

	got, err = CheckCopies(fits, nil)
	require.NoError(t, err)
	assert.Empty(t, got)
	_, err = CheckCopies(fits[:3], copies)
	assert.EqualError(t, err, `level "L1": the copy check needs the level's in and out fits`)
}

func TestCalibrateRing(t *testing.T) {
	m := &meter{rng: rand.New(rand.NewPCG(1, 1))}
	ring, free := m.ring(64 << 10)
	defer free()
	nodes := len(ring) / lineWords
	seen := make([]bool, nodes)
	p := uint64(0)
	for i := 0; i < nodes; i++ {
		require.Zero(t, p%lineWords)
		require.False(t, seen[p/lineWords], "node %d visited twice after %d hops", p/lineWords, i)
		seen[p/lineWords] = true
		p = ring[p]
	}
	assert.Zero(t, p, "one lap returns to the start")
}
