package timeline

import (
	"cmp"
	"slices"
)

// A Base keeps its program and its checkpoints in chunks of chunkLen ops,
// so that a derived base shares the chunks a change leaves alone (see the
// package doc, "Deriving a base").
const (
	chunkShift = 5
	chunkLen   = 1 << chunkShift
	chunkMask  = chunkLen - 1
)

// The chunks are held in groups of groupLen chunks, each group with an
// offset of its own, so that Derive shifts the groups after a change, not
// every chunk.
const (
	groupShift = 5
	groupLen   = 1 << groupShift
	groupMask  = groupLen - 1
)

// numChunks is the number of chunks that hold the checkpoints 0..n of a
// program of n ops: chunk i holds the ops and checkpoints i·chunkLen ..
// i·chunkLen + chunkLen - 1, the last one checkpoint n and the ops before it.
func numChunks(n int) int { return n>>chunkShift + 1 }

// progChunk is the program of a chunk's ops. It is immutable once built
// and shared by every base whose program is the same there.
type progChunk struct {
	comp, mem []float64 // per op of the chunk
	copies    []Copy    // issued at the chunk's ops, in issue order
	// copies[startOff[i]:startOff[i+1]] start at the chunk's op i; one
	// more entry than ops.
	startOff []int32
}

// at returns the copies that start at the chunk's op i.
func (pc *progChunk) at(i int) []Copy { return pc.copies[pc.startOff[i]:pc.startOff[i+1]] }

// ckChunk is the checkpoints of a chunk, the state before each of its ops
// (and before none, at n): every time in it is less an offset, ckRef.off,
// that the base holding it adds. Immutable once built.
type ckChunk struct {
	r, lastEnd []float64 // R and max(R, the latest end in flight), per checkpoint
	fc         []float64 // c per checkpoint: max(F[j], R) over the channels, ascending
	// The copies in flight before the chunk's op i (issued before it,
	// ending after R) are, per lane j = 0..c, at and end [lo, hi) at
	// i·(c+1)+j. Lane c holds the copies in flight before the chunk's
	// first op, ascending by end; lane j < c the copies issued within the
	// chunk on channel j of the simulation that built it, in issue order.
	// Both lists ascend by end, so the in-flight copies of a lane are a
	// contiguous run, the run moving forward with i.
	lo, hi []int32
	at     []int32   // the op that waits for the copy
	end    []float64 // when the copy ends
}

// ckRef is a chunk of checkpoints as a base sees it: every time in ck
// plus off.
type ckRef struct {
	ck  *ckChunk
	off float64
}

// group is groupLen consecutive chunks (fewer in use in the last group):
// their programs and checkpoints, each chunk's times plus its own offset
// plus the group's (groupRef.off). Immutable once its base is built.
type group struct {
	progs [groupLen]*progChunk
	cks   [groupLen]ckRef
}

// groupRef is a group as a base sees it.
type groupRef struct {
	g   *group
	off float64
}

// prog is the program of chunk ci.
func (b *Base) prog(ci int) *progChunk { return b.groups[ci>>groupShift].g.progs[ci&groupMask] }

// chunk returns the checkpoints of chunk ci and the offset to add to
// their times.
func (b *Base) chunk(ci int) (*ckChunk, float64) {
	gr := &b.groups[ci>>groupShift]
	ref := &gr.g.cks[ci&groupMask]
	return ref.ck, gr.off + ref.off
}

// ckAt returns the chunk of checkpoint t, the offset to add to its times
// and t's index in it.
func (b *Base) ckAt(t int) (*ckChunk, float64, int) {
	ck, off := b.chunk(t >> chunkShift)
	return ck, off, t & chunkMask
}

// own returns group gi of nb, a base being derived from b, copying it
// first if nb still shares it with b.
func (nb *Base) own(b *Base, gi int) *group {
	if nb.groups[gi].g == b.groups[gi].g {
		g := *b.groups[gi].g
		nb.groups[gi].g = &g
	}
	return nb.groups[gi].g
}

