package state_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/state"
)

func seg(from, level int32, off int64) state.Seg {
	return state.Seg{From: from, Level: level, Offset: off}
}

// baseLayout: block 0 placed once, block 1 with a transfer at 3, block 2
// placed once at timestep 2.
func baseLayout() *state.Layout {
	return &state.Layout{Segs: [][]state.Seg{
		{seg(0, 0, 0)},
		{seg(1, 0, 64), seg(3, 1, 128)},
		{seg(2, 1, 0)},
		{seg(0, 0, 256)},
		{seg(0, 1, 512)},
		{seg(0, 0, 512)},
	}}
}

func TestOverlayReadsTheBase(t *testing.T) {
	base := baseLayout()
	ov := state.NewOverlay(base)
	assert.Same(t, base, ov.Base())
	for b := range base.Segs {
		assert.Equal(t, base.Segs[b], ov.BlockSegs(b))
	}
	assert.Equal(t, 0, ov.Len())
	assert.Empty(t, ov.Patched())
}

func TestOverlaySet(t *testing.T) {
	base := baseLayout()
	want := base.Clone()
	ov := state.NewOverlay(base)
	ov.Set(1, []state.Seg{seg(1, 1, 0)})
	assert.Equal(t, []state.Seg{seg(1, 1, 0)}, ov.BlockSegs(1))
	assert.Equal(t, 1, ov.Len())
	assert.True(t, want.Equal(base), "the base is never written")
	// Setting what the base has (an equal copy) removes the patch.
	ov.Set(1, slices.Clone(base.Segs[1]))
	assert.Equal(t, 0, ov.Len())
	assert.Equal(t, base.Segs[1], ov.BlockSegs(1))
}

func TestOverlaySetFirst(t *testing.T) {
	base := baseLayout()
	want := base.Clone()
	ov := state.NewOverlay(base)
	ov.SetFirst(0, seg(0, 1, 32))
	assert.Equal(t, []state.Seg{seg(0, 1, 32)}, ov.BlockSegs(0))
	assert.Equal(t, []int{0}, ov.Patched())
	// Back to the base's only segment: no patch.
	ov.SetFirst(0, seg(0, 0, 0))
	assert.Equal(t, 0, ov.Len())
	// Block 1 has two segments in the base: its first segment alone is a
	// change.
	ov.SetFirst(1, seg(1, 0, 64))
	assert.Equal(t, []state.Seg{seg(1, 0, 64)}, ov.BlockSegs(1))
	assert.Equal(t, []int{1}, ov.Patched())
	assert.True(t, want.Equal(base), "the base is never written")
}

func TestOverlayMoveAt(t *testing.T) {
	base := baseLayout()
	want := base.Clone()
	ov := state.NewOverlay(base)
	// A transfer of block 0 at 4 into level 1 at 64.
	ov.MoveAt(0, 4, state.Pos{Level: 1, Offset: 64})
	assert.Equal(t, []state.Seg{seg(0, 0, 0), seg(4, 1, 64)}, ov.BlockSegs(0))
	// Block 1 moves at 3 again: the segment from 3 is replaced.
	ov.MoveAt(1, 3, state.Pos{Level: 0, Offset: 192})
	assert.Equal(t, []state.Seg{seg(1, 0, 64), seg(3, 0, 192)}, ov.BlockSegs(1))
	// At the first timestep a move changes the first placement.
	ov.MoveAt(2, 2, state.Pos{Level: 0, Offset: 8})
	assert.Equal(t, []state.Seg{seg(2, 0, 8)}, ov.BlockSegs(2))
	assert.True(t, want.Equal(base), "the base is never written, not even through a shared array")
	assert.Equal(t, []int{0, 1, 2}, ov.Patched())

	// Moving block 1 back to where the base has it at 3: the base's
	// segments again, so the patch goes.
	ov.MoveAt(1, 3, state.Pos{Level: 1, Offset: 128})
	assert.Equal(t, base.Segs[1], ov.BlockSegs(1))
	assert.Equal(t, []int{0, 2}, ov.Patched())
	// A move back to where block 0 was before 4 is no move: the base.
	ov.MoveAt(0, 4, state.Pos{Level: 0, Offset: 0})
	assert.Equal(t, []int{2}, ov.Patched())
	// Moves build on the patch: a second transfer of block 2 at 5.
	ov.MoveAt(2, 5, state.Pos{Level: 1, Offset: 0})
	assert.Equal(t, []state.Seg{seg(2, 0, 8), seg(5, 1, 0)}, ov.BlockSegs(2))
}

