package state_test

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

func twoLevels() *testprog.Builder {
	return testprog.New("p", 4).
		Block("a", 100, "activation", 0, 1). // footprint 112 at align 16, 128 at align 64
		Block("b", 64, "activation", 1, 3).  // 64 / 64
		Block("w", 10, "constant", 0, 2, testprog.Reads(2), testprog.Align(32)).
		Block("o", 16, "output", 2, 3, testprog.Reads(3))
}

var fastSlow = []testprog.Level{
	{Name: "FAST", Capacity: 1024, Align: 16, Latency: 1, Bandwidth: 4},
	{Name: "SLOW", Capacity: 1 << 20, Align: 64, Latency: 10, Bandwidth: 1},
}

func TestBindFootprints(t *testing.T) {
	p := testprog.Bind(twoLevels().Program(), testprog.Profile("hw", fastSlow...))
	// a: 100 rounded up to 16 = 112; to 64 = 128.
	assert.Equal(t, int64(112), p.Foot(0, 0))
	assert.Equal(t, int64(128), p.Foot(0, 1))
	// w has align 32: effective max(32,16) = 32 in FAST (10 -> 32), max(32,64) = 64 in SLOW.
	assert.Equal(t, int64(32), p.Align(2, 0))
	assert.Equal(t, int64(32), p.Foot(2, 0))
	assert.Equal(t, int64(64), p.Align(2, 1))
	assert.Equal(t, int64(64), p.Foot(2, 1))
	assert.Equal(t, state.NoPin, p.Pin(0))
}

func TestBindErrors(t *testing.T) {
	prof := testprog.Profile("hw", fastSlow...)
	// A malformed pair of documents is an input error; valid documents
	// that cannot be planned together (a block fits no level it may use)
	// are a *state.CapacityError, as when the live blocks overflow.
	cases := []struct {
		name     string
		prog     *testprog.Builder
		want     string
		tooLarge bool
	}{
		{"pin to a missing level", testprog.New("p", 1).Block("x", 8, "activation", 0, 0, testprog.Pin("L9")),
			`test: block "x": pinned to level "L9", which hardware profile "hw" does not have (levels: FAST, SLOW)`, false},
		{"larger than every level", testprog.New("p", 1).Block("x", 2<<20, "activation", 0, 0),
			`test: block "x": size 2097152 B is larger than every level of hardware profile "hw" (FAST 1024 B, SLOW 1048576 B)`, true},
		{"larger than its pinned level", testprog.New("p", 1).Block("x", 2000, "activation", 0, 0, testprog.Pin("FAST")),
			`test: block "x": needs 2000 B (size 2000 aligned to 16) but its pinned level "FAST" holds only 1024 B`, true},
		{"overflow when aligned", testprog.New("p", 1).Block("x", 1<<63-1, "activation", 0, 0),
			`test: block "x": size 9223372036854775807 overflows when rounded up to the alignment 16 of level "FAST"`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := state.Bind(c.prog.Program(), prof, "test")
			require.Error(t, err)
			assert.Equal(t, c.want, err.Error())
			var ce *state.CapacityError
			var te *state.TooLargeError
			if c.tooLarge {
				assert.False(t, inputerr.Is(err), "valid documents: not an input error")
				require.ErrorAs(t, err, &ce)
				require.ErrorAs(t, err, &te)
				assert.Same(t, te, ce.TooLarge)
				assert.Equal(t, "x", te.Block)
				assert.Equal(t, `block "x"`, te.Item)
			} else {
				assert.True(t, inputerr.Is(err))
				assert.False(t, errors.As(err, &ce))
			}
		})
	}
}

