package costmodel_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// profile: FAST in 1 + d/4, out 2 + d/8; SLOW in 10 + d/1, out 20 + d/2.
func profile() *hw.Profile {
	prof := &hw.Profile{Name: "hw", TimeUnit: hw.Cycle, Levels: []hw.Level{
		{Name: "FAST", Capacity: 4096, Alignment: 16, In: hw.Link{Latency: 1, Bandwidth: 4}, Out: hw.Link{Latency: 2, Bandwidth: 8}},
		{Name: "SLOW", Capacity: 1 << 20, Alignment: 64, In: hw.Link{Latency: 10, Bandwidth: 1}, Out: hw.Link{Latency: 20, Bandwidth: 2}},
	}}
	if err := prof.Validate("test"); err != nil {
		panic(err)
	}
	return prof
}

func TestSeed003HandArithmetic(t *testing.T) {
	prog := testprog.New("p", 4).
		Block("a", 64, "activation", 0, 3, testprog.Reads(1, 3)).
		Block("w", 32, "constant", 0, 2, testprog.Reads(2)).
		Program()
	p := testprog.Bind(prog, profile())
	lay := state.NewLayout(2)
	// a written at 0 in FAST, moved to SLOW at 2, read at 1 (FAST) and 3 (SLOW).
	lay.SetFirst(0, state.Seg{From: 0, Level: 0, Offset: 0})
	lay.MoveAt(0, 2, state.Pos{Level: 1, Offset: 0})
	// w in SLOW all its life: its first placement is free; read at 2.
	lay.SetFirst(1, state.Seg{From: 0, Level: 1, Offset: 64})
	m := costmodel.Seed003{}
	// a: write at 0 into FAST   1 + 64/4   = 17
	//    read at 1 out of FAST  2 + 64/8   = 10
	//    transfer at 2: out FAST 10 + in SLOW 10 + 64 = 84
	//    read at 3 out of SLOW  20 + 64/2  = 52
	//    total 17 + 10 + 84 + 52 = 163
	assert.Equal(t, 163.0, m.BlockCost(p, 0, lay.Segs[0]))
	// w: read at 2 out of SLOW: 20 + 32/2 = 36
	assert.Equal(t, 36.0, m.BlockCost(p, 1, lay.Segs[1]))
	assert.Equal(t, 199.0, costmodel.Total(m, p, lay))

	// Vela prices the transfer max(out FAST 2 + 64/8 = 10, 64/1 = 64) = 64:
	// a = 17 + 10 + 64 + 52 = 143.
	assert.Equal(t, 143.0, costmodel.VelaDMA{}.BlockCost(p, 0, lay.Segs[0]))

	rep := costmodel.Breakdown(m, p, lay)
	assert.Equal(t, 199.0, rep.Total)
	// Per timestep: 0: 17; 1: 10; 2: 84 + 36 = 120; 3: 52.
	assert.Equal(t, []float64{17, 10, 120, 52}, []float64{rep.Steps[0].Time, rep.Steps[1].Time, rep.Steps[2].Time, rep.Steps[3].Time})
	assert.Equal(t, 1, rep.Steps[2].Transfers)
	assert.Equal(t, int64(64), rep.Steps[2].BytesMoved)
	// FAST: write 17 + read 10 + transfer out 10 = 37; SLOW: in 74 + reads 52 + 36 = 162.
	assert.Equal(t, 37.0, rep.Levels[0].Time)
	assert.Equal(t, 162.0, rep.Levels[1].Time)
	assert.Equal(t, int64(64+64+64), rep.Levels[0].Traffic(), "written 64, read 64, moved out 64")
	assert.Equal(t, 1, rep.Levels[1].TransfersIn)
	// Peak bytes: FAST holds a (64) at 0-1; SLOW holds w (64) and a (64) at 2.
	assert.Equal(t, []int64{64, 128}, rep.PeakBytes)
}

func TestPeakBytesCountsReusedSpaceOnce(t *testing.T) {
	prog := testprog.New("p", 3).
		Block("x", 100, "activation", 0, 1, testprog.Reusable()).
		Block("y", 100, "activation", 1, 2).
		Program()
	p := testprog.Bind(prog, profile())
	lay := state.NewLayout(2)
	lay.SetFirst(0, state.Seg{From: 0, Level: 0, Offset: 0})
	lay.SetFirst(1, state.Seg{From: 1, Level: 0, Offset: 0})
	// Both alive at 1, sharing [0,112): 112 B busy, not 224.
	assert.Equal(t, []int64{112, 0}, costmodel.PeakBytes(p, lay))
}

func TestChargesSumToBlockCost(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "workloads", "*.json"))
	require.NoError(t, err)
	for _, name := range profiles.Names() {
		// The seed-model copy of the built-in (a problem bound without
		// Semantics; under the timeline model the built-ins' steps do not
		// add up to the total: Report.Timeline).
		prof, err := hw.ReadFile(filepath.Join("..", "testdata", "hw", "seed003", name+".yaml"))
		require.NoError(t, err)
		for _, f := range files {
			prog, err := workload.ReadFile(f)
			require.NoError(t, err)
			p, err := state.Bind(prog, prof, f)
			if err != nil {
				continue
			}
			lay := state.NewLayout(p.Blocks())
			if _, err := actions.NewInitializer(p).Run(lay, 0); err != nil {
				continue
			}
			// Add a transfer to every third long-lived block, to the other
			// end of the slowest level, so that transfers are priced too.
			for b := 0; b < p.Blocks(); b += 3 {
				blk := p.Block(b)
				if blk.Last > blk.First {
					lay.MoveAt(b, blk.Last, state.Pos{Level: int32(p.Levels() - 1), Offset: 0})
				}
			}
			for _, mn := range costmodel.Names() {
				m, _ := costmodel.Lookup(mn)
				for b := range lay.Segs {
					var sum float64
					m.Charges(p, b, lay.Segs[b], func(c costmodel.Charge) { sum += c.Time })
					want := m.BlockCost(p, b, lay.Segs[b])
					require.InDelta(t, want, sum, 1e-9*math.Max(1, want), "%s %s %s block %d", mn, prof.Name, prog.Name, b)
				}
				rep := costmodel.Breakdown(m, p, lay)
				var steps float64
				for _, s := range rep.Steps {
					steps += s.Time
				}
				require.InDelta(t, rep.Total, steps, 1e-9*rep.Total)
			}
		}
	}
}

type named string

func (n named) Name() string { return string(n) }
func (named) Doc() string    { return "test" }
func (named) BlockCost(*state.Problem, int, []state.Seg) float64 {
	return 0
}
func (named) Charges(*state.Problem, int, []state.Seg, func(costmodel.Charge)) {}
func (named) Timeline() bool                                                   { return false }
func (named) Price(*state.Problem, state.View) costmodel.Pricer                { return nil }

func TestRegistry(t *testing.T) {
	assert.Equal(t, []string{"seed003", "timeline", "vela-dma"}, costmodel.Names())
	m, ok := costmodel.Lookup(costmodel.Default)
	require.True(t, ok)
	assert.Equal(t, "seed003", m.Name())
	assert.EqualError(t, costmodel.Register(named("seed003")), `costmodel: model "seed003" registered twice`)
	assert.EqualError(t, costmodel.Register(named("")), `costmodel: model with an empty name`)
}