func TestOverlayCloneIsIndependent(t *testing.T) {
	base := baseLayout()
	ov := state.NewOverlay(base)
	ov.MoveAt(0, 4, state.Pos{Level: 1, Offset: 64})
	c := ov.Clone()
	assert.Same(t, base, c.Base(), "the base is shared")
	assert.Equal(t, ov.BlockSegs(0), c.BlockSegs(0))

	// Changes to the clone do not reach the original, and back.
	c.MoveAt(0, 5, state.Pos{Level: 0, Offset: 32})
	c.SetFirst(3, seg(0, 1, 0))
	ov.MoveAt(4, 2, state.Pos{Level: 0, Offset: 640})
	assert.Equal(t, []state.Seg{seg(0, 0, 0), seg(4, 1, 64)}, ov.BlockSegs(0))
	assert.Equal(t, []state.Seg{seg(0, 0, 0), seg(4, 1, 64), seg(5, 0, 32)}, c.BlockSegs(0))
	assert.Equal(t, base.Segs[3], ov.BlockSegs(3))
	assert.Equal(t, base.Segs[4], c.BlockSegs(4))
	assert.Equal(t, []int{0, 4}, ov.Patched())
	assert.Equal(t, []int{0, 3}, c.Patched())

	// Moving the clone's block 0 at 4 again rewrites from 4 on; the
	// original's segments (which the clone shared) stay.
	c.MoveAt(0, 4, state.Pos{Level: 1, Offset: 96})
	assert.Equal(t, []state.Seg{seg(0, 0, 0), seg(4, 1, 96)}, c.BlockSegs(0))
	assert.Equal(t, []state.Seg{seg(0, 0, 0), seg(4, 1, 64)}, ov.BlockSegs(0))
}

// TestOverlayFork: a fork reads through the overlay it came from, keeps
// its own changes (including a change back to the base, which hides the
// other's), and flattens, clones and applies to what it reads as.
func TestOverlayFork(t *testing.T) {
	base := baseLayout()
	want := base.Clone()
	ov := state.NewOverlay(base)
	ov.SetFirst(0, seg(0, 1, 32))
	ov.SetFirst(3, seg(0, 1, 64))
	f := ov.Fork()
	assert.Equal(t, ov.BlockSegs(0), f.BlockSegs(0))
	assert.Equal(t, 2, f.Len())
	f.SetFirst(0, seg(0, 0, 0)) // the base's: hides ov's change
	f.SetFirst(2, seg(2, 0, 8))
	f.SetFirst(3, seg(0, 1, 64)) // what ov has: nothing to record
	assert.Equal(t, base.Segs[0], f.BlockSegs(0))
	assert.Equal(t, []state.Seg{seg(2, 0, 8)}, f.BlockSegs(2))
	assert.Equal(t, []int{2, 3}, f.Patched())
	assert.Equal(t, 2, f.Len())
	// ov is untouched.
	assert.Equal(t, []state.Seg{seg(0, 1, 32)}, ov.BlockSegs(0))
	assert.Equal(t, []int{0, 3}, ov.Patched())
	// A fork of a fork and a clone of a fork are flat copies.
	for _, c := range []*state.Overlay{f.Fork(), f.Clone()} {
		for b := range base.Segs {
			assert.Equal(t, f.BlockSegs(b), c.BlockSegs(b), "block %d", b)
		}
		c.SetFirst(5, seg(0, 1, 0))
		assert.Equal(t, base.Segs[5], f.BlockSegs(5))
	}
	// Flattened, f no longer reads ov: ov may change.
	f.Flatten()
	ov.SetFirst(2, seg(2, 1, 256))
	ov.SetFirst(0, seg(0, 1, 96))
	assert.Equal(t, []state.Seg{seg(2, 0, 8)}, f.BlockSegs(2))
	assert.Equal(t, base.Segs[0], f.BlockSegs(0))
	assert.Equal(t, []int{2, 3}, f.Patched())
	assert.True(t, want.Equal(base), "the base is never written")
	// Applying a fork writes what it reads as.
	g := ov.Fork()
	g.SetFirst(4, seg(0, 0, 1024))
	g.Apply()
	assert.Equal(t, []state.Seg{seg(0, 1, 96)}, base.Segs[0])
	assert.Equal(t, []state.Seg{seg(2, 1, 256)}, base.Segs[2])
	assert.Equal(t, []state.Seg{seg(0, 0, 1024)}, base.Segs[4])
	assert.Equal(t, 0, g.Len())
}