// TestBindInvalidProgram: Bind checks the program itself, so a program
// built in code that breaks a rule (or a nil one) is an error naming the
// document, the item and the rule, never a panic.
func TestBindInvalidProgram(t *testing.T) {
	prof := testprog.Profile("hw", fastSlow...)
	ops := []workload.Op{{Name: "a"}, {Name: "b"}}
	cases := []struct {
		name string
		prog *workload.Program
		want string
	}{
		{"lifetime past the last op", &workload.Program{Name: "p", Ops: ops,
			Blocks: []workload.Block{{Name: "x", Size: 8, Kind: workload.Activation, First: 0, Last: 5}}},
			`workload "p.json": block "x": lifetime [0,5]: want 0 <= first <= last < 2 (the number of ops)`},
		{"read outside the lifetime", &workload.Program{Name: "p", Ops: ops,
			Blocks: []workload.Block{{Name: "x", Size: 8, Kind: workload.Activation, First: 0, Last: 0, Reads: []int{1}}}},
			`workload "p.json": block "x": reads [1] outside lifetime [0,0]`},
		{"duplicate block", &workload.Program{Name: "p", Ops: ops,
			Blocks: []workload.Block{{Name: "x", Size: 8, First: 0, Last: 0}, {Name: "x", Size: 8, First: 1, Last: 1}}},
			`workload "p.json": block "x": duplicate block name (also block 0)`},
		{"no ops", &workload.Program{Name: "p"}, `workload "p.json": "ops" is empty: a workload needs at least one op`},
		{"zero value", &workload.Program{}, `workload "p.json": missing required field "name"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p *state.Problem
			var err error
			require.NotPanics(t, func() { p, err = state.Bind(c.prog, prof, `workload "p.json"`) })
			assert.Nil(t, p)
			require.EqualError(t, err, c.want)
			assert.True(t, inputerr.Is(err))
		})
	}
	_, err := state.Bind(nil, prof, "nil")
	assert.Error(t, err)
	_, err = state.Bind(twoLevels().Program(), nil, "nil")
	assert.Error(t, err)
	bad := testprog.Profile("hw", fastSlow...)
	bad.Levels[1].Alignment = 0
	_, err = state.Bind(twoLevels().Program(), bad, "test")
	assert.EqualError(t, err, `hardware profile "hw": level "SLOW": alignment 0: must be > 0 bytes`)
}

// TestBindIndexes: the per-timestep and name indexes Bind builds.
func TestBindIndexes(t *testing.T) {
	prog := &workload.Program{Name: "p", Ops: []workload.Op{{Name: "a"}, {Name: "b"}, {Name: "c"}},
		Blocks: []workload.Block{
			{Name: "in", Size: 4, Kind: workload.Input, First: 0, Last: 1, Writes: []int{0}, Reads: []int{1}},
			{Name: "w", Size: 4, Kind: workload.Constant, First: 0, Last: 2, Reads: []int{0, 2}},
			{Name: "s", Size: 4, Kind: workload.Scratch, First: 1, Last: 1}, // accessed at 1 without reads/writes
			{Name: "out", Size: 4, Kind: workload.Output, First: 1, Last: 2, Writes: []int{1}, Reads: []int{2}},
		}}
	p, err := state.Bind(prog, testprog.Profile("hw", fastSlow...), "test")
	require.NoError(t, err)
	tests := []struct {
		t                        int
		created, dying, accessed []int32
	}{
		{0, []int32{0, 1}, nil, []int32{0, 1}},
		{1, []int32{2, 3}, []int32{0, 2}, []int32{0, 2, 3}},
		{2, nil, []int32{1, 3}, []int32{1, 3}},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.t), func(t *testing.T) {
			assert.Equal(t, tt.created, p.Created(tt.t), "created")
			assert.Equal(t, tt.dying, p.Dying(tt.t), "dying")
			assert.Equal(t, tt.accessed, p.Accessed(tt.t), "accessed")
		})
	}
	id, ok := p.BlockID("out")
	assert.True(t, ok)
	assert.Equal(t, 3, id)
	_, ok = p.BlockID("nope")
	assert.False(t, ok)
}

// fastFlash is FAST over a read-only FLASH: only constants may be placed
// in FLASH (FORMATS.md rule 7).
var fastFlash = []testprog.Level{
	{Name: "FAST", Capacity: 1024, Align: 16, Latency: 1, Bandwidth: 4},
	{Name: "FLASH", Capacity: 1 << 20, Align: 64, Latency: 10, Bandwidth: 1, ReadOnly: true},
}

// TestBindReadOnly: a block other than a constant may not use a read-only
// level: pinned there it is an input error; fitting only there, it is too
// large (a capacity error); and Allowed never offers the level to it.
func TestBindReadOnly(t *testing.T) {
	prof := testprog.Profile("hw", fastFlash...)
	cases := []struct {
		name string
		prog *testprog.Builder
		want string
	}{
		{"activation pinned to a read-only level", testprog.New("p", 1).Block("x", 8, "activation", 0, 0, testprog.Pin("FLASH")),
			`test: block "x": activation block pinned to level "FLASH", which is read-only: only constants may be placed there (FORMATS.md rule 7)`},
		{"activation that fits only the read-only level", testprog.New("p", 1).Block("x", 2000, "activation", 0, 0),
			`test: block "x": size 2000 B is larger than every writable level of hardware profile "hw" (FAST 1024 B); read-only FLASH holds constants only (FORMATS.md rule 7)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := state.Bind(c.prog.Program(), prof, "test")
			require.Error(t, err)
			assert.Equal(t, c.want, err.Error())
		})
	}
	_, err := state.Bind(cases[0].prog.Program(), prof, "test")
	assert.True(t, inputerr.Is(err))
	var tooLarge *state.TooLargeError
	var ce *state.CapacityError
	_, err = state.Bind(cases[1].prog.Program(), prof, "test")
	assert.ErrorAs(t, err, &tooLarge)
	assert.ErrorAs(t, err, &ce)
	assert.False(t, inputerr.Is(err))

	onlyFlash := testprog.Profile("hw", testprog.Level{Name: "FLASH", Capacity: 1 << 20, Align: 64, Latency: 10, Bandwidth: 1, ReadOnly: true})
	_, err = state.Bind(testprog.New("p", 1).Block("x", 8, "output", 0, 0).Program(), onlyFlash, "test")
	assert.EqualError(t, err, `test: block "x": an output needs a writable level, and every level of hardware profile "hw" is read-only (FLASH): only constants may be placed there (FORMATS.md rule 7)`)

	// A constant may use both levels, even pinned to FLASH; the others only FAST.
	p := testprog.Bind(testprog.New("p", 2).
		Block("w", 2000, "constant", 0, 1, testprog.Reads(1)).
		Block("v", 8, "constant", 0, 0, testprog.Pin("FLASH")).
		Block("a", 8, "activation", 0, 1, testprog.Reads(1)).
		Block("s", 8, "scratch", 1, 1).Program(), prof)
	assert.Equal(t, []bool{false, true}, []bool{p.Allowed(0, 0), p.Allowed(0, 1)}, "w: 2000 B fits FLASH only")
	assert.Equal(t, []bool{false, true}, []bool{p.Allowed(1, 0), p.Allowed(1, 1)}, "v: pinned")
	assert.Equal(t, []bool{true, false}, []bool{p.Allowed(2, 0), p.Allowed(2, 1)}, "a")
	assert.Equal(t, []bool{true, false}, []bool{p.Allowed(3, 0), p.Allowed(3, 1)}, "s")
	assert.True(t, p.Writable(0, 1))
	assert.False(t, p.Writable(2, 1))
	assert.True(t, p.Writable(2, 0))
}

