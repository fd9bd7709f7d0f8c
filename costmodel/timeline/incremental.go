package timeline

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// OpChange gives op T new compute and memory times.
type OpChange struct {
	T               int
	Compute, Memory float64
}

// CopyKey names a copy: no two copies of a program share (Start, At,
// Rank) (Program.Validate), so the key is the copy's identity across a
// base and the bases derived from it, whatever else changes around it.
type CopyKey struct {
	Start, At int
	Rank      int64
}

// Key is the copy's key.
func (c Copy) Key() CopyKey { return CopyKey{c.Start, c.At, c.Rank} }

// keyCmp orders keys as issueCmp orders copies.
func keyCmp(a, b CopyKey) int {
	if c := cmp.Compare(a.Start, b.Start); c != 0 {
		return c
	}
	if c := cmp.Compare(a.At, b.At); c != 0 {
		return c
	}
	return cmp.Compare(a.Rank, b.Rank)
}

// Change is a candidate program written as an edit of a base: some ops
// retimed, some copies removed, some added. A copy moved to another Start
// is removed (by its old key) and added.
type Change struct {
	Ops     []OpChange // at most one per op
	Removed []CopyKey  // keys of copies of the base, each at most once
	Added   []Copy     // no two with the same (Start, At, Rank) as each other or a kept copy
}

// Base is a simulated program kept for re-pricing changes to it: the
// canonical state before every op (the package doc says what that is and
// why it suffices), in chunks of 32 ops that bases derived from it share.
// A Base is immutable, so Reprice and Derive may run concurrently on one
// Base, each Reprice with its own Scratch.
type Base struct {
	n, c   int
	nch    int // chunks
	cost   float64
	groups []groupRef // the program and the checkpoints 0..n, by group of chunks
}

// NewBase validates and simulates p, keeping its checkpoints. It copies p,
// which the caller may change afterwards. Memory: about (n+1)·(44 + 16·C)
// bytes plus 44 bytes per copy (the package doc).
func NewBase(p *Program) (*Base, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	n, nc := len(p.Compute), p.Channels
	var s Scratch
	q := &Program{Compute: slices.Clone(p.Compute), Memory: slices.Clone(p.Memory), Copies: p.Copies}
	progs := newProgChunks(q, s.issueOrder(p.Copies))
	b := &Base{n: n, c: nc, nch: len(progs), groups: make([]groupRef, (len(progs)-1)>>groupShift+1)}
	for gi := range b.groups {
		b.groups[gi].g = new(group)
	}
	s.f = growZero(s.f, nc)
	r := 0.0
	for ci, pc := range progs {
		var ck *ckChunk
		ck, r, _ = s.simChunk(pc, ci<<chunkShift, b.checkpoints(ci), nc, r)
		g := b.groups[ci>>groupShift].g
		g.progs[ci&groupMask], g.cks[ci&groupMask] = pc, ckRef{ck: ck}
	}
	b.cost = r
	return b, nil
}

// checkpoints is the number of checkpoints in chunk ci: chunkLen, fewer
// in the last chunk, which ends with checkpoint n.
func (b *Base) checkpoints(ci int) int { return min(chunkLen, b.n+1-ci<<chunkShift) }

// Cost is the base program's cost, as Simulate returns it.
func (b *Base) Cost() float64 { return b.cost }

// Len is the number of ops.
func (b *Base) Len() int { return b.n }

// Program returns the base's program, its copies in issue order.
func (b *Base) Program() *Program {
	nk := 0
	for ci := range b.nch {
		nk += len(b.prog(ci).copies)
	}
	p := &Program{Compute: make([]float64, 0, b.n), Memory: make([]float64, 0, b.n), Copies: make([]Copy, 0, nk), Channels: b.c}
	for ci := range b.nch {
		pc := b.prog(ci)
		p.Compute = append(p.Compute, pc.comp...)
		p.Memory = append(p.Memory, pc.mem...)
		p.Copies = append(p.Copies, pc.copies...)
	}
	return p
}

