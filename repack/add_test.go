package repack

import (
	"testing"

	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/state"
)

// TestAddShiftsLaterRefs: inserting a run of two segments from slower
// levels makes them one, so the block's later segments move down its
// list; the level's buffers that refer to them must follow (a packing
// later in the pass writes offsets through those references).
func TestAddShiftsLaterRefs(t *testing.T) {
	b := testprog.New("p", 5)
	b.Block("x", 64, "activation", 0, 4)
	b.Block("y", 64, "activation", 0, 4)
	lv := func(name string) testprog.Level {
		return testprog.Level{Name: name, Capacity: 1024, Align: 8, Latency: 1, Bandwidth: 1}
	}
	p := testprog.Bind(b.Program(), testprog.Profile("hw", lv("L0"), lv("L1"), lv("L2")))
	seg := func(from, level int32, off int64) state.Seg { return state.Seg{From: from, Level: level, Offset: off} }
	// x: in L2, moved within L2 at 1, to L0 at 2, to L1 at 3.
	lay := &state.Layout{Segs: [][]state.Seg{
		{seg(0, 2, 0), seg(1, 2, 128), seg(2, 0, 0), seg(3, 1, 256)},
		{seg(0, 1, 0)},
	}}
	r := &repacker{p: p, lay: lay}
	ls := r.levelState(1)
	c := candidate{b: 0, i: 0, j: 1, from: 0, to: 1}
	lay.Segs[0] = replaceRun(nil, lay.Segs[0], c.i, c.j, seg(0, 1, 512))
	r.add(ls, 1, c)
	found := 0
	for _, it := range ls.its {
		for _, rf := range it.refs {
			s := lay.Segs[rf.b][rf.i]
			if int(s.Level) != 1 || s.Offset != it.off {
				t.Fatalf("buffer at %d refers to segment %d of block %d: %+v", it.off, rf.i, rf.b, s)
			}
			if rf.b == 0 {
				found++
			}
		}
	}
	if found != 2 {
		t.Fatalf("%d references to x's segments in L1, want 2 (the inserted run and its last segment)", found)
	}
}
