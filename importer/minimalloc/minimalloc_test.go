package minimalloc

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/pack"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/workload"
)

// input12 is MiniMalloc's README example (testdata/minimalloc/input.12.csv).
func input12() *pack.Problem {
	return &pack.Problem{Buffers: []pack.Buffer{
		{ID: "b1", Lower: 0, Upper: 3, Size: 4},
		{ID: "b2", Lower: 3, Upper: 9, Size: 4},
		{ID: "b3", Lower: 0, Upper: 9, Size: 4},
		{ID: "b4", Lower: 9, Upper: 21, Size: 4},
		{ID: "b5", Lower: 0, Upper: 21, Size: 4, Align: 4},
	}}
}

func TestImport(t *testing.T) {
	p := input12()
	prog, err := Import("input.12", "test", p)
	require.NoError(t, err)
	var names []string
	for _, op := range prog.Ops {
		names = append(names, op.Name)
	}
	assert.Equal(t, []string{"t0", "t3", "t9", "t21"}, names, "one op per time point")
	want := []workload.Block{
		{Name: "b1", Size: 4, Kind: workload.Scratch, First: 0, Last: 0, Writes: []int{0}, Reads: []int{0}},
		{Name: "b2", Size: 4, Kind: workload.Scratch, First: 1, Last: 1, Writes: []int{1}, Reads: []int{1}},
		{Name: "b3", Size: 4, Kind: workload.Activation, First: 0, Last: 1, Writes: []int{0}, Reads: []int{1}},
		{Name: "b4", Size: 4, Kind: workload.Scratch, First: 2, Last: 2, Writes: []int{2}, Reads: []int{2}},
		{Name: "b5", Size: 4, Kind: workload.Activation, First: 0, Last: 2, Writes: []int{0}, Reads: []int{2}, Align: 4},
	}
	assert.Equal(t, want, prog.Blocks)
	assert.Equal(t, []int64{0, 3, 9, 21, 22}, Times(prog))
	assert.Equal(t, pack.MaxLive(p), prog.ComputeStats().MaxLive)

	// Back to the same problem, and through the JSON document too.
	assert.Equal(t, p, Problem(prog))
	var buf bytes.Buffer
	require.NoError(t, prog.Write(&buf))
	again, err := workload.Parse("x.json", buf.Bytes())
	require.NoError(t, err)
	assert.Equal(t, p, Problem(again))

	_, err = Import("e", "", &pack.Problem{})
	assert.Error(t, err)
}

// TestImportChallenging: every shipped instance imports to a valid
// workload of the same max-live and comes back unchanged.
func TestImportChallenging(t *testing.T) {
	files, err := filepath.Glob("../../testdata/minimalloc/*.csv")
	require.NoError(t, err)
	require.Len(t, files, 12)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		p, err := pack.ReadCSV(f, bytes.NewReader(data))
		require.NoError(t, err)
		prog, err := Import(filepath.Base(f), "", p)
		require.NoError(t, err, f)
		assert.Equal(t, pack.MaxLive(p), prog.ComputeStats().MaxLive, f)
		assert.Equal(t, p, Problem(prog), f)
	}
}

func TestTimes(t *testing.T) {
	prog := testprog.New("p", 3).Block("a", 8, "activation", 0, 2).Program()
	assert.Equal(t, []int64{0, 1, 2, 3}, Times(prog), "op names are not times: timesteps")
	for _, names := range [][]string{{"t5", "t3", "t9"}, {"t1", "t02", "t3"}, {"t1", "u2", "t3"}, {"t-1", "t0", "t1"}} {
		for i := range prog.Ops {
			prog.Ops[i].Name = names[i]
		}
		assert.Equal(t, []int64{0, 1, 2, 3}, Times(prog), "%v", names)
	}
	for i, n := range []string{"t1", "t20", "t300"} {
		prog.Ops[i].Name = n
	}
	assert.Equal(t, []int64{1, 20, 300, 301}, Times(prog))
}

// TestExport: footprints in the level, a block with two placements, and
// in-place reuse, which MiniMalloc's format can only express with
// ExportOptions.InPlace.
func TestExport(t *testing.T) {
	prog := testprog.New("p", 3).
		Block("a", 100, "activation", 0, 1, testprog.Reusable()).
		Block("b", 100, "activation", 1, 2).
		Block("c", 30, "activation", 0, 2).
		Program()
	prof := testprog.Profile("one", testprog.Level{Name: "MEM", Capacity: 1024, Align: 64, Latency: 1, Bandwidth: 1})
	p := testprog.Bind(prog, prof)
	pl := &plan.Plan{Placements: []plan.Placement{
		{Block: "a", From: 0, To: 1, Level: "MEM", Offset: 0},
		{Block: "b", From: 1, To: 2, Level: "MEM", Offset: 0}, // in place over a
		{Block: "c", From: 1, To: 2, Level: "MEM", Offset: 192},
		{Block: "c", From: 0, To: 0, Level: "MEM", Offset: 128},
	}}
	_, _, err := Export(p, pl, 0, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in-place reuse")

	prob, sol, err := Export(p, pl, 0, &ExportOptions{InPlace: true})
	require.NoError(t, err)
	assert.Equal(t, []pack.Buffer{
		{ID: "a", Lower: 0, Upper: 1, Size: 128, Align: 64}, // ends where b starts
		{ID: "b", Lower: 1, Upper: 3, Size: 128, Align: 64},
		{ID: "c@0", Lower: 0, Upper: 1, Size: 64, Align: 64},
		{ID: "c@1", Lower: 1, Upper: 3, Size: 64, Align: 64},
	}, prob.Buffers)
	assert.Equal(t, []int64{0, 0, 128, 192}, sol.Offsets)
	assert.Equal(t, int64(1024), prob.Capacity)
	assert.Equal(t, int64(256), sol.Peak)
	require.NoError(t, pack.Check(prob, sol))

	// Without the reuse, the rows are the placements as they are.
	pl.Placements[1].Offset = 256
	prob, _, err = Export(p, pl, 0, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(2), prob.Buffers[0].Upper)

	// Names that MiniMalloc's CSV cannot hold.
	bad := testprog.New("p", 1).Block("x,y", 8, "activation", 0, 0).Program()
	bp := testprog.Bind(bad, prof)
	_, _, err = Export(bp, &plan.Plan{Placements: []plan.Placement{{Block: "x,y", Level: "MEM"}}}, 0, nil)
	assert.ErrorContains(t, err, "comma")
}

// TestShippedWorkloadsPackNearMaxLive: every shipped workload's blocks,
// packed as one arena, reach a peak within 2% of their max-live (issue 5's
// target; today every one reaches it exactly), and the packing is checked.
func TestShippedWorkloadsPackNearMaxLive(t *testing.T) {
	files, err := filepath.Glob("../../workloads/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		prog, err := workload.ReadFile(f)
		require.NoError(t, err)
		p := Problem(prog)
		s, err := pack.Solve(context.Background(), p, &pack.Options{Minimize: true})
		require.NoError(t, err, f)
		require.True(t, s.Solved, f)
		require.NoError(t, pack.Check(p, s), f)
		ml := pack.MaxLive(p)
		assert.LessOrEqual(t, float64(s.Peak), 1.02*float64(ml), "%s: peak %d, max-live %d", f, s.Peak, ml)
	}
}