// Apply returns the changed program, for checking Reprice or Derive: the
// base's ops with ch.Ops applied, its copies in issue order less the
// removed ones, then ch.Added. It does not check ch (CheckChange does).
func (b *Base) Apply(ch *Change) *Program {
	p := b.Program()
	for _, o := range ch.Ops {
		p.Compute[o.T], p.Memory[o.T] = o.Compute, o.Memory
	}
	gone := make(map[CopyKey]bool, len(ch.Removed))
	for _, k := range ch.Removed {
		gone[k] = true
	}
	p.Copies = slices.DeleteFunc(p.Copies, func(c Copy) bool { return gone[c.Key()] })
	p.Copies = append(p.Copies, ch.Added...)
	return p
}

// hasCopy reports whether the base has a copy with key k.
func (b *Base) hasCopy(k CopyKey) bool {
	if k.Start < 0 || k.Start >= b.n {
		return false
	}
	cs := b.prog(k.Start >> chunkShift).at(k.Start & chunkMask)
	_, ok := slices.BinarySearchFunc(cs, k, func(c Copy, k CopyKey) int { return keyCmp(c.Key(), k) })
	return ok
}

// pending is a copy in flight: op at waits for its end.
type pending struct {
	at  int
	end float64
}

// nextSeen returns a fresh stamp for seenB and seenN, clearing them when
// the counter wraps.
func (s *Scratch) nextSeen() uint32 {
	if s.gen == math.MaxUint32 {
		clear(s.seenB)
		clear(s.seenN)
		s.gen = 0
	}
	s.gen++
	return s.gen
}

// CheckChange reports what is wrong with ch as a change of b: an op out of
// range or changed twice, a negative or infinite time, a removed key that
// is no copy of b or is removed twice, an added copy outside 0 <= Start <=
// At < n, or two copies of the changed program with the same key.
func (b *Base) CheckChange(ch *Change) error {
	var s Scratch
	return s.prepare(b, ch)
}

// prepare checks ch and lays it out in s: the op changes by op, the
// removed keys and the added copies in issue order, and the sorted
// distinct timesteps the change touches (its ops and its copies' Starts).
func (s *Scratch) prepare(b *Base, ch *Change) error {
	s.f = grow(s.f, b.c)
	s.offs = grow(s.offs, b.c)
	if len(s.seenB) < b.n {
		s.seenB, s.seenN = make([]uint32, b.n), make([]uint32, b.n)
		s.valB, s.valN = make([]float64, b.n), make([]float64, b.n)
	}
	s.dirty = s.dirty[:0]

	s.ops = append(s.ops[:0], ch.Ops...)
	slices.SortFunc(s.ops, func(x, y OpChange) int { return cmp.Compare(x.T, y.T) })
	for i, o := range s.ops {
		if o.T < 0 || o.T >= b.n {
			return fmt.Errorf("timeline: change: op %d out of range [0, %d)", o.T, b.n)
		}
		if i > 0 && s.ops[i-1].T == o.T {
			return fmt.Errorf("timeline: change: op %d changed twice (rule: once)", o.T)
		}
		if !nonNeg(o.Compute) || !nonNeg(o.Memory) {
			return fmt.Errorf("timeline: change: op %d: compute %v, memory %v (rule: finite and >= 0)", o.T, o.Compute, o.Memory)
		}
		s.dirty = append(s.dirty, o.T)
	}
	s.removed = append(s.removed[:0], ch.Removed...)
	slices.SortFunc(s.removed, keyCmp)
	for i, k := range s.removed {
		if i > 0 && s.removed[i-1] == k {
			return fmt.Errorf("timeline: change: copy with start %d, at %d, rank %d removed twice (rule: once)", k.Start, k.At, k.Rank)
		}
		if !b.hasCopy(k) {
			return fmt.Errorf("timeline: change: removed copy with start %d, at %d, rank %d is not in the base (rule: remove base copies)", k.Start, k.At, k.Rank)
		}
		s.dirty = append(s.dirty, k.Start)
	}
	s.added = append(s.added[:0], ch.Added...)
	slices.SortFunc(s.added, func(x, y Copy) int { return issueCmp(&x, &y) })
	for i := range s.added {
		c := &s.added[i]
		if err := checkCopy(c, b.n); err != nil {
			return fmt.Errorf("timeline: change: added copy: %w", err)
		}
		if i > 0 && issueCmp(&s.added[i-1], c) == 0 {
			return fmt.Errorf("timeline: change: two added copies with start %d, at %d, rank %d (rule: unique)", c.Start, c.At, c.Rank)
		}
		if k := c.Key(); b.hasCopy(k) {
			if _, gone := slices.BinarySearchFunc(s.removed, k, keyCmp); !gone {
				return fmt.Errorf("timeline: change: added copy with start %d, at %d, rank %d is a kept base copy (rule: unique)",
					c.Start, c.At, c.Rank)
			}
		}
		s.dirty = append(s.dirty, c.Start)
	}
	slices.Sort(s.dirty)
	s.dirty = slices.Compact(s.dirty)
	return nil
}

