package pack

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInstSummaries: the demand per section, max-live, each buffer's
// busiest section (total) and conflict count (deg), which newInst derives
// from prefix sums and a range-maximum table without the cover lists, are
// those counted section by section over the cover lists.
func TestInstSummaries(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for iter := 0; iter < 200; iter++ {
		p := randomProblem(r, 1+r.IntN(120), iter%2 == 1)
		if iter%4 == 0 {
			p = compilerTrace(uint64(iter), 500)
		}
		in := newInst(p, never)
		require.True(t, in.ensureCover(never))
		var maxLive int64
		for s := int32(0); s < int32(in.ns); s++ {
			var d int64
			for _, b := range in.coverOf(s) {
				d += in.size[b]
			}
			require.Equal(t, d, in.demand[s], "iter %d section %d", iter, s)
			require.Equal(t, int32(len(in.coverOf(s))), in.counts[s])
			maxLive = max(maxLive, d)
		}
		require.Equal(t, maxLive, in.maxLive)
		require.Equal(t, MaxLive(p), in.maxLive)
		for b := int32(0); b < int32(in.n); b++ {
			var tot int64
			for s := in.lo[b]; s < in.hi[b]; s++ {
				tot = max(tot, in.demand[s])
			}
			require.Equal(t, tot, in.total[b], "iter %d buffer %d", iter, b)
			var deg int32
			for c := int32(0); c < int32(in.n); c++ {
				if c != b && in.lo[c] < in.hi[b] && in.lo[b] < in.hi[c] {
					deg++
				}
			}
			require.Equal(t, deg, in.deg[b], "iter %d buffer %d", iter, b)
		}
	}
}
