package hieropt_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/workload"
)

// TestOptimizeUnvalidatedInput: a program built in code goes in as it is
// (Bind checks it); a program or a profile that breaks the format is an
// error naming the rule, never a panic.
func TestOptimizeUnvalidatedInput(t *testing.T) {
	prog := func() *workload.Program {
		return &workload.Program{Name: "tiny", Ops: []workload.Op{{Name: "op0"}},
			Blocks: []workload.Block{{Name: "x", Size: 64, Kind: workload.Activation, First: 0, Last: 0, Writes: []int{0}}}}
	}
	link := hw.Link{Latency: 1, Bandwidth: 8}
	prof := func() *hw.Profile {
		return &hw.Profile{Name: "npu", TimeUnit: hw.Cycle, Levels: []hw.Level{{Name: "SRAM", Capacity: 4096, Alignment: 16, In: link, Out: link}}}
	}
	ctx := context.Background()

	broken := prog()
	broken.Blocks[0].Last = 3
	var res *hieropt.Result
	var err error
	require.NotPanics(t, func() { res, err = hieropt.Optimize(ctx, broken, prof(), nil) })
	assert.Nil(t, res)
	assert.EqualError(t, err, `workload "tiny": block "x": lifetime [0,3]: want 0 <= first <= last < 1 (the number of ops)`)
	assert.True(t, inputerr.Is(err))
	require.NotPanics(t, func() { _, err = search.Run(ctx, broken, prof(), nil) })
	assert.True(t, inputerr.Is(err), "%v", err)
	require.NotPanics(t, func() { _, err = hieropt.Optimize(ctx, nil, nil, nil) })
	assert.Error(t, err)

	res, err = hieropt.Optimize(ctx, prog(), prof(), nil)
	require.NoError(t, err, "a program never passed to Validate is planned")
	assert.Len(t, res.Plan.Placements, 1)

	p := prog()
	require.NoError(t, p.Validate("tiny"))
	bad := prof()
	bad.Levels[0].Alignment = 0
	_, err = hieropt.Optimize(ctx, p, bad, nil)
	assert.EqualError(t, err, `hardware profile "npu": level "SRAM": alignment 0: must be > 0 bytes`)
	assert.True(t, inputerr.Is(err))
	_, err = hieropt.Optimize(ctx, p, &hw.Profile{Name: "empty", TimeUnit: hw.Cycle}, nil)
	assert.EqualError(t, err, `hardware profile "empty": "levels" is empty: a profile needs at least one level`)

	res, err = hieropt.Optimize(ctx, p, prof(), nil)
	require.NoError(t, err)
	assert.Len(t, res.Plan.Placements, 1)
}