// TestCheckCapacityReadOnly: the blocks other than constants must fit the
// writable levels together, however much room the read-only ones have.
func TestCheckCapacityReadOnly(t *testing.T) {
	prof := testprog.Profile("hw", fastFlash...)
	// Two activations of 600 B live together at 1: 1200 B > FAST's 1024 B,
	// though FLASH holds 1 MiB; the 4 KiB constant goes to FLASH.
	prog := testprog.New("p", 3).
		Block("w", 4096, "constant", 0, 2, testprog.Reads(2)).
		Block("x", 600, "activation", 0, 1, testprog.Reads(1)).
		Block("y", 600, "activation", 1, 2, testprog.Reads(2)).
		Program()
	err := testprog.Bind(prog, prof).CheckCapacity()
	require.Error(t, err)
	assert.Equal(t, `workload "p" cannot fit hardware profile "hw": at timestep 1 its live blocks other than constants need at least 1216 B but the writable levels hold 1024 B in total (FAST 1024 B; read-only FLASH holds constants only); largest live blocks: "x" (600 B), "y" (600 B)`, err.Error())
	var ce *state.CapacityError
	require.ErrorAs(t, err, &ce)
	assert.True(t, ce.Writable)

	// With x reusable and y created where it ends, 608 B would fit FAST.
	ok := testprog.New("p", 3).
		Block("w", 4096, "constant", 0, 2, testprog.Reads(2)).
		Block("x", 600, "activation", 0, 1, testprog.Reads(1), testprog.Reusable()).
		Block("y", 600, "activation", 1, 2, testprog.Reads(2)).
		Program()
	assert.NoError(t, testprog.Bind(ok, prof).CheckCapacity())
	// The same program where FLASH is writable fits the levels together.
	assert.NoError(t, testprog.Bind(prog, testprog.Profile("hw", fastFlash[0], testprog.Level{Name: "FLASH", Capacity: 1 << 20, Align: 64, Latency: 10, Bandwidth: 1})).CheckCapacity())
}

