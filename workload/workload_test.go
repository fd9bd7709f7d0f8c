package workload_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
)

var allKinds = []workload.Kind{workload.Input, workload.Output, workload.Activation, workload.Scratch, workload.Constant}

func TestKindNames(t *testing.T) {
	names := []string{"input", "output", "activation", "scratch", "constant"}
	require.Len(t, allKinds, len(names))
	for i, k := range allKinds {
		assert.Equal(t, names[i], k.String())
		got, ok := workload.ParseKind(names[i])
		assert.True(t, ok, names[i])
		assert.Equal(t, k, got)
	}
	for _, s := range []string{"", "Input", "weight", "const", " input"} {
		_, ok := workload.ParseKind(s)
		assert.False(t, ok, "%q is not a kind", s)
	}
	assert.Equal(t, "Kind(9)", workload.Kind(9).String())
}

// TestCanReuseKinds is the truth table of the kind rule of FORMATS.md
// section 1 over every pair (a ends, b starts at the same timestep, a is
// reusable): an input or activation's space may go to a scratch,
// activation or output block; a scratch block's space only to an
// activation or output block; output and constant space never.
func TestCanReuseKinds(t *testing.T) {
	const (
		I = workload.Input
		O = workload.Output
		A = workload.Activation
		S = workload.Scratch
		C = workload.Constant
	)
	allowed := map[workload.Kind]map[workload.Kind]bool{
		I: {S: true, A: true, O: true},
		A: {S: true, A: true, O: true},
		S: {A: true, O: true},
		O: {},
		C: {},
	}
	for _, ka := range allKinds {
		for _, kb := range allKinds {
			t.Run(fmt.Sprintf("%v->%v", ka, kb), func(t *testing.T) {
				a := &workload.Block{Name: "a", Kind: ka, First: 1, Last: 3, Reusable: true}
				b := &workload.Block{Name: "b", Kind: kb, First: 3, Last: 3}
				assert.Equal(t, allowed[ka][kb], workload.CanReuse(a, b))

				// Never without the reusable flag, whatever b is.
				a.Reusable = false
				b.Reusable = true
				assert.False(t, workload.CanReuse(a, b), "a is not reusable")
			})
		}
	}
}

func TestCanReuseTiming(t *testing.T) {
	tests := []struct {
		name        string
		aLast       int
		bFirst      int
		wantAllowed bool
	}{
		{"b starts where a ends", 3, 3, true},
		{"b starts after a ends", 3, 4, false},
		{"b starts before a ends", 3, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &workload.Block{Kind: workload.Activation, First: 0, Last: tt.aLast, Reusable: true}
			b := &workload.Block{Kind: workload.Activation, First: tt.bFirst, Last: tt.bFirst + 1}
			assert.Equal(t, tt.wantAllowed, workload.CanReuse(a, b))
		})
	}
}

// threeOps returns a valid program of three ops (timesteps 0..2) with the
// given blocks.
func threeOps(blocks ...workload.Block) *workload.Program {
	return &workload.Program{
		Name:   "code",
		Ops:    []workload.Op{{Name: "a"}, {Name: "b"}, {Name: "c"}},
		Blocks: blocks,
	}
}

