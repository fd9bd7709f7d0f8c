package timeline

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Copy is one transfer or load: a copy issued at the beginning of op Start
// that op At waits for (FORMATS.md 6.2: transfers[].start and at).
type Copy struct {
	// Start is the op at whose beginning the copy is issued, At the op
	// that waits for its end: 0 <= Start <= At < n. A copy with
	// Start == At is issued just before op At, which waits for it.
	Start, At int
	// Rank orders the copies that share a Start and an At. FORMATS.md
	// orders them by block name; the caller passes any rank consistent
	// with that, e.g. the block's index in name order. Two copies with
	// the same (Start, At, Rank) are an error (Validate), because their
	// order changes the cost.
	Rank int64
	// Time is x(k) = out(from level, size) + in(to level, size), >= 0.
	Time float64
}

// Program is what the timeline of one plan needs: per op its compute time
// c(t) and memory time m(t) (an op lasts d(t) = max(c(t), m(t))), the
// copies, and the number of DMA channels.
type Program struct {
	Compute  []float64 // c(t) per op, >= 0
	Memory   []float64 // m(t) per op, >= 0; len(Memory) == len(Compute)
	Copies   []Copy    // in any order; Simulate is fastest in issue order (see SortCopies)
	Channels int       // C >= 1
}

// Len is the number of ops n.
func (p *Program) Len() int { return len(p.Compute) }

// Dur is d(t) = max(c(t), m(t)).
func (p *Program) Dur(t int) float64 { return max(p.Compute[t], p.Memory[t]) }

// issueCmp is the order in which FORMATS.md 6.3 issues copies: by Start,
// then (at, block name), the rank standing for the name.
func issueCmp(a, b *Copy) int {
	if c := cmp.Compare(a.Start, b.Start); c != 0 {
		return c
	}
	if c := cmp.Compare(a.At, b.At); c != 0 {
		return c
	}
	return cmp.Compare(a.Rank, b.Rank)
}

// SortCopies puts p.Copies in issue order (Start, At, Rank), the order in
// which Simulate reads them without an index of its own.
func (p *Program) SortCopies() {
	slices.SortStableFunc(p.Copies, func(a, b Copy) int { return issueCmp(&a, &b) })
}

// inIssueOrder reports whether p.Copies is sorted by (Start, At, Rank).
func inIssueOrder(cs []Copy) bool {
	for k := 1; k < len(cs); k++ {
		if issueCmp(&cs[k-1], &cs[k]) > 0 {
			return false
		}
	}
	return true
}

// nonNeg reports whether x is a finite number >= 0.
func nonNeg(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }

// Validate checks the program: at least one channel, as many memory times
// as compute times, every time finite and >= 0, every copy within
// 0 <= Start <= At < n, and no two copies with the same (Start, At, Rank).
// Simulate, Breakdown and NewBase assume a valid program.
func (p *Program) Validate() error {
	n := len(p.Compute)
	if p.Channels < 1 {
		return fmt.Errorf("timeline: %d DMA channels (rule: at least 1)", p.Channels)
	}
	if len(p.Memory) != n {
		return fmt.Errorf("timeline: %d compute times but %d memory times (rule: one of each per op)", n, len(p.Memory))
	}
	for t := range n {
		if !nonNeg(p.Compute[t]) || !nonNeg(p.Memory[t]) {
			return fmt.Errorf("timeline: op %d: compute %v, memory %v (rule: finite and >= 0)", t, p.Compute[t], p.Memory[t])
		}
	}
	for k := range p.Copies {
		if err := checkCopy(&p.Copies[k], n); err != nil {
			return fmt.Errorf("timeline: copy %d: %w", k, err)
		}
	}
	idx := make([]int, len(p.Copies))
	for k := range idx {
		idx[k] = k
	}
	slices.SortFunc(idx, func(a, b int) int { return issueCmp(&p.Copies[a], &p.Copies[b]) })
	for i := 1; i < len(idx); i++ {
		a, b := &p.Copies[idx[i-1]], &p.Copies[idx[i]]
		if issueCmp(a, b) == 0 {
			return fmt.Errorf("timeline: copies %d and %d: both start %d, at %d, rank %d (rule: (start, at, rank) unique)",
				min(idx[i-1], idx[i]), max(idx[i-1], idx[i]), a.Start, a.At, a.Rank)
		}
	}
	return nil
}

func checkCopy(c *Copy, n int) error {
	if c.Start < 0 || c.Start > c.At || c.At >= n {
		return fmt.Errorf("start %d, at %d (rule: 0 <= start <= at < %d ops)", c.Start, c.At, n)
	}
	if !nonNeg(c.Time) {
		return fmt.Errorf("time %v (rule: finite and >= 0)", c.Time)
	}
	return nil
}

// Simulate returns the cost of a valid program: the time at which its last
// op ends (FORMATS.md 6.3). It allocates; Scratch.Simulate does not once
// its buffers have grown.
func Simulate(p *Program) float64 {
	var s Scratch
	return s.Simulate(p)
}

// Simulate is the package's Simulate with s's buffers.
func (s *Scratch) Simulate(p *Program) float64 {
	n := len(p.Compute)
	s.ready = growZero(s.ready, n) // ready[a]: the latest end of a copy op a waits for
	s.f = growZero(s.f, p.Channels)
	ready, f := s.ready, s.f
	cs := p.Copies
	var order []int32
	if !inIssueOrder(cs) {
		order = s.issueOrder(cs)
	}
	r := 0.0
	k := 0
	for t := range n {
		for ; k < len(cs); k++ {
			c := &cs[k]
			if order != nil {
				c = &cs[order[k]]
			}
			if c.Start != t {
				break
			}
			j := argmin(f)
			e := max(r, f[j]) + c.Time
			f[j] = e
			ready[c.At] = max(ready[c.At], e)
		}
		r = max(r, ready[t]) + max(p.Compute[t], p.Memory[t])
	}
	return r
}

// issueOrder returns the indexes of cs in issue order, in s's buffer.
func (s *Scratch) issueOrder(cs []Copy) []int32 {
	s.order = grow(s.order, len(cs))
	for k := range s.order {
		s.order[k] = int32(k)
	}
	slices.SortFunc(s.order, func(a, b int32) int { return issueCmp(&cs[a], &cs[b]) })
	return s.order
}

// argmin is the channel with the least finish time, the lowest index on
// ties (FORMATS.md 6.3).
func argmin(f []float64) int {
	j := 0
	for i := 1; i < len(f); i++ {
		if f[i] < f[j] {
			j = i
		}
	}
	return j
}

// grow returns a slice of length n, reusing b's array when it is large
// enough; the contents are unspecified.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// growZero is grow with every element zero.
func growZero[T any](b []T, n int) []T {
	b = grow(b, n)
	clear(b)
	return b
}
