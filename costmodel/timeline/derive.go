package timeline

import (
	"slices"
	"sync"
)

// scratches lends Derive the buffers of a Scratch.
var scratches = sync.Pool{New: func() any { return new(Scratch) }}

// Derive returns the base of the changed program b.Apply(ch), as NewBase
// of it would, without simulating it all: the new base shares b's chunks
// (32 ops each) that ch leaves alone, those after the change with their
// times shifted by an offset the new base keeps per chunk, and simulates
// only the chunks from the first ch touches until its state rejoins b's
// (the package doc, "Deriving a base"). It returns b itself for an empty
// change, and an error if CheckChange(ch) fails. b is unchanged, and the
// new base holds no reference to it: dropping b frees what only b used.
// Derive may run concurrently with other Derive and Reprice calls on b.
func (b *Base) Derive(ch *Change) (*Base, error) {
	s := scratches.Get().(*Scratch)
	defer scratches.Put(s)
	if err := s.prepare(b, ch); err != nil {
		return nil, err
	}
	if len(s.dirty) == 0 {
		return b, nil
	}
	nb := &Base{n: b.n, c: b.c, nch: b.nch, groups: slices.Clone(b.groups)}

	// The chunks the change touches, each with its program edited.
	s.touched = s.touched[:0]
	oi, ri, ai := 0, 0, 0
	for _, t := range s.dirty {
		ci := t >> chunkShift
		if len(s.touched) > 0 && s.touched[len(s.touched)-1] == ci {
			continue
		}
		s.touched = append(s.touched, ci)
		t1 := (ci + 1) << chunkShift
		o0, r0, a0 := oi, ri, ai
		for oi < len(s.ops) && s.ops[oi].T < t1 {
			oi++
		}
		for ri < len(s.removed) && s.removed[ri].Start < t1 {
			ri++
		}
		for ai < len(s.added) && s.added[ai].Start < t1 {
			ai++
		}
		nb.setChunk(b, ci, b.prog(ci).edit(ci<<chunkShift, s.ops[o0:oi], s.removed[r0:ri], s.added[a0:ai]), nil)
	}

	// Simulate from the first touched chunk; after each chunk, unless the
	// next is touched, compare the state with b's: if it has rejoined,
	// share b's chunks up to the next touched one, shifted, and go on
	// from there.
	ci := s.touched[0]
	r := b.restore(ci<<chunkShift, 0, s)
	adds := 0 // additions since the last restore, for the tolerance
	ti := 0   // s.touched[ti:] are the touched chunks not yet simulated
	for {
		if ti < len(s.touched) && s.touched[ti] == ci {
			ti++
		}
		var ck *ckChunk
		var a int
		pc := nb.prog(ci)
		ck, r, a = s.simChunk(pc, ci<<chunkShift, nb.checkpoints(ci), nb.c, r)
		nb.setChunk(b, ci, pc, ck)
		adds += a
		ci++
		if ci == nb.nch {
			nb.cost = r
			return nb, nil
		}
		if ti < len(s.touched) && s.touched[ti] == ci {
			continue
		}
		delta, ok := b.rejoins(ci<<chunkShift, r, adds, s)
		if !ok {
			continue
		}
		next := nb.nch
		if ti < len(s.touched) {
			next = s.touched[ti]
		}
		nb.shift(b, ci, next, delta)
		if next == nb.nch {
			nb.cost = b.cost + delta
			return nb, nil
		}
		ci = next
		r = b.restore(ci<<chunkShift, delta, s)
		adds = 0
	}
}
