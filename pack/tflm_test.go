package pack

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// tflmProblem builds buffers from TFLM's (size, first, last) triples:
// inclusive lifetimes, as TFLM's AddBuffer takes them.
func tflmProblem(b ...[3]int64) *Problem {
	p := &Problem{}
	for i, x := range b {
		p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprint(i), Size: x[0], Lower: x[1], Upper: x[2] + 1})
	}
	return p
}

// The cases of TFLM's own greedy_memory_planner_test.cc, with the offsets
// and arena sizes it expects.
func TestTFLMMatchesTheRuntimesTests(t *testing.T) {
	offs, peak := TFLM(tflmProblem([3]int64{10, 0, 1}, [3]int64{20, 2, 3}), nil, nil)
	require.Equal(t, []int64{0, 0}, offs)
	require.EqualValues(t, 20, peak)

	// TestGreedyMedium.
	offs, peak = TFLM(tflmProblem([3]int64{10, 0, 1}, [3]int64{20, 1, 2}, [3]int64{30, 2, 3}, [3]int64{40, 3, 4}, [3]int64{50, 0, 1}), nil, nil)
	require.Equal(t, []int64{50, 70, 40, 0, 0}, offs)
	require.EqualValues(t, 90, peak)

	// TestOverlapCase.
	_, peak = TFLM(tflmProblem([3]int64{100, 0, 1}, [3]int64{50, 2, 3}, [3]int64{20, 1, 2}), nil, nil)
	require.EqualValues(t, 120, peak)
}

// Ties in size go in decreasing input order, and a gap is taken at the
// first (lowest) place it fits, not the tightest: what TFLM does and a
// best-fit greedy by size does not.
func TestTFLMOrderAndFirstFit(t *testing.T) {
	// 0 and 1 tie: 1 goes first, at 0; 0 above it.
	offs, _ := TFLM(tflmProblem([3]int64{16, 0, 1}, [3]int64{16, 1, 2}), nil, nil)
	require.Equal(t, []int64{16, 0}, offs)
	// a (64, 0..0) at 0, b (64, 2..2) at 0, c (128, 1..1) at 0; then
	// d (32, 0..2) meets all three: above c at 128. e (16, 1..1) meets c
	// and d: at 160.
	offs, peak := TFLM(tflmProblem([3]int64{64, 0, 0}, [3]int64{64, 2, 2}, [3]int64{128, 1, 1}, [3]int64{32, 0, 2}, [3]int64{16, 1, 1}), nil, nil)
	require.Equal(t, []int64{0, 0, 0, 128, 160}, offs)
	require.EqualValues(t, 176, peak)
	// First fit: with x (32 at 0..1) fixed at 64 and y (32 at 0..1)
	// fixed at 160, a 32-byte buffer alive then takes the gap [0, 64)
	// first, the next [96, 160): first fit walks up from 0.
	offs, peak = TFLM(tflmProblem([3]int64{32, 0, 1}, [3]int64{32, 0, 1}, [3]int64{64, 0, 1}, [3]int64{48, 0, 1}), []int64{64, 160, -1, -1}, nil)
	require.Equal(t, []int64{64, 160, 0, 96}, offs)
	require.EqualValues(t, 192, peak)
}

// TFLM's packing is always valid, and fixed buffers keep their offsets.
func TestTFLMRandomValid(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for range 200 {
		n := 1 + r.IntN(40)
		p := &Problem{}
		fixed := make([]int64, n)
		var top int64
		for i := range n {
			lo := r.Int64N(20)
			p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprint(i), Lower: lo, Upper: lo + 1 + r.Int64N(8), Size: 16 * (1 + r.Int64N(10))})
			fixed[i] = -1
			if r.IntN(4) == 0 {
				// Fixed buffers stacked apart from each other.
				fixed[i] = top
				top += p.Buffers[i].Size
			}
		}
		offs, peak := TFLM(p, fixed, nil)
		require.NoError(t, Check(p, &Solution{Offsets: offs, Peak: peak}))
		for i, f := range fixed {
			if f >= 0 {
				require.Equal(t, f, offs[i])
			}
		}
	}
}

func TestTFLMStops(t *testing.T) {
	p := &Problem{}
	for i := range 1000 {
		p.Buffers = append(p.Buffers, Buffer{Lower: int64(i), Upper: int64(i + 2), Size: 16})
	}
	offs, peak := TFLM(p, nil, func() bool { return true })
	require.Nil(t, offs)
	require.EqualValues(t, -1, peak)
}