// roundoff is the unit roundoff of float64, 2^-53.
const roundoff = 0x1p-53

// Reprice returns the cost of the base with ch applied, as Simulate of
// b.Apply(ch) would (within the bound of the package doc), simulating only
// from the first timestep ch touches until the state rejoins the base's.
// It panics if CheckChange(ch) fails. It allocates nothing once s's
// buffers have grown, and may run concurrently with other Reprice calls on
// b that use other Scratches.
func (b *Base) Reprice(ch *Change, s *Scratch) float64 {
	if err := s.prepare(b, ch); err != nil {
		panic(err)
	}
	s.Calls++
	if len(s.dirty) == 0 {
		return b.cost
	}
	f := s.f[:b.c]
	t := s.dirty[0]
	r := b.restore(t, 0, s)
	adds := 0 // additions since the last restore, for the tolerance
	di, ai, ri, oi := 0, 0, 0, 0
	for t < b.n {
		if di < len(s.dirty) && s.dirty[di] == t {
			di++
		} else if delta, ok := b.rejoins(t, r, adds, s); ok {
			if di == len(s.dirty) {
				return b.cost + delta
			}
			// Ops t .. dirty[di]-1 are the base's: skip them.
			t = s.dirty[di]
			r = b.restore(t, delta, s)
			adds = 0
			continue
		}
		pc, i := b.prog(t>>chunkShift), t&chunkMask

		// Issue the copies starting at t: the base's that stay, merged
		// with the added ones, in (At, Rank) order.
		for ai < len(s.added) && s.added[ai].Start < t {
			ai++
		}
		for ri < len(s.removed) && s.removed[ri].Start < t {
			ri++
		}
		cs, k := pc.at(i), 0
		for {
			for k < len(cs) && ri < len(s.removed) && s.removed[ri] == cs[k].Key() {
				k++
				ri++
			}
			var c *Copy
			switch {
			case k < len(cs) && (ai == len(s.added) || s.added[ai].Start != t || issueCmp(&cs[k], &s.added[ai]) <= 0):
				c = &cs[k]
				k++
			case ai < len(s.added) && s.added[ai].Start == t:
				c = &s.added[ai]
				ai++
			}
			if c == nil {
				break
			}
			j := argmin(f)
			e := max(r, f[j]) + c.Time
			f[j] = e
			if e > r {
				s.live = append(s.live, pending{c.At, e})
			}
			adds++
		}

		// Run op t.
		T := r
		for _, l := range s.live {
			if l.at == t {
				T = max(T, l.end)
			}
		}
		comp, mem := pc.comp[i], pc.mem[i]
		for oi < len(s.ops) && s.ops[oi].T < t {
			oi++
		}
		if oi < len(s.ops) && s.ops[oi].T == t {
			comp, mem = s.ops[oi].Compute, s.ops[oi].Memory
		}
		r = T + max(comp, mem)
		adds++
		live, last := s.live[:0], r
		for _, l := range s.live {
			if l.end > r {
				live = append(live, l)
				last = max(last, l.end)
			}
		}
		s.live, s.last = live, last
		s.Steps++
		t++
	}
	return r
}

