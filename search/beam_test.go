package search

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCheapest: the beam's first k states are those a full sort by cost
// (ties: creation order) puts first, in that order.
func TestCheapest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		n := rng.IntN(40)
		nodes := make([]*node, n)
		for i := range nodes {
			nodes[i] = &node{cost: float64(rng.IntN(8)), seq: rng.IntN(1000)*64 + i} // ties in cost, unique seq
		}
		want := slices.Clone(nodes)
		slices.SortFunc(want, func(a, b *node) int {
			return cmp.Or(cmp.Compare(a.cost, b.cost), cmp.Compare(a.seq, b.seq))
		})
		k := rng.IntN(6) - 1 // -1 and 0: all
		got := slices.Clone(nodes)
		cheapest(got, k)
		m := min(k, n)
		if k <= 0 {
			m = n
		}
		if !slices.Equal(got[:m], want[:m]) {
			t.Fatalf("round %d: k=%d n=%d: first %d differ", round, k, n, m)
		}
		if !slices.Equal(sortedSeqs(got), sortedSeqs(nodes)) {
			t.Fatalf("round %d: states lost or added", round)
		}
	}
}

func sortedSeqs(ns []*node) []int {
	var s []int
	for _, n := range ns {
		s = append(s, n.seq)
	}
	slices.Sort(s)
	return s
}