func TestOverlayApply(t *testing.T) {
	base := baseLayout()
	ov := state.NewOverlay(base)
	ov.MoveAt(0, 4, state.Pos{Level: 1, Offset: 64})
	ov.SetFirst(2, seg(2, 0, 8))
	view := make([][]state.Seg, len(base.Segs))
	for b := range view {
		view[b] = slices.Clone(ov.BlockSegs(b))
	}
	ov.Apply()
	assert.Equal(t, 0, ov.Len(), "the patch is empty")
	assert.Empty(t, ov.Patched())
	for b := range view {
		assert.Equal(t, view[b], base.Segs[b], "the base reads as the overlay did: block %d", b)
		assert.Equal(t, view[b], ov.BlockSegs(b), "and so does the overlay: block %d", b)
	}
	// The overlay goes on working on the new base.
	ov.SetFirst(2, seg(2, 0, 8))
	assert.Equal(t, 0, ov.Len(), "what the base has now")
}

func TestOverlayPatchedSorted(t *testing.T) {
	ov := state.NewOverlay(baseLayout())
	for _, b := range []int{5, 1, 3, 0, 4} {
		ov.SetFirst(b, seg(7, 1, int64(1000+b)))
	}
	assert.Equal(t, []int{0, 1, 3, 4, 5}, ov.Patched())
	assert.Equal(t, 5, ov.Len())
}

// TestOverlayAsView runs the same changes through a Layout and an Overlay
// of a copy of it: both Views must read alike.
func TestOverlayAsView(t *testing.T) {
	lay := baseLayout()
	ov := state.NewOverlay(baseLayout())
	for _, v := range []state.View{lay, ov} {
		v.MoveAt(0, 4, state.Pos{Level: 1, Offset: 64})
		v.MoveAt(1, 3, state.Pos{Level: 0, Offset: 64}) // back to before 3: no move
		v.SetFirst(2, seg(2, 1, 8))
		v.MoveAt(3, 2, state.Pos{Level: 1, Offset: 256})
		v.MoveAt(3, 6, state.Pos{Level: 0, Offset: 256})
	}
	for b := range lay.Segs {
		assert.Equal(t, lay.BlockSegs(b), ov.BlockSegs(b), "block %d", b)
	}
	assert.Equal(t, []state.Seg{seg(1, 0, 64)}, lay.Segs[1])
	assert.Equal(t, []state.Seg{seg(0, 0, 256), seg(2, 1, 256), seg(6, 0, 256)}, lay.Segs[3])
}

func TestSegAt(t *testing.T) {
	segs := []state.Seg{seg(0, 0, 0), seg(3, 1, 64), seg(6, 0, 128)}
	cases := []struct {
		t    int
		want state.Seg
	}{
		{0, segs[0]}, {2, segs[0]},
		{3, segs[1]}, {5, segs[1]},
		{6, segs[2]}, {9, segs[2]}, // past the last segment's start: the last
	}
	for _, c := range cases {
		assert.Equal(t, c.want, state.SegAt(segs, c.t), "t=%d", c.t)
	}
	// One segment covers everything.
	assert.Equal(t, segs[1], state.SegAt(segs[1:2], 7))
	// Agrees with Layout.At.
	lay := &state.Layout{Segs: [][]state.Seg{segs}}
	for ts := 0; ts < 10; ts++ {
		assert.Equal(t, lay.At(0, ts), state.SegAt(segs, ts))
	}
}

