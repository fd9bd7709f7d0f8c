package actions

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/internal/testprog"
)

// refLateness is lateness as it was before the lookback (commit cff4590):
// the copies, and extra if not nil, sorted at each call.
func refLateness(in *Initializer, cs []pending, extra *pending, lo, at int) float64 {
	if extra != nil {
		cs = append(cs[:len(cs):len(cs)], *extra)
	}
	slices.SortFunc(cs, func(a, b pending) int {
		return cmp.Or(cmp.Compare(max(a.start, lo), max(b.start, lo)), cmp.Compare(a.at, b.at), cmp.Compare(a.rank, b.rank))
	})
	free := make([]float64, in.p.HW.Channels())
	ends := make([]float64, len(cs))
	r := 0.0
	k := 0
	for u := lo; u <= at; u++ {
		for ; k < len(cs) && max(cs[k].start, lo) == u; k++ {
			j := 0
			for c := range free {
				if free[c] < free[j] {
					j = c
				}
			}
			free[j] = max(r, free[j]) + cs[k].x
			ends[k] = free[j]
		}
		ready := r
		for i := range k {
			if cs[i].at == u {
				ready = max(ready, ends[i])
			}
		}
		r = ready + in.tl.dsum[u+1] - in.tl.dsum[u]
	}
	return r
}

// TestLatenessAsSorted: on random copies (a block's at most once per
// timestep, starts before the window too) and random op times, 1-3
// channels, lateness over the copies sorted once and latenessWith each
// candidate inserted give bit for bit what sorting them all at each call
// gave, a candidate equal in order to a stale copy of its block included
// (more copies than the sort's insertion-sort cutoff, so that its order
// of equal elements is not the stable one).
func TestLatenessAsSorted(t *testing.T) {
	const T = 100
	b := testprog.New("lateness", T)
	for u := range T {
		b.Block(fmt.Sprintf("a%d", u), 64, "activation", u, u)
	}
	prog := b.Program()
	ties := 0
	for seed := range 400 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x1a7e))
		prof := testprog.Profile("p", testprog.Level{Name: "FAST", Capacity: 1 << 20, Align: 1, Latency: 1, Bandwidth: 8}, testprog.Level{Name: "SLOW", Capacity: 1 << 30, Align: 1, Latency: 50, Bandwidth: 1})
		prof.DMA.Channels = 1 + rng.IntN(3)
		p := testprog.BindTimeline(prog, prof)
		in := NewInitializer(p)
		for u := range T {
			in.tl.dsum[u+1] = in.tl.dsum[u] + rng.Float64()*100
		}
		H := 1 + rng.IntN(40)
		at := rng.IntN(T)
		lo := max(0, at-2*H)
		var cs []pending
		for range rng.IntN(60) {
			u := lo + rng.IntN(at-lo+1)
			c := pending{start: max(0, u-rng.IntN(H+1)), at: u, rank: rng.IntN(1000), x: rng.Float64() * 300}
			if !slices.ContainsFunc(cs, func(d pending) bool { return d.at == c.at && d.rank == c.rank }) {
				cs = append(cs, c)
			}
		}
		ref := slices.Clone(cs)
		want := refLateness(in, ref, nil, lo, at)
		w := &lookback{}
		sorted := slices.Clone(cs)
		slices.SortFunc(sorted, pendingOrder(lo))
		require.Equal(t, want, w.lateness(in, sorted, lo, at), "seed %d: base", seed)
		for range 4 {
			e := pending{start: max(0, at-rng.IntN(H+1)), at: at, rank: rng.IntN(1000), x: rng.Float64() * 300}
			if rng.IntN(3) == 0 {
				// A stale copy of e's block at its timestep, equal in order.
				for _, c := range ref {
					if c.at == at {
						e.start, e.rank = max(c.start, lo), c.rank
						ties++
						break
					}
				}
			} else if slices.ContainsFunc(cs, func(d pending) bool { return d.at == e.at && d.rank == e.rank }) {
				continue
			}
			require.Equal(t, refLateness(in, ref, &e, lo, at), w.latenessWith(in, sorted, e, lo, at), "seed %d: with %+v", seed, e)
		}
	}
	require.Positive(t, ties)
}
