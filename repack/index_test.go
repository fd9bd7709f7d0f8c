package repack

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSpanIndex: the index finds exactly the items a scan of all of them
// finds, on random lifetimes and windows (empty index included), with
// items in the tree and items added after it was built.
func TestSpanIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 200; round++ {
		n := rng.IntN(60)
		its := make([]item, n)
		for i := range its {
			a := rng.IntN(100)
			its[i] = item{from: a, to: a + rng.IntN(1+rng.IntN(40))}
		}
		// Some items in the tree, the rest added afterwards.
		m := rng.IntN(n + 1)
		x := newSpanIndex(its[:m])
		for i := m; i < n; i++ {
			x.add(int32(i), its[i].from, its[i].to)
		}
		for q := 0; q < 20; q++ {
			a := rng.IntN(110)
			b := a + rng.IntN(20)
			var want, got []int32
			for i, it := range its {
				if it.to >= a && it.from <= b {
					want = append(want, int32(i))
				}
			}
			x.each(a, b, func(k int32) { got = append(got, k) })
			slices.Sort(got)
			assert.Equal(t, want, got, "round %d window [%d, %d]", round, a, b)
		}
	}
}

// TestLiveTree: range additions and range maxima agree with an array
// updated and scanned one timestep at a time.
func TestLiveTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for round := 0; round < 100; round++ {
		n := 1 + rng.IntN(80)
		live := make([]int64, n)
		for i := range live {
			live[i] = rng.Int64N(1000)
		}
		x := newLiveTree(live)
		for q := 0; q < 40; q++ {
			a := rng.IntN(n)
			b := a + rng.IntN(n-a)
			if rng.IntN(2) == 0 {
				v := rng.Int64N(500)
				x.add(a, b, v)
				for i := a; i <= b; i++ {
					live[i] += v
				}
				continue
			}
			want := live[a]
			for i := a; i <= b; i++ {
				want = max(want, live[i])
			}
			assert.Equal(t, want, x.most(a, b), "round %d [%d, %d]", round, a, b)
		}
	}
}