// TFLMAligned rounds sizes up to a multiple of every alignment before
// TFLM's walk, so that its offsets are aligned, and takes the peak with the
// sizes as given. a (24 B, align 8) and b (16 B, align 16) live together;
// c (40 B) after them. Rounded to 16: a 32, b 16, c 48. TFLM: c (48) at 0,
// a (32) at 0, b (16) above a at 32. Peak with the real sizes: b's end,
// 48 (a ends at 24, c at 40).
func TestTFLMAligned(t *testing.T) {
	p := &Problem{Buffers: []Buffer{
		{ID: "a", Lower: 0, Upper: 2, Size: 24, Align: 8},
		{ID: "b", Lower: 0, Upper: 2, Size: 16, Align: 16},
		{ID: "c", Lower: 2, Upper: 3, Size: 40},
	}}
	offs, peak, err := TFLMAligned(p, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{0, 32, 0}, offs)
	require.EqualValues(t, 48, peak)
	require.NoError(t, Check(p, &Solution{Offsets: offs, Peak: peak}))
	// TFLM on the sizes as given puts b at 24, not a multiple of 16.
	raw, _ := TFLM(p, nil, nil)
	require.Equal(t, []int64{0, 24, 0}, raw)
	require.Equal(t, []int64{24, 16, 40}, []int64{p.Buffers[0].Size, p.Buffers[1].Size, p.Buffers[2].Size}, "p unchanged")

	// Without alignments it is TFLM.
	q := tflmProblem([3]int64{10, 0, 1}, [3]int64{20, 1, 2}, [3]int64{30, 2, 3}, [3]int64{40, 3, 4}, [3]int64{50, 0, 1})
	offs, peak, err = TFLMAligned(q, nil)
	require.NoError(t, err)
	want, wantPeak := TFLM(q, nil, nil)
	require.Equal(t, want, offs)
	require.Equal(t, wantPeak, peak)

	// Cut by stop, as TFLM.
	big := &Problem{}
	for i := range 1000 {
		big.Buffers = append(big.Buffers, Buffer{Lower: int64(i), Upper: int64(i + 2), Size: 10, Align: 4})
	}
	offs, peak, err = TFLMAligned(big, func() bool { return true })
	require.NoError(t, err)
	require.Nil(t, offs)
	require.EqualValues(t, -1, peak)

	// Coprime alignments 2^31-1, 2^31-19 and 3: their least common
	// multiple overflows; with the first two only, three sizes rounded to
	// it (about 2^62 each) add up beyond 2^63.
	_, _, err = TFLMAligned(&Problem{Buffers: []Buffer{{ID: "x", Upper: 1, Size: 1, Align: 1<<31 - 1}, {ID: "y", Upper: 1, Size: 1, Align: 1<<31 - 19}, {ID: "z", Upper: 1, Size: 1, Align: 3}}}, nil)
	require.ErrorContains(t, err, "least common multiple overflows")
	_, _, err = TFLMAligned(&Problem{Buffers: []Buffer{{ID: "x", Upper: 1, Size: 1, Align: 1<<31 - 1}, {ID: "y", Upper: 1, Size: 1, Align: 1<<31 - 19}, {ID: "z", Upper: 1, Size: 1}}}, nil)
	require.ErrorContains(t, err, "add up beyond")
}

// TestTFLMMatchesScan: TFLM's offsets, found in an occupancy tree, are
// those of the runtime's walk over the placed buffers (tflmScan), with
// fixed buffers (overlapping each other too), ties in size, and empty
// lifetimes and sizes (which take the walk).
func TestTFLMMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := range 400 {
		n := 1 + r.IntN(60)
		p := &Problem{}
		fixed := make([]int64, n)
		for i := range n {
			lo := r.Int64N(30)
			up := lo + 1 + r.Int64N(10)
			if iter%10 == 9 && r.IntN(8) == 0 {
				up = lo // empty lifetime
			}
			size := 16 * (1 + r.Int64N(6))
			if iter%10 == 8 && r.IntN(8) == 0 {
				size = 0
			}
			p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprint(i), Lower: lo, Upper: up, Size: size})
			fixed[i] = -1
			if iter%2 == 1 && r.IntN(5) == 0 {
				fixed[i] = 16 * r.Int64N(20)
			}
		}
		want, wantPeak := tflm(p, fixed, nil, tflmWalk)
		got, peak := tflm(p, fixed, nil, tflmTree)
		require.Equal(t, want, got, "iter %d", iter)
		require.Equal(t, wantPeak, peak, "iter %d", iter)
		if iter%2 == 0 {
			want, wantPeak = tflm(p, nil, nil, tflmWalk)
			got, peak = tflm(p, nil, nil, tflmTree)
			require.Equal(t, want, got, "iter %d", iter)
			require.Equal(t, wantPeak, peak, "iter %d", iter)
		}
	}
}