// intervalsOf builds a set from ranges added in order.
func intervalsOf(rs ...state.Gap) *state.Intervals {
	s := &state.Intervals{}
	for _, r := range rs {
		s.Add(r.Off, r.End)
	}
	return s
}

// ranges recovers the set's ranges by probing FirstFree at every byte
// below limit (it has no accessor: the test reads it as the search does).
func ranges(s *state.Intervals, limit int64) []state.Gap {
	var out []state.Gap
	inRange := false
	for x := int64(0); x < limit; x++ {
		off, _ := s.FirstFree(x, 1, 1, limit+1)
		busy := off != x
		switch {
		case busy && !inRange:
			out = append(out, state.Gap{Off: x, End: x + 1})
			inRange = true
		case busy:
			out[len(out)-1].End = x + 1
		default:
			inRange = false
		}
	}
	return out
}

func TestIntervalsAdd(t *testing.T) {
	g := func(off, end int64) state.Gap { return state.Gap{Off: off, End: end} }
	cases := []struct {
		name string
		add  []state.Gap
		want []state.Gap
	}{
		{"empty", nil, nil},
		{"empty range ignored", []state.Gap{g(5, 5), g(9, 3)}, nil},
		{"disjoint, any order", []state.Gap{g(30, 40), g(0, 10)}, []state.Gap{g(0, 10), g(30, 40)}},
		{"touching on the right merges", []state.Gap{g(0, 10), g(10, 20)}, []state.Gap{g(0, 20)}},
		{"touching on the left merges", []state.Gap{g(10, 20), g(0, 10)}, []state.Gap{g(0, 20)}},
		{"overlapping merges", []state.Gap{g(0, 10), g(5, 15)}, []state.Gap{g(0, 15)}},
		{"inside changes nothing", []state.Gap{g(0, 20), g(5, 15)}, []state.Gap{g(0, 20)}},
		{"covering swallows", []state.Gap{g(5, 15), g(0, 20)}, []state.Gap{g(0, 20)}},
		{"bridging three", []state.Gap{g(0, 10), g(20, 30), g(40, 50), g(5, 45)}, []state.Gap{g(0, 50)}},
		{"bridging by touching both", []state.Gap{g(0, 10), g(20, 30), g(10, 20)}, []state.Gap{g(0, 30)}},
		{"between, apart", []state.Gap{g(0, 10), g(40, 50), g(20, 30)}, []state.Gap{g(0, 10), g(20, 30), g(40, 50)}},
		{"one byte gap stays", []state.Gap{g(0, 10), g(11, 20)}, []state.Gap{g(0, 10), g(11, 20)}},
		{"merge the last two only", []state.Gap{g(0, 5), g(10, 20), g(30, 40), g(15, 30)}, []state.Gap{g(0, 5), g(10, 40)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := intervalsOf(c.add...)
			assert.Equal(t, c.want, ranges(s, 60))
			assert.Equal(t, len(c.want), s.Len())
		})
	}
}