// TestValidateBuiltInCode covers the rules a program built in code can break
// that no JSON document can reach (the reader rejects them first).
func TestValidateBuiltInCode(t *testing.T) {
	act := workload.Block{Name: "x", Size: 8, Kind: workload.Activation, First: 0, Last: 1, Writes: []int{0}, Reads: []int{1}}
	with := func(f func(b *workload.Block)) *workload.Program {
		b := act
		f(&b)
		return threeOps(b)
	}
	tests := []struct {
		name string
		p    *workload.Program
		want string
	}{
		{"no name", &workload.Program{Ops: []workload.Op{{Name: "a"}}}, `code: missing required field "name"`},
		{"no ops", &workload.Program{Name: "p"}, `code: "ops" is empty: a workload needs at least one op`},
		{"unnamed op", &workload.Program{Name: "p", Ops: []workload.Op{{Name: "a"}, {}}}, `code: op 1: missing required field "name"`},
		{"negative macs", &workload.Program{Name: "p", Ops: []workload.Op{{Name: "a", MACs: -5}}}, `code: op 0 "a": macs -5 is negative`},
		{"unnamed block", with(func(b *workload.Block) { b.Name = "" }), `code: block 0: missing required field "name"`},
		{"unknown kind", with(func(b *workload.Block) { b.Kind = 7 }), `code: block "x": unknown kind 7`},
		{"negative align", with(func(b *workload.Block) { b.Align = -1 }), `code: block "x": align -1: must be > 0 bytes when given`},
		{"negative last", with(func(b *workload.Block) { b.First, b.Last = -2, -1 }),
			`code: block "x": lifetime [-2,-1]: want 0 <= first <= last < 3 (the number of ops)`},
		{"write outside", with(func(b *workload.Block) { b.Writes = []int{0, 2} }), `code: block "x": writes [2] outside lifetime [0,1]`},
		{"writes unsorted", with(func(b *workload.Block) { b.Writes = []int{1, 0} }), `code: block "x": writes: not sorted (0 after 1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate("code")
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.True(t, inputerr.Is(err))
		})
	}
}

func TestValidateAcceptsBoundaries(t *testing.T) {
	p := threeOps(
		// A scratch block need not be read or written; a constant may have
		// no reads; an output may start at the final timestep.
		workload.Block{Name: "s", Size: 1, Kind: workload.Scratch, First: 2, Last: 2},
		workload.Block{Name: "w", Size: 1, Kind: workload.Constant, First: 0, Last: 2},
		workload.Block{Name: "o", Size: 1, Kind: workload.Output, First: 2, Last: 2, Writes: []int{2}},
		workload.Block{Name: "i", Size: 1 << 62, Kind: workload.Input, First: 0, Last: 0, Writes: []int{0}, Reads: []int{0}},
	)
	require.NoError(t, p.Validate("code"))
}

// TestValidateIsPure: Validate only reads the program (a Program has no
// hidden state: the indexes are state.Problem's), and a program that breaks
// a rule can still be read by every method without a panic.
func TestValidateIsPure(t *testing.T) {
	p := threeOps(
		workload.Block{Name: "in", Size: 4, Kind: workload.Input, First: 0, Last: 1, Writes: []int{0}, Reads: []int{1}},
		workload.Block{Name: "out", Size: 4, Kind: workload.Output, First: 1, Last: 2, Writes: []int{1}, Reads: []int{2}},
	)
	before := fmt.Sprintf("%#v", *p)
	require.NoError(t, p.Validate("code"))
	assert.Equal(t, before, fmt.Sprintf("%#v", *p), "Validate changed the program")

	bad := threeOps(
		workload.Block{Name: "late", Size: 8, Kind: workload.Activation, First: 1, Last: 7},
		workload.Block{Name: "early", Size: 2, Kind: workload.Activation, First: -3, Last: 0},
		workload.Block{Name: "odd", Size: 1, Kind: workload.Kind(9), First: 0, Last: 0},
		workload.Block{Name: "backwards", Size: 1, Kind: workload.Input, First: 2, Last: 1},
	)
	require.Error(t, bad.Validate("code"))
	var s workload.Stats
	require.NotPanics(t, func() { s = bad.ComputeStats() })
	assert.Equal(t, int64(8), s.MaxLive, "late (8 B) clipped to [1,2]; early (2 B) and odd (1 B) at 0; backwards nowhere")
	assert.Equal(t, int64(12), s.TotalBytes, "every block's size counts in the total")
	assert.Equal(t, [5]int{1, 0, 2, 0, 0}, s.BlocksByKind, "Kind(9) is in no entry")
	require.NotPanics(t, func() { (&workload.Program{}).ComputeStats() })
}

func TestBlockItem(t *testing.T) {
	p := threeOps(workload.Block{Name: "s"}, workload.Block{})
	assert.Equal(t, `block "s"`, p.BlockItem(0))
	assert.Equal(t, `block 1`, p.BlockItem(1))
	assert.Equal(t, `block 9`, p.BlockItem(9))
	assert.Equal(t, `block -1`, p.BlockItem(-1))
}

// TestComputeStatsByHand checks the figures on a program small enough to
// add up by hand.
func TestComputeStatsByHand(t *testing.T) {
	p := threeOps(
		// id 0: input, lives 0..1, its space may go to op 1's results.
		workload.Block{Name: "in", Size: 100, Kind: workload.Input, First: 0, Last: 1, Writes: []int{0}, Reads: []int{1}, Reusable: true},
		// id 1: constant, lives 0..1.
		workload.Block{Name: "w", Size: 30, Kind: workload.Constant, First: 0, Last: 1, Reads: []int{1}},
		// id 2: activation made at 1, read at 2.
		workload.Block{Name: "act", Size: 60, Kind: workload.Activation, First: 1, Last: 2, Writes: []int{1}, Reads: []int{2}},
		// id 3: scratch of op 1.
		workload.Block{Name: "ws", Size: 20, Kind: workload.Scratch, First: 1, Last: 1},
		// id 4: output made at 2. As large as "in": Largest is the first
		// of the largest in ID order, "in".
		workload.Block{Name: "out", Size: 100, Kind: workload.Output, First: 2, Last: 2, Writes: []int{2}, Reads: []int{2}},
	)
	p.Ops[1].MACs = 1500
	p.Ops[2].MACs = 25
	require.NoError(t, p.Validate("code"))
	s := p.ComputeStats()

	// Live sums: t=0: in+w = 130; t=1: in+w+act+ws = 210; t=2: act+out = 160.
	// In place at t=1: ending reusable = in (100), created = act+ws (80):
	//   210 - 100 - 80 + max(100, 80) = 130.
	// In place at t=2: nothing reusable ends: 160.
	// Without constants: t=0: 100; t=1: 180; t=2: 160.
	want := workload.Stats{
		Ops: 3, Blocks: 5,
		BlocksByKind:   [5]int{1, 1, 1, 1, 1},
		TotalBytes:     100 + 30 + 60 + 20 + 100,
		ConstBytes:     30,
		MaxLive:        210,
		MaxLiveAt:      1,
		MaxLiveInPlace: 160,
		MaxLiveNoConst: 180,
		Largest:        0,
		MACs:           1525,
	}
	assert.Equal(t, want, s)
}

func TestComputeStatsNoBlocks(t *testing.T) {
	p := threeOps()
	require.NoError(t, p.Validate("code"))
	assert.Equal(t, workload.Stats{Ops: 3, Largest: -1}, p.ComputeStats())
}
