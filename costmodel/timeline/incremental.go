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

// Change is a candidate program written as an edit of a base: some ops
// retimed, some copies removed, some added. A copy moved to another Start
// is removed and added.
type Change struct {
	Ops     []OpChange // at most one per op
	Removed []int      // indexes into the base program's Copies, each at most once
	Added   []Copy     // no two with the same (Start, At, Rank) as each other or a kept copy
}

// Base is a simulated program kept for re-pricing changes to it: the
// canonical state before every op (the package doc says what that is and
// why it suffices). A Base is immutable, so Reprice may run concurrently
// on one Base, each goroutine with its own Scratch.
type Base struct {
	n, c      int
	comp, mem []float64
	copies    []Copy  // in issue order (Start, At, Rank)
	pos       []int32 // pos[i]: where the program's copy i is in copies
	orig      []int32 // orig[k]: the program's index of copies[k]
	startOff  []int32 // copies[startOff[t]:startOff[t+1]] start at t; len n+1
	end       []float64
	cost      float64

	// Checkpoints, for t = 0..n (the state before op t; t = n is the end):
	r  []float64 // R
	fc []float64 // fc[t*c : t*c+c]: max(F[j], R) over the channels, ascending
	// The copies in flight before op t (issued before t, end > R): on
	// channel j they are chSeq[lo[t*c+j]:hi[t*c+j]], because a channel's
	// copies end in issue order.
	chSeq  []int32 // indexes into copies, channel by channel, each in issue order
	lo, hi []int32
	// lastEnd[t] is max(R, the latest end in flight): a summary of the
	// in-flight ends that Reprice compares before comparing them all.
	lastEnd []float64
}

// NewBase validates and simulates p, keeping its checkpoints. It copies p,
// which the caller may change afterwards. Memory: about (n+1)·(8 + 16·C)
// bytes for the checkpoints plus 32 bytes per copy.
func NewBase(p *Program) (*Base, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	n, nc, nk := len(p.Compute), p.Channels, len(p.Copies)
	b := &Base{n: n, c: nc, comp: slices.Clone(p.Compute), mem: slices.Clone(p.Memory)}
	var s Scratch
	b.orig = slices.Clone(s.issueOrder(p.Copies))
	b.copies = make([]Copy, nk)
	b.pos = make([]int32, nk)
	b.startOff = make([]int32, n+1)
	for k, i := range b.orig {
		b.copies[k] = p.Copies[i]
		b.pos[i] = int32(k)
		b.startOff[b.copies[k].Start+1]++
	}
	for t := range n {
		b.startOff[t+1] += b.startOff[t]
	}

	// The simulation of Simulate, recording the checkpoints.
	b.end = make([]float64, nk)
	chanOf := make([]int32, nk)
	b.r = make([]float64, n+1)
	b.fc = make([]float64, (n+1)*nc)
	ready := make([]float64, n)
	f := make([]float64, nc)
	r := 0.0
	for t := 0; ; t++ {
		b.r[t] = r
		row := b.fc[t*nc : (t+1)*nc]
		for j := range f {
			row[j] = max(f[j], r)
		}
		slices.Sort(row)
		if t == n {
			break
		}
		for k := b.startOff[t]; k < b.startOff[t+1]; k++ {
			c := &b.copies[k]
			j := argmin(f)
			e := max(r, f[j]) + c.Time
			f[j] = e
			ready[c.At] = max(ready[c.At], e)
			b.end[k] = e
			chanOf[k] = int32(j)
		}
		r = max(r, ready[t]) + max(b.comp[t], b.mem[t])
	}
	b.cost = r

	// Each channel's copies in issue order, and the in-flight window of
	// every checkpoint: hi counts the copies issued before t, lo skips
	// those ended by R(t). Both only move forward, since R never
	// decreases and a channel's ends never decrease.
	off := make([]int32, nc+1)
	for _, j := range chanOf {
		off[j+1]++
	}
	for j := range nc {
		off[j+1] += off[j]
	}
	b.chSeq = make([]int32, nk)
	fill := slices.Clone(off[:nc])
	for k, j := range chanOf {
		b.chSeq[fill[j]] = int32(k)
		fill[j]++
	}
	b.lo = make([]int32, (n+1)*nc)
	b.hi = make([]int32, (n+1)*nc)
	lo, hi := slices.Clone(off[:nc]), slices.Clone(off[:nc])
	for t := 0; t <= n; t++ {
		for j := range nc {
			for hi[j] < off[j+1] && b.copies[b.chSeq[hi[j]]].Start < t {
				hi[j]++
			}
			for lo[j] < hi[j] && b.end[b.chSeq[lo[j]]] <= b.r[t] {
				lo[j]++
			}
			b.lo[t*nc+j], b.hi[t*nc+j] = lo[j], hi[j]
		}
	}
	b.lastEnd = make([]float64, n+1)
	for t := range b.lastEnd {
		b.lastEnd[t] = b.r[t]
		for j := range nc {
			for _, k := range b.chSeq[b.lo[t*nc+j]:b.hi[t*nc+j]] {
				b.lastEnd[t] = max(b.lastEnd[t], b.end[k])
			}
		}
	}
	return b, nil
}

// Cost is the base program's cost, as Simulate returns it.
func (b *Base) Cost() float64 { return b.cost }

// Len is the number of ops.
func (b *Base) Len() int { return b.n }