func TestIntervalsFirstFree(t *testing.T) {
	s := intervalsOf(state.Gap{Off: 10, End: 20}, state.Gap{Off: 30, End: 40})
	cases := []struct {
		name                     string
		from, size, align, limit int64
		want                     int64
		ok                       bool
	}{
		{"fits before the first range", 0, 10, 1, 100, 0, true},
		{"one byte too many: after the last", 0, 11, 1, 100, 40, true},
		{"between the ranges", 10, 10, 1, 100, 20, true},
		{"from inside a range", 12, 5, 1, 100, 20, true},
		{"from inside a range, too big for the hole", 12, 11, 1, 100, 40, true},
		{"from a free byte", 21, 9, 1, 100, 21, true},
		{"aligned up from 1 to 4: [4,14) hits [10,20); 20", 1, 10, 4, 100, 20, true},
		{"align 8: [8,18) hits; 24+10 > 30; 40", 5, 10, 8, 100, 40, true},
		{"align 8 but the hole [20,30) holds 8 at 24", 5, 6, 8, 100, 24, true},
		{"ends exactly at the limit", 0, 11, 1, 51, 40, true},
		{"past the limit", 0, 11, 1, 50, 40, false},
		{"past the limit with alignment", 5, 10, 8, 45, 40, false},
		{"from past every range", 45, 10, 1, 100, 45, true},
		{"from past every range, aligned", 45, 10, 16, 100, 48, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := s.FirstFree(c.from, c.size, c.align, c.limit)
			assert.Equal(t, c.ok, ok)
			assert.Equal(t, c.want, got)
		})
	}
	// An empty set: the aligned start, if it fits.
	empty := &state.Intervals{}
	got, ok := empty.FirstFree(3, 10, 4, 100)
	assert.True(t, ok)
	assert.Equal(t, int64(4), got)
	_, ok = empty.FirstFree(3, 10, 4, 13)
	assert.False(t, ok, "4+10 = 14 > 13")
}

func TestIntervalsFirstFreeAvoiding(t *testing.T) {
	s := intervalsOf(state.Gap{Off: 10, End: 20})
	taken := []state.Gap{{Off: 0, End: 4}, {Off: 20, End: 24}}
	cases := []struct {
		name                     string
		from, size, align, limit int64
		want                     int64
		ok                       bool
	}{
		// FirstFree gives 0, which [0,4) takes: from 4; [4,10) is free of both.
		{"between taken and the set", 0, 6, 1, 100, 4, true},
		// 0 clashes with [0,4): from 4; 4+8 > 10: 20, which [20,24) takes:
		// from 24.
		{"past both", 0, 8, 1, 100, 24, true},
		{"past both, over the limit", 0, 8, 1, 30, 24, false},
		// Aligned to 16: 0 clashes; from 4 -> 16, inside [10,20): 32.
		{"aligned", 0, 8, 16, 100, 32, true},
		{"nothing taken in the way", 30, 8, 1, 100, 30, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := s.FirstFreeAvoiding(c.from, c.size, c.align, c.limit, taken)
			assert.Equal(t, c.ok, ok)
			assert.Equal(t, c.want, got)
		})
	}
	// Taken ranges out of order, overlapping each other.
	got, ok := s.FirstFreeAvoiding(0, 5, 1, 100, []state.Gap{{Off: 22, End: 30}, {Off: 0, End: 3}, {Off: 2, End: 6}})
	require.True(t, ok)
	// 0 hits [0,3) and [2,6): from 6; 6+5 > 10: 20, hits [22,30): from 30.
	assert.Equal(t, int64(30), got)
	// No taken ranges: FirstFree.
	got, ok = s.FirstFreeAvoiding(0, 10, 1, 100, nil)
	assert.True(t, ok)
	assert.Equal(t, int64(0), got)
}

func TestIntervalsClone(t *testing.T) {
	s := intervalsOf(state.Gap{Off: 10, End: 20})
	c := s.Clone()
	c.Add(0, 10)
	c.Add(30, 40)
	assert.Equal(t, []state.Gap{{Off: 10, End: 20}}, ranges(s, 50))
	assert.Equal(t, []state.Gap{{Off: 0, End: 20}, {Off: 30, End: 40}}, ranges(c, 50))
	s.Add(20, 25)
	assert.Equal(t, []state.Gap{{Off: 0, End: 20}, {Off: 30, End: 40}}, ranges(c, 50))
	assert.Equal(t, 1, s.Len())
	assert.Equal(t, 2, c.Len())
}