func TestCheckCapacity(t *testing.T) {
	prof := testprog.Profile("hw",
		testprog.Level{Name: "A", Capacity: 256, Align: 16, Latency: 1, Bandwidth: 1},
		testprog.Level{Name: "B", Capacity: 256, Align: 16, Latency: 1, Bandwidth: 1})
	// 3 blocks of 200 B live together at t=1 need 600 B > 512 B.
	prog := testprog.New("p", 3).
		Block("x", 200, "activation", 0, 1).
		Block("y", 200, "activation", 1, 2).
		Block("z", 200, "activation", 1, 2).
		Program()
	err := testprog.Bind(prog, prof).CheckCapacity()
	require.Error(t, err)
	assert.Equal(t, `workload "p" cannot fit hardware profile "hw": at timestep 1 its live blocks need at least 624 B but the levels hold 512 B in total (A 256 B + B 256 B); largest live blocks: "x" (200 B), "y" (200 B), "z" (200 B)`, err.Error())

	// In-place reuse can save up to min(ending reusable, created): with x
	// reusable and only y created at 1, 416 B would fit 512 B.
	ok := testprog.New("p", 3).
		Block("x", 200, "activation", 0, 1, testprog.Reusable()).
		Block("y", 200, "activation", 1, 2).
		Program()
	assert.NoError(t, testprog.Bind(ok, prof).CheckCapacity())

	// Pinned blocks overflow their level: 2 x 200 B pinned to A (256 B).
	pinned := testprog.New("p", 2).
		Block("x", 200, "activation", 0, 1, testprog.Pin("A")).
		Block("y", 200, "activation", 1, 1, testprog.Pin("A")).
		Program()
	err = testprog.Bind(pinned, prof).CheckCapacity()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `at timestep 1 its live blocks pinned to A need at least 416 B but level "A" holds 256 B`)
}

func TestOccupancyPlaceRelease(t *testing.T) {
	prog := testprog.New("p", 1).
		Block("a", 100, "activation", 0, 0).
		Block("b", 100, "activation", 0, 0).
		Block("c", 100, "activation", 0, 0).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", testprog.Level{Name: "L", Capacity: 1000, Align: 100, Latency: 1, Bandwidth: 1}))
	o := state.NewOccupancy(p)
	o.Place(0, 0, 100) // [100,200)
	o.Place(1, 0, 300) // [300,400)
	require.NoError(t, o.Check())
	assert.Equal(t, []state.Gap{{0, 100}, {200, 300}, {400, 1000}}, gaps(o, 0), "smallest first, then lowest address")
	// Freeing a merges [0,100) + [100,200) + [200,300) into one gap.
	assert.Equal(t, 1, o.Release(0, 0, 100))
	require.NoError(t, o.Check())
	assert.Equal(t, []state.Gap{{0, 300}, {400, 1000}}, gaps(o, 0))
	assert.Equal(t, int64(600), o.Largest(0))
	s, ok := o.SpanEndingAt(0, 400)
	assert.True(t, ok)
	assert.Equal(t, int32(1), s.Block)
	assert.Panics(t, func() { o.Place(2, 0, 350) }, "overlap is a broken invariant")
}

func TestOccupancyCloneIsIndependent(t *testing.T) {
	prog := testprog.New("p", 1).Block("a", 64, "activation", 0, 0).Block("b", 64, "activation", 0, 0).Program()
	p := testprog.Bind(prog, testprog.Profile("hw", testprog.Level{Name: "L", Capacity: 1024, Align: 64, Latency: 1, Bandwidth: 1}))
	o := state.NewOccupancy(p)
	o.Place(0, 0, 0)
	c := o.Clone()
	c.Place(1, 0, 512)
	c.Release(0, 0, 0)
	require.NoError(t, o.Check())
	require.NoError(t, c.Check())
	assert.Equal(t, []state.Gap{{64, 1024}}, gaps(o, 0))
	assert.Equal(t, []state.Gap{{576, 1024}, {0, 512}}, gaps(c, 0))
}