// Apply returns the changed program, for committing a change
// (NewBase(b.Apply(ch))) or checking Reprice: the base's ops with ch.Ops
// applied, its copies in their original order less the removed ones, then
// ch.Added.
func (b *Base) Apply(ch *Change) *Program {
	p := &Program{Compute: slices.Clone(b.comp), Memory: slices.Clone(b.mem), Channels: b.c}
	for _, o := range ch.Ops {
		p.Compute[o.T], p.Memory[o.T] = o.Compute, o.Memory
	}
	gone := make([]bool, len(b.copies))
	for _, i := range ch.Removed {
		gone[i] = true
	}
	for i, k := range b.pos {
		if !gone[i] {
			p.Copies = append(p.Copies, b.copies[k])
		}
	}
	p.Copies = append(p.Copies, ch.Added...)
	return p
}

// pending is a copy in flight: op at waits for its end.
type pending struct {
	at  int
	end float64
}

// nextRm returns a fresh stamp for rm, clearing it when the counter wraps.
func (s *Scratch) nextRm() uint32 {
	if s.rmGen == math.MaxUint32 {
		clear(s.rm)
		s.rmGen = 0
	}
	s.rmGen++
	return s.rmGen
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
// range or changed twice, a negative or infinite time, a removed copy out
// of range or removed twice, an added copy outside 0 <= Start <= At < n,
// or two copies of the changed program with the same (Start, At, Rank).
func (b *Base) CheckChange(ch *Change) error {
	var s Scratch
	return s.prepare(b, ch)
}

// prepare checks ch and lays it out in s: the op changes by op, the added
// copies in issue order, the removed copies stamped, and the sorted
// distinct timesteps the change touches (its ops and its copies' Starts).
func (s *Scratch) prepare(b *Base, ch *Change) error {
	s.f = grow(s.f, b.c)
	s.offs = grow(s.offs, b.c)
	if len(s.rm) < len(b.copies) {
		s.rm = make([]uint32, len(b.copies))
	}
	if len(s.seenB) < b.n {
		s.seenB, s.seenN = make([]uint32, b.n), make([]uint32, b.n)
		s.valB, s.valN = make([]float64, b.n), make([]float64, b.n)
	}
	s.nextRm()
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
	for _, i := range ch.Removed {
		if i < 0 || i >= len(b.copies) {
			return fmt.Errorf("timeline: change: removed copy %d out of range [0, %d)", i, len(b.copies))
		}
		k := b.pos[i]
		if s.rm[k] == s.rmGen {
			return fmt.Errorf("timeline: change: copy %d removed twice (rule: once)", i)
		}
		s.rm[k] = s.rmGen
		s.dirty = append(s.dirty, b.copies[k].Start)
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
		for k := b.startOff[c.Start]; k < b.startOff[c.Start+1]; k++ {
			if s.rm[k] != s.rmGen && issueCmp(&b.copies[k], c) == 0 {
				return fmt.Errorf("timeline: change: added copy with start %d, at %d, rank %d is base copy %d (rule: unique)",
					c.Start, c.At, c.Rank, b.orig[k])
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
	nc := b.c
	f := s.f[:nc]
	t := s.dirty[0]
	r := b.restore(t, 0, s)
	adds := 0 // additions since the last restore, for the tolerance
	di, ai, oi := 0, 0, 0
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

		// Issue the copies starting at t: the base's that stay, merged
		// with the added ones, in (At, Rank) order.
		for ai < len(s.added) && s.added[ai].Start < t {
			ai++
		}
		k, ke := b.startOff[t], b.startOff[t+1]
		for {
			for k < ke && s.rm[k] == s.rmGen {
				k++
			}
			var c *Copy
			switch {
			case k < ke && (ai == len(s.added) || s.added[ai].Start != t || issueCmp(&b.copies[k], &s.added[ai]) <= 0):
				c = &b.copies[k]
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
		comp, mem := b.comp[t], b.mem[t]
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
	nc := b.c
	for j, x := range b.fc[t*nc : (t+1)*nc] {
		s.f[j] = x + delta
	}
	s.live = s.live[:0]
	for j := range nc {
		for _, k := range b.chSeq[b.lo[t*nc+j]:b.hi[t*nc+j]] {
			s.live = append(s.live, pending{b.copies[k].At, b.end[k] + delta})
		}
	}
	s.last = b.lastEnd[t] + delta
	return b.r[t] + delta
}

// rejoins reports whether the state (r, s.f, s.live) before op t is the
// base's canonical state before op t shifted by delta = r - R_base(t),
// each component within the tolerance of the package doc.
func (b *Base) rejoins(t int, r float64, adds int, s *Scratch) (delta float64, ok bool) {
	nc := b.c
	rb := b.r[t]
	delta = r - rb
	tol := 4 * roundoff * float64(adds+2) * max(r, rb)

	// Channels: the clamped finish times as offsets from R, ascending.
	offs := s.offs[:nc]
	for j, x := range s.f[:nc] {
		offs[j] = max(x-r, 0)
	}
	for i := 1; i < nc; i++ { // insertion sort: C is small
		for j := i; j > 0 && offs[j] < offs[j-1]; j-- {
			offs[j], offs[j-1] = offs[j-1], offs[j]
		}
	}
	for j, x := range b.fc[t*nc : (t+1)*nc] {
		if math.Abs(offs[j]-(x-rb)) > tol {
			return 0, false
		}
	}

	// Pending ends: per At, the latest end in flight as an offset from
	// R; an At with nothing in flight has offset 0. First their maximum.
	if math.Abs((s.last-r)-(b.lastEnd[t]-rb)) > tol {
		return 0, false
	}
	g := s.nextSeen()
	for j := range nc {
		for _, k := range b.chSeq[b.lo[t*nc+j]:b.hi[t*nc+j]] {
			a, o := b.copies[k].At, b.end[k]-rb
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
	for j := range nc {
		for _, k := range b.chSeq[b.lo[t*nc+j]:b.hi[t*nc+j]] {
			a, vn := b.copies[k].At, 0.0
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