// TestOverlayModel: random changes to an overlay and forks of it, checked
// after each against whole layouts changed the same way. Patches grow
// past the small array into a map and shrink again.
func TestOverlayModel(t *testing.T) {
	const blocks = 64
	rng := rand.New(rand.NewPCG(1, 2))
	base := &state.Layout{Segs: make([][]state.Seg, blocks)}
	for b := range base.Segs {
		base.Segs[b] = []state.Seg{seg(0, int32(b%2), int64(b)*64)}
	}
	orig := base.Clone()
	pick := func() state.Seg { return seg(0, int32(rng.IntN(2)), int64(rng.IntN(blocks))*64) }
	check := func(ov *state.Overlay, want *state.Layout, what string) {
		t.Helper()
		var patched []int
		for b := range blocks {
			require.Equal(t, want.Segs[b], ov.BlockSegs(b), "%s: block %d", what, b)
			if !slices.Equal(want.Segs[b], base.Segs[b]) {
				patched = append(patched, b)
			}
		}
		require.Equal(t, len(patched), ov.Len(), what)
		if len(patched) == 0 {
			require.Empty(t, ov.Patched(), what)
		} else {
			require.Equal(t, patched, ov.Patched(), what)
		}
	}
	for round := range 20 {
		ov := state.NewOverlay(base)
		want := base.Clone()
		n := 1 + rng.IntN(3*blocks)
		for range n {
			b := rng.IntN(blocks)
			if rng.IntN(4) == 0 {
				want.Segs[b] = slices.Clone(base.Segs[b]) // back to the base
			} else {
				want.Segs[b] = []state.Seg{pick()}
			}
			ov.SetFirst(b, want.Segs[b][0])
		}
		check(ov, want, "overlay")
		f := ov.Fork()
		fwant := want.Clone()
		for range rng.IntN(3 * blocks) {
			b := rng.IntN(blocks)
			switch rng.IntN(3) {
			case 0:
				fwant.Segs[b] = slices.Clone(base.Segs[b])
				f.Set(b, slices.Clone(base.Segs[b]))
			case 1:
				fwant.Segs[b] = slices.Clone(want.Segs[b])
				f.SetFirst(b, want.Segs[b][0]) // what ov has
			default:
				fwant.Segs[b] = []state.Seg{pick()}
				f.SetFirst(b, fwant.Segs[b][0])
			}
		}
		check(f, fwant, "fork")
		check(ov, want, "overlay after its fork changed")
		check(f.Clone(), fwant, "clone of the fork")
		f.Flatten()
		check(f, fwant, "flattened fork")
		if round%2 == 0 {
			f.Apply()
			require.True(t, fwant.Equal(base), "applied")
			check(f, fwant, "fork after Apply")
			base = orig.Clone()
		}
	}
	require.True(t, orig.Equal(base))
}

// TestOverlayRecycle: a recycled fork (one that outgrew the small array
// into a map, and one that did not) comes back from Fork empty, reading
// through its new parent, and works as a new one.
func TestOverlayRecycle(t *testing.T) {
	const blocks = 40
	base := &state.Layout{Segs: make([][]state.Seg, blocks)}
	for b := range base.Segs {
		base.Segs[b] = []state.Seg{seg(0, 0, int64(b)*64)}
	}
	ov := state.NewOverlay(base)
	ov.SetFirst(3, seg(0, 1, 0))
	for round := range 50 {
		f := ov.Fork()
		require.Equal(t, 1, f.Len(), "round %d: a fork starts with the parent's patch only", round)
		for b := range blocks {
			require.Equal(t, ov.BlockSegs(b), f.BlockSegs(b), "round %d, block %d", round, b)
		}
		n := 1 + round%(blocks-1) // past the small array every other round or so
		set := map[int]bool{}
		for k := range n {
			b := (k + 7*round) % blocks // other blocks each round
			set[b] = true
			f.SetFirst(b, seg(0, 1, int64(1000+b+round)))
		}
		for b := range blocks {
			if set[b] {
				require.Equal(t, []state.Seg{seg(0, 1, int64(1000+b+round))}, f.BlockSegs(b))
			} else {
				require.Equal(t, ov.BlockSegs(b), f.BlockSegs(b), "round %d, block %d: left from an earlier fork", round, b)
			}
		}
		f.Recycle()
	}
	// Recycling a flat overlay does nothing to it.
	ov.Recycle()
	assert.Equal(t, []state.Seg{seg(0, 1, 0)}, ov.BlockSegs(3))
}