// setChunk gives chunk ci of nb, a base being derived from b, the
// program pc and the checkpoints ck (with no offset).
func (nb *Base) setChunk(b *Base, ci int, pc *progChunk, ck *ckChunk) {
	gi := ci >> groupShift
	g := nb.own(b, gi)
	g.progs[ci&groupMask] = pc
	if ck != nil {
		g.cks[ci&groupMask] = ckRef{ck: ck, off: -nb.groups[gi].off}
	}
}

// shift makes chunks from .. to-1 of nb, a base being derived from b, b's
// shifted by delta: a group within the range keeps b's chunks and gets
// b's offset plus delta; a group in part within, copied, the chunks'
// offsets plus delta.
func (nb *Base) shift(b *Base, from, to int, delta float64) {
	for ci := from; ci < to; {
		gi := ci >> groupShift
		g0, g1 := gi<<groupShift, min((gi+1)<<groupShift, nb.nch)
		if ci == g0 && to >= g1 {
			nb.groups[gi].off = b.groups[gi].off + delta
			ci = g1
			continue
		}
		g, bg := nb.own(b, gi), b.groups[gi].g
		for ; ci < min(to, g1); ci++ {
			g.cks[ci&groupMask].off = bg.cks[ci&groupMask].off + delta
		}
	}
}

// newProgChunks cuts p's ops and its copies (order: their issue order)
// into chunks.
func newProgChunks(p *Program, order []int32) []*progChunk {
	n := len(p.Compute)
	pcs := make([]*progChunk, numChunks(n))
	k := 0
	for ci := range pcs {
		t0, t1 := ci<<chunkShift, min(n, (ci+1)<<chunkShift)
		pc := &progChunk{comp: p.Compute[t0:t1:t1], mem: p.Memory[t0:t1:t1], startOff: make([]int32, t1-t0+1)}
		k0 := k
		for k < len(order) && p.Copies[order[k]].Start < t1 {
			pc.startOff[p.Copies[order[k]].Start-t0+1]++
			k++
		}
		pc.copies = make([]Copy, k-k0)
		for i, o := range order[k0:k] {
			pc.copies[i] = p.Copies[o]
		}
		for i := range t1 - t0 {
			pc.startOff[i+1] += pc.startOff[i]
		}
		pcs[ci] = pc
	}
	return pcs
}

// edit returns the chunk with ops retimed and copies removed and added:
// ops, removed and added are those of a change that fall in the chunk
// (op t0 first), each sorted and valid. What the change leaves alone is
// shared.
func (pc *progChunk) edit(t0 int, ops []OpChange, removed []CopyKey, added []Copy) *progChunk {
	np := *pc
	if len(ops) > 0 {
		np.comp, np.mem = slices.Clone(pc.comp), slices.Clone(pc.mem)
		for _, o := range ops {
			np.comp[o.T-t0], np.mem[o.T-t0] = o.Compute, o.Memory
		}
	}
	if len(removed) == 0 && len(added) == 0 {
		return &np
	}
	np.copies = make([]Copy, 0, len(pc.copies)-len(removed)+len(added))
	np.startOff = make([]int32, len(pc.startOff))
	ri, ai := 0, 0
	for k := range pc.copies {
		c := &pc.copies[k]
		for ai < len(added) && issueCmp(&added[ai], c) < 0 {
			np.copies = append(np.copies, added[ai])
			ai++
		}
		if ri < len(removed) && removed[ri] == c.Key() {
			ri++
			continue
		}
		np.copies = append(np.copies, *c)
	}
	np.copies = append(np.copies, added[ai:]...)
	for _, c := range np.copies {
		np.startOff[c.Start-t0+1]++
	}
	for i := 1; i < len(np.startOff); i++ {
		np.startOff[i] += np.startOff[i-1]
	}
	return &np
}

// issued is a copy issued during a chunk's simulation: on channel lane
// at the chunk's op i.
type issued struct {
	lane, i int32
	at      int32
	end     float64
}

