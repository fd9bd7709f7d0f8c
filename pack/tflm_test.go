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