// TestOccupancyRandom places and releases random blocks and checks the
// invariants after every step, against a byte map of the level.
func TestOccupancyRandom(t *testing.T) {
	const n, capacity = 60, 4096
	b := testprog.New("p", 1)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		b.Block(string(rune('A'+i%26))+string(rune('a'+i/26)), int64(1+rng.IntN(300)), "activation", 0, 0)
	}
	p := testprog.Bind(b.Program(), testprog.Profile("hw", testprog.Level{Name: "L", Capacity: capacity, Align: 8, Latency: 1, Bandwidth: 1}))
	o := state.NewOccupancy(p)
	owner := make([]int, capacity)
	for i := range owner {
		owner[i] = -1
	}
	at := make([]int64, n)
	for i := range at {
		at[i] = -1
	}
	for step := 0; step < 5000; step++ {
		blk := rng.IntN(n)
		if at[blk] >= 0 {
			o.Release(blk, 0, at[blk])
			for x := at[blk]; x < at[blk]+p.Foot(blk, 0); x++ {
				owner[x] = -1
			}
			at[blk] = -1
		} else {
			off := int64(rng.IntN(capacity/8)) * 8
			end := off + p.Foot(blk, 0)
			free := end <= capacity
			for x := off; free && x < end; x++ {
				free = owner[x] < 0
			}
			require.Equal(t, free, o.Free(0, off, end), "step %d: Free(%d,%d)", step, off, end)
			if !free {
				continue
			}
			o.Place(blk, 0, off)
			for x := off; x < end; x++ {
				owner[x] = blk
			}
			at[blk] = off
		}
		require.NoError(t, o.Check(), "step %d", step)
		var busy int64
		for _, w := range owner {
			if w >= 0 {
				busy++
			}
		}
		require.Equal(t, busy, o.Busy(0))
	}
}

func TestOccupancyAtWithReuse(t *testing.T) {
	// x (reusable, 128 B) ends at 1; y (64 B) created at 1 starts at x's
	// offset: y holds [0,64), x keeps its tail [64,128) until it ends.
	prog := testprog.New("p", 3).
		Block("x", 128, "activation", 0, 1, testprog.Reusable()).
		Block("y", 64, "activation", 1, 2).
		Block("z", 64, "activation", 1, 2).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", testprog.Level{Name: "L", Capacity: 512, Align: 64, Latency: 1, Bandwidth: 1}))
	lay := state.NewLayout(3)
	lay.SetFirst(0, state.Seg{From: 0, Level: 0, Offset: 0})
	lay.SetFirst(1, state.Seg{From: 1, Level: 0, Offset: 0})
	lay.SetFirst(2, state.Seg{From: 1, Level: 0, Offset: 128})
	o, err := state.OccupancyAt(p, lay, 1)
	require.NoError(t, err)
	require.NoError(t, o.Check())
	var spans []state.Span
	o.Spans(0, func(s state.Span) bool { spans = append(spans, s); return true })
	assert.Equal(t, []state.Span{{0, 64, 1}, {64, 128, 0}, {128, 192, 2}}, spans)

	// z over x's tail is an overlap, not reuse.
	lay.SetFirst(2, state.Seg{From: 1, Level: 0, Offset: 64})
	_, err = state.OccupancyAt(p, lay, 1)
	assert.EqualError(t, err, `timestep 1: block "z" at [64,128) of level "L" overlaps block "x"`)
}

func TestLayoutMoveAt(t *testing.T) {
	lay := state.NewLayout(1)
	lay.SetFirst(0, state.Seg{From: 2, Level: 0, Offset: 0})
	lay.MoveAt(0, 4, state.Pos{Level: 1, Offset: 64})
	lay.MoveAt(0, 6, state.Pos{Level: 0, Offset: 32})
	assert.Equal(t, []state.Seg{{From: 2}, {From: 4, Level: 1, Offset: 64}, {From: 6, Offset: 32}}, lay.Segs[0])
	assert.Equal(t, state.Seg{From: 4, Level: 1, Offset: 64}, lay.At(0, 5))
	// Moving again at 4 replaces the segments from 4 on.
	lay.MoveAt(0, 4, state.Pos{Level: 0, Offset: 16})
	assert.Equal(t, []state.Seg{{From: 2}, {From: 4, Offset: 16}}, lay.Segs[0])
	// Moving back to where it was is no move.
	lay.MoveAt(0, 4, state.Pos{Level: 0, Offset: 0})
	assert.Equal(t, []state.Seg{{From: 2}}, lay.Segs[0])
	// At the first timestep, a move changes the first placement.
	lay.MoveAt(0, 2, state.Pos{Level: 1, Offset: 0})
	assert.Equal(t, []state.Seg{{From: 2, Level: 1}}, lay.Segs[0])
	assert.Equal(t, 0, lay.Transfers())
}