// simChunk simulates the ops of a chunk (program pc, first op t0, ncp
// checkpoints: its ops, and one more for the last chunk) from the state
// before op t0, r and the channels and in-flight copies in s, and records
// its checkpoints. It leaves the state after the chunk's last op in s and
// returns the new chunk, that state's R and the additions it made.
func (s *Scratch) simChunk(pc *progChunk, t0, ncp, nc int, r float64) (ck *ckChunk, _ float64, adds int) {
	f := s.f[:nc]
	nl := nc + 1
	pre := append(s.pre[:0], s.live...) // lane nc: in flight before op t0, by end
	slices.SortFunc(pre, func(x, y pending) int { return cmp.Compare(x.end, y.end) })
	s.pre = pre
	iss := s.iss[:0]
	nf, ns := 2*ncp+ncp*nc, len(pre)+len(pc.copies) // r, lastEnd, fc; end
	fs := make([]float64, nf+ns)
	ck = &ckChunk{r: fs[:ncp:ncp], lastEnd: fs[ncp : 2*ncp : 2*ncp], fc: fs[2*ncp : nf : nf]}
	for i := range ncp {
		ck.r[i] = r
		row := ck.fc[i*nc : (i+1)*nc]
		for j, x := range f {
			row[j] = max(x, r)
		}
		sortSmall(row)
		if i == len(pc.comp) { // checkpoint n
			break
		}
		t := t0 + i
		cs := pc.at(i)
		for k := range cs {
			c := &cs[k]
			j := argmin(f)
			e := max(r, f[j]) + c.Time
			f[j] = e
			iss = append(iss, issued{int32(j), int32(i), int32(c.At), e})
			if e > r {
				s.live = append(s.live, pending{c.At, e})
			}
			adds++
		}
		T := r
		for _, l := range s.live {
			if l.at == t {
				T = max(T, l.end)
			}
		}
		r = T + max(pc.comp[i], pc.mem[i])
		adds++
		live, last := s.live[:0], r
		for _, l := range s.live {
			if l.end > r {
				live = append(live, l)
				last = max(last, l.end)
			}
		}
		s.live, s.last = live, last
	}
	s.iss = iss

	// The lanes: pre, then each channel's copies in issue order (a stable
	// counting sort of iss by lane).
	ck.end = fs[nf:]
	is := make([]int32, 2*ncp*nl+ns)
	ck.lo, ck.hi, ck.at = is[:ncp*nl:ncp*nl], is[ncp*nl:2*ncp*nl:2*ncp*nl], is[2*ncp*nl:]
	off := append(s.laneOff[:0], make([]int32, nl+1)...)
	s.laneOff = off
	for _, x := range iss {
		off[x.lane+1]++
	}
	off[nc+1] = int32(len(pre)) // lanes 0..nc-1 first, then pre
	for j := range nl {
		off[j+1] += off[j]
	}
	lane := append(s.laneFill[:0], off[:nl]...)
	s.laneFill = lane
	for _, x := range iss {
		p := lane[x.lane]
		ck.at[p], ck.end[p] = x.at, x.end
		lane[x.lane]++
	}
	for q, x := range pre {
		p := off[nc] + int32(q)
		ck.at[p], ck.end[p] = int32(x.at), x.end
	}

	// The in-flight runs per checkpoint: hi passes the copies issued
	// before op i, lo those ended by R.
	lo, hi := append(s.laneLo[:0], off[:nl]...), append(s.laneHi[:0], off[:nl]...)
	s.laneLo, s.laneHi = lo, hi
	hi[nc] = off[nl]
	q := 0 // iss[:q] are issued before op i
	for i := range ncp {
		for ; q < len(iss) && int(iss[q].i) < i; q++ {
			hi[iss[q].lane]++
		}
		last := ck.r[i]
		for j := range nl {
			for lo[j] < hi[j] && ck.end[lo[j]] <= ck.r[i] {
				lo[j]++
			}
			ck.lo[i*nl+j], ck.hi[i*nl+j] = lo[j], hi[j]
			if lo[j] < hi[j] {
				last = max(last, ck.end[hi[j]-1])
			}
		}
		ck.lastEnd[i] = last
	}
	return ck, r, adds
}

// sortSmall sorts a few numbers in place (insertion sort: C is small).
func sortSmall(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}
