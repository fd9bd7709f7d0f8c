package pack

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// bruteCheck is Check's oracle, written as plainly as the rules read:
// every offset non-negative, aligned and within the capacity, the peak
// the largest end, and no two buffers that are alive at a common time
// (lifetimes half-open: [lower, upper)) sharing a byte (extents half-open:
// [offset, offset+size)), every pair compared. It returns "" when the
// solution is valid, else the first rule broken.
func bruteCheck(p *Problem, s *Solution) string {
	var peak int64
	for i, b := range p.Buffers {
		o := s.Offsets[i]
		switch {
		case o < 0:
			return "negative"
		case b.Align > 1 && o%b.Align != 0:
			return "align"
		case p.Capacity > 0 && o+b.Size > p.Capacity:
			return "capacity"
		}
		peak = max(peak, o+b.Size)
	}
	if peak != s.Peak {
		return "peak"
	}
	for i, a := range p.Buffers {
		for j := i + 1; j < len(p.Buffers); j++ {
			b := p.Buffers[j]
			inTime := a.Lower < b.Upper && b.Lower < a.Upper
			inMemory := s.Offsets[i] < s.Offsets[j]+b.Size && s.Offsets[j] < s.Offsets[i]+a.Size
			if inTime && inMemory {
				return "overlap"
			}
		}
	}
	return ""
}

// TestCheckAgainstBruteForce compares Check with bruteCheck on many random
// small instances: a few buffers over a few time points and a few dozen
// bytes, so that lifetimes and extents often overlap, touch or nest, with
// either buffer first in time and either first in memory. The valid
// instances and the overlap cases of each kind are counted and must all
// occur, so that the comparison cannot pass by never meeting a case.
func TestCheckAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	var valid, overlaps, earlierLowerInMemory, laterLowerInMemory, touchInTime, touchInMemory int
	for iter := 0; iter < 40000; iter++ {
		p := &Problem{}
		if r.IntN(4) == 0 {
			p.Capacity = 4 + r.Int64N(12)
		}
		n := 1 + r.IntN(6)
		s := &Solution{}
		for i := 0; i < n; i++ {
			lower := r.Int64N(6)
			b := Buffer{ID: fmt.Sprint("b", i), Lower: lower, Upper: lower + 1 + r.Int64N(4), Size: 1 + r.Int64N(5)}
			if r.IntN(5) == 0 {
				b.Align = 1 + r.Int64N(4)
			}
			p.Buffers = append(p.Buffers, b)
			o := r.Int64N(12)
			if r.IntN(50) == 0 {
				o = -1
			}
			s.Offsets = append(s.Offsets, o)
		}
		s.Peak = peakOf(p, s.Offsets)
		if r.IntN(50) == 0 {
			s.Peak++
		}
		// What kinds of pairs this instance holds, for the counts.
		for i, a := range p.Buffers {
			for j, b := range p.Buffers {
				if i == j {
					continue
				}
				oa, ob := s.Offsets[i], s.Offsets[j]
				inTime := a.Lower < b.Upper && b.Lower < a.Upper
				inMemory := oa < ob+b.Size && ob < oa+a.Size
				switch {
				case inTime && inMemory && a.Lower < b.Lower && oa < ob:
					earlierLowerInMemory++
				case inTime && inMemory && a.Lower < b.Lower && oa > ob:
					laterLowerInMemory++
				case a.Upper == b.Lower && inMemory:
					touchInTime++
				case inTime && oa+a.Size == ob:
					touchInMemory++
				}
			}
		}
		want := bruteCheck(p, s)
		err := Check(p, s)
		if want == "" {
			require.NoError(t, err, "instance %d: %+v offsets %v", iter, p, s.Offsets)
			valid++
			continue
		}
		require.Error(t, err, "instance %d: %+v offsets %v: want %s", iter, p, s.Offsets, want)
		if want == "overlap" {
			require.True(t, strings.Contains(err.Error(), "overlap in time and memory"), "instance %d: %v", iter, err)
			overlaps++
		}
	}
	for name, n := range map[string]int{"valid": valid, "overlap": overlaps,
		"overlap, earlier buffer lower in memory": earlierLowerInMemory,
		"overlap, later buffer lower in memory":   laterLowerInMemory,
		"touching in time":                        touchInTime, "touching in memory": touchInMemory} {
		require.Greater(t, n, 100, "too few instances with %s", name)
	}
}