func gaps(o *state.Occupancy, l int) []state.Gap {
	var out []state.Gap
	o.Gaps(l, func(g state.Gap) bool { out = append(out, g); return true })
	return out
}

// TestOccupancyModesAgainstModel drives an occupancy through thousands of
// random places and releases that take a level across both of its
// representations (a slice below a few hundred spans, B-trees above) and
// back, with clones taken along the way and changed on both sides, and
// checks every query against a plain model: the spans in address order,
// the gaps smallest first, best-fit gaps of random sizes, the largest
// gap, the busy bytes, the span at and ending at random offsets, Free.
func TestOccupancyModesAgainstModel(t *testing.T) {
	const n, capacity = 900, 1 << 20
	b := testprog.New("p", 1)
	rng := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < n; i++ {
		b.Block("b"+strconv.Itoa(i), int64(8+rng.IntN(2000)), "activation", 0, 0)
	}
	p := testprog.Bind(b.Program(), testprog.Profile("hw", testprog.Level{Name: "L", Capacity: capacity, Align: 8, Latency: 1, Bandwidth: 1}))

	type sim struct {
		o  *state.Occupancy
		at []int64 // offset per block, -1 if not placed
	}
	newSim := func() *sim {
		s := &sim{o: state.NewOccupancy(p), at: make([]int64, n)}
		for i := range s.at {
			s.at[i] = -1
		}
		return s
	}
	modelSpans := func(s *sim) []state.Span {
		var out []state.Span
		for blk, off := range s.at {
			if off >= 0 {
				out = append(out, state.Span{Off: off, End: off + p.Foot(blk, 0), Block: int32(blk)})
			}
		}
		slices.SortFunc(out, func(x, y state.Span) int { return cmp.Compare(x.Off, y.Off) })
		return out
	}
	modelGaps := func(spans []state.Span) []state.Gap {
		var out []state.Gap
		pos := int64(0)
		for _, s := range spans {
			if s.Off > pos {
				out = append(out, state.Gap{Off: pos, End: s.Off})
			}
			pos = s.End
		}
		if pos < capacity {
			out = append(out, state.Gap{Off: pos, End: capacity})
		}
		slices.SortFunc(out, func(x, y state.Gap) int {
			if c := cmp.Compare(x.Size(), y.Size()); c != 0 {
				return c
			}
			return cmp.Compare(x.Off, y.Off)
		})
		return out
	}
	verify := func(s *sim, step int) {
		t.Helper()
		require.NoError(t, s.o.Check(), "step %d", step)
		ms := modelSpans(s)
		require.Equal(t, ms, spans(s.o, 0), "step %d", step)
		mg := modelGaps(ms)
		require.Equal(t, mg, gaps(s.o, 0), "step %d", step)
		var busy, largest int64
		for _, x := range ms {
			busy += x.End - x.Off
		}
		for _, g := range mg {
			largest = max(largest, g.Size())
		}
		require.Equal(t, busy, s.o.Busy(0))
		require.Equal(t, largest, s.o.Largest(0))
		// Best fit for random sizes, and for sizes equal to a gap's (a gap
		// of exactly the size asked for holds it), one byte either side,
		// the smallest gap's and the largest's.
		sizes := []int64{int64(1 + rng.IntN(4000)), int64(1 + rng.IntN(4000)), int64(1 + rng.IntN(4000))}
		if len(mg) > 0 {
			g := mg[rng.IntN(len(mg))].Size()
			sizes = append(sizes, g, max(g-1, 1), g+1, mg[0].Size(), largest)
		}
		for _, size := range sizes {
			var want, got []state.Gap
			for _, g := range mg {
				if g.Size() >= size && len(want) < 3 {
					want = append(want, g)
				}
			}
			s.o.FitGaps(0, size, func(g state.Gap) bool { got = append(got, g); return len(got) < 3 })
			require.Equal(t, want, got, "step %d: FitGaps(%d)", step, size)
		}
		if len(ms) > 0 {
			x := ms[rng.IntN(len(ms))]
			sp, ok := s.o.SpanAt(0, x.Off)
			require.True(t, ok)
			require.Equal(t, x, sp)
			sp, ok = s.o.SpanEndingAt(0, x.End)
			require.True(t, ok)
			require.Equal(t, x, sp)
			_, ok = s.o.SpanAt(0, x.Off+1)
			require.False(t, ok)
		}
	}
	// Fill up past the B-tree threshold, then drain below the slice one,
	// twice; a few clones come and go (recycled when they go).
	a := newSim()
	sims := []*sim{a}
	target := func(step int) float64 { // the share of blocks placed
		if (step/2500)%2 == 0 {
			return 0.6
		}
		return 0.05
	}
	for step := 0; step < 10000; step++ {
		s := sims[rng.IntN(len(sims))]
		placed := 0
		for _, off := range s.at {
			if off >= 0 {
				placed++
			}
		}
		blk := rng.IntN(n)
		switch {
		case s.at[blk] >= 0 && (float64(placed) > target(step)*n || rng.IntN(4) == 0):
			if rng.IntN(2) == 0 {
				require.Equal(t, 1, s.o.Release(blk, 0, s.at[blk]))
			} else {
				s.o.Drop(blk, 0, s.at[blk]) // applied when next read
			}
			s.at[blk] = -1
		case s.at[blk] < 0:
			f := p.Foot(blk, 0)
			var off int64 = -1
			if rng.IntN(2) == 0 {
				s.o.FitGaps(0, f, func(g state.Gap) bool { off = g.Off; return false })
			} else if o := int64(rng.IntN(capacity/8)) * 8; o+f <= capacity && s.o.Free(0, o, o+f) {
				off = o
			}
			if off >= 0 {
				s.o.Place(blk, 0, off)
				s.at[blk] = off
			}
		}
		if step%50 == 0 {
			verify(s, step)
		}
		if step%300 == 0 && len(sims) < 4 {
			sims = append(sims, &sim{o: s.o.Clone(), at: slices.Clone(s.at)})
		}
		if step%700 == 0 && len(sims) > 1 {
			// A state dropped for good: what it owns is recycled, and
			// the others, clones of it or its sources, go on unharmed.
			k := rng.IntN(len(sims))
			sims[k].o.Recycle()
			sims = slices.Delete(sims, k, k+1)
		}
	}
	for _, s := range sims {
		verify(s, -1)
	}
}

