package state

import (
	"slices"
	"testing"
)

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

// TestDropIsLazy: in B-tree mode Drop only records the release, and the
// next read applies it; in slice mode it applies it at once.
func TestDropIsLazy(t *testing.T) {
	p := &Problem{}
	o := &Occupancy{p: p, levels: []levelOcc{newLevelOcc(1 << 20)}}
	lv := &o.levels[0]
	for i := 0; i <= smallMax; i++ {
		off := int64(i) * 16
		lv.add(Span{off, off + 8, int32(i)}, lv.gapAt(off))
	}
	lv.drop(pendingRelease{3, 48, 56})
	if lv.busy == nil || lv.npending() != 1 {
		t.Fatalf("B-tree mode: %v, pending %d", lv.busy != nil, lv.npending())
	}
	c := o.Clone() // a clone settles its source first
	if lv.npending() != 0 || lv.count() != smallMax || c.levels[0].count() != smallMax {
		t.Fatalf("after clone: pending %d, %d and %d spans", lv.npending(), lv.count(), c.levels[0].count())
	}
	if _, ok := lv.get(48); ok {
		t.Fatal("the dropped span is still there")
	}
	lv.drop(pendingRelease{4, 64, 72})
	if g := lv.gapAt(60); g != (Gap{Off: 40, End: 80}) {
		t.Fatalf("a read after a drop: gap %v, want [40,80)", g)
	}
	// A clone with releases pending, recycled: its list goes back (the
	// releases with it) and the source is untouched.
	cl := &c.levels[0]
	cl.drop(pendingRelease{5, 80, 88})
	c.Recycle()
	if cl.pending != nil || lv.count() != smallMax-1 {
		t.Fatalf("after Recycle: list %v, source %d spans", cl.pending, lv.count())
	}
	if _, ok := lv.get(80); !ok {
		t.Fatal("the clone's release reached the source")
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

// TestRecycleKeepsSharedSlices: recycling a clone that still shares its
// small level's slice with its source gives nothing back (the source
// would see its spans overwritten), while a clone that made the slice its
// own gives it back.
func TestRecycleKeepsSharedSlices(t *testing.T) {
	p := &Problem{}
	src := &Occupancy{p: p, levels: []levelOcc{newLevelOcc(1 << 20)}}
	lv := &src.levels[0]
	for i := range 10 {
		off := int64(i) * 16
		lv.add(Span{off, off + 8, int32(i)}, lv.gapAt(off))
	}
	want := slices.Clone(lv.spans)
	shared := src.Clone() // shares the slice
	shared.Recycle()
	// Other occupancies now take slices and fill them.
	for k := range 20 {
		o := src.Clone()
		ol := &o.levels[0]
		ol.add(Span{1000, 1008, int32(100 + k)}, ol.gapAt(1000))
		ol.spans[0].Block = -1 // scribble over the start of its own copy
		if len(ol.spans) != 11 {
			t.Fatalf("clone %d: %d spans", k, len(ol.spans))
		}
		if k%2 == 0 {
			o.Recycle() // its slice is its own: reused by the next clones
		}
	}
	if !slices.Equal(lv.spans, want) {
		t.Fatalf("the source's spans changed: %v", lv.spans)
	}
}
