package state

import "testing"

// TestLevelModes: a level is a slice until it holds more than smallMax
// spans, B-trees from then on until it falls below smallMin, and a slice
// again; a clone keeps the mode, and writing a shared slice copies it.
func TestLevelModes(t *testing.T) {
	lv := newLevelOcc(1 << 20)
	place := func(i int) {
		off := int64(i) * 16
		lv.add(Span{off, off + 8, int32(i)}, lv.gapAt(off))
	}
	for i := 0; i <= smallMax; i++ {
		place(i)
	}
	if lv.busy == nil || lv.count() != smallMax+1 {
		t.Fatalf("after %d spans: busy tree %v, %d spans", smallMax+1, lv.busy != nil, lv.count())
	}
	c := lv.clone()
	for i := smallMax; i >= smallMin-1; i-- {
		lv.removeSpan(Span{int64(i) * 16, int64(i)*16 + 8, int32(i)})
	}
	if lv.busy != nil || lv.count() != smallMin-1 {
		t.Fatalf("after draining: busy tree %v, %d spans", lv.busy != nil, lv.count())
	}
	if c.busy == nil || c.count() != smallMax+1 {
		t.Fatalf("the clone changed: %d spans", c.count())
	}
	d := lv.clone()
	if lv.owned || d.owned {
		t.Fatal("a cloned slice must be copied before a write on either side")
	}
	place(smallMin - 1)
	if !lv.owned || d.count() != smallMin-1 || lv.count() != smallMin {
		t.Fatalf("write after clone: owned %v, clone %d spans, level %d", lv.owned, d.count(), lv.count())
	}
}

// gapAt returns the free gap around off (tests only).
func (lv *levelOcc) gapAt(off int64) Gap {
	g := Gap{0, lv.cap}
	if s, ok := lv.floor(off); ok {
		g.Off = s.End
	}
	if s, ok := lv.ceil(off + 1); ok {
		g.End = s.Off
	}
	return g
}