func spans(o *state.Occupancy, l int) []state.Span {
	var out []state.Span
	o.Spans(l, func(s state.Span) bool { out = append(out, s); return true })
	return out
}

// TestMemo: a value is computed once per key, however many goroutines ask
// for it at once, and each key has its own.
func TestMemo(t *testing.T) {
	p := testprog.Bind(testprog.New("m", 1).Block("a", 8, "activation", 0, 0).Program(),
		testprog.Profile("hw", testprog.Level{Name: "MEM", Capacity: 64, Align: 1, Latency: 1, Bandwidth: 1}))
	type key struct{ n int }
	var calls atomic.Int32
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() {
			got[i] = p.Memo(key{1}, func() any { calls.Add(1); return []int{1} })
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), calls.Load(), "computed once")
	for _, v := range got {
		assert.Same(t, &got[0].([]int)[0], &v.([]int)[0], "the same value")
	}
	assert.Equal(t, []int{2}, p.Memo(key{2}, func() any { return []int{2} }), "another key")
	assert.Equal(t, int32(1), calls.Load())
}

// AlignDown rounds toward minus infinity, so that a block packed down from
// a level's top that reaches below offset 0 gets a negative offset, not 0.
func TestAlignDown(t *testing.T) {
	for _, c := range []struct{ v, a, want int64 }{
		{0, 128, 0}, {127, 128, 0}, {128, 128, 128}, {300, 64, 256},
		{-1, 128, -128}, {-48, 128, -128}, {-128, 128, -128}, {-129, 128, -256},
	} {
		assert.Equal(t, c.want, state.AlignDown(c.v, c.a), "AlignDown(%d, %d)", c.v, c.a)
	}
}