// restore loads the base's checkpoint before op t, shifted by delta, into
// s and returns its R. The channels get the sorted clamped finish times,
// whichever channel held them in the base.
func (b *Base) restore(t int, delta float64, s *Scratch) float64 {
	ck, off, i := b.ckAt(t)
	sh := off + delta
	nc, nl := b.c, b.c+1
	for j, x := range ck.fc[i*nc : (i+1)*nc] {
		s.f[j] = x + sh
	}
	s.live = s.live[:0]
	for j := range nl {
		for p := ck.lo[i*nl+j]; p < ck.hi[i*nl+j]; p++ {
			s.live = append(s.live, pending{int(ck.at[p]), ck.end[p] + sh})
		}
	}
	s.last = ck.lastEnd[i] + sh
	return ck.r[i] + sh
}

// rejoins reports whether the state (r, s.f, s.live) before op t is the
// base's canonical state before op t shifted by delta = r - R_base(t),
// each component within the tolerance of the package doc. The base's
// offsets from its R are taken within its chunk, where the chunk's offset
// cancels.
func (b *Base) rejoins(t int, r float64, adds int, s *Scratch) (delta float64, ok bool) {
	ck, off, i := b.ckAt(t)
	nc, nl := b.c, b.c+1
	rc := ck.r[i] // R_base(t) less the chunk's offset
	rb := rc + off
	delta = r - rb
	tol := 4 * roundoff * float64(adds+2) * max(r, rb)

	// Channels: the clamped finish times as offsets from R, ascending.
	offs := s.offs[:nc]
	for j, x := range s.f[:nc] {
		offs[j] = max(x-r, 0)
	}
	sortSmall(offs)
	for j, x := range ck.fc[i*nc : (i+1)*nc] {
		if math.Abs(offs[j]-(x-rc)) > tol {
			return 0, false
		}
	}

	// Pending ends: per At, the latest end in flight as an offset from
	// R; an At with nothing in flight has offset 0. First their maximum.
	if math.Abs((s.last-r)-(ck.lastEnd[i]-rc)) > tol {
		return 0, false
	}
	g := s.nextSeen()
	for j := range nl {
		for p := ck.lo[i*nl+j]; p < ck.hi[i*nl+j]; p++ {
			a, o := ck.at[p], ck.end[p]-rc
			if s.seenB[a] != g {
				s.seenB[a], s.valB[a] = g, o
			} else {
				s.valB[a] = max(s.valB[a], o)
			}
		}
	}
	for _, l := range s.live {
		o := max(l.end-r, 0)
		if s.seenN[l.at] != g {
			s.seenN[l.at], s.valN[l.at] = g, o
		} else {
			s.valN[l.at] = max(s.valN[l.at], o)
		}
	}
	for j := range nl {
		for p := ck.lo[i*nl+j]; p < ck.hi[i*nl+j]; p++ {
			a, vn := ck.at[p], 0.0
			if s.seenN[a] == g {
				vn = s.valN[a]
			}
			if math.Abs(vn-s.valB[a]) > tol {
				return 0, false
			}
		}
	}
	for _, l := range s.live {
		if s.seenB[l.at] != g && s.valN[l.at] > tol {
			return 0, false
		}
	}
	return delta, true
}

// Dur is d(t) = max(c(t), m(t)) of the base's op t.
func (b *Base) Dur(t int) float64 {
	pc := b.prog(t >> chunkShift)
	i := t & chunkMask
	return max(pc.comp[i], pc.mem[i])
}
