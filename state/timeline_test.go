package state_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/internal/tlgen"
	"github.com/hieropt/hieropt/state"
)

// TestOccupancyAtTimeline: under the timeline model a segment occupies
// its range from its copy's start (a reservation) until the next
// segment's From - 1, and a resident constant's over the whole run.
func TestOccupancyAtTimeline(t *testing.T) {
	prog := testprog.New("p", 5).
		Block("a", 64, "activation", 0, 1, testprog.Reads(1)).
		Block("w", 32, "constant", 0, 3, testprog.Reads(3)).
		Block("r", 16, "constant", 2, 4, testprog.Reads(2, 4)).
		Block("x", 48, "activation", 2, 4, testprog.Reads(4)).
		Program()
	p := testprog.BindTimeline(prog, testprog.Profile("hw", fastSlow...))
	lay := state.NewLayout(4)
	lay.SetFirst(0, state.Seg{From: 0, Level: 0, Offset: 0})
	// w: in its home (SLOW) from 0, copied into FAST at 3, issued at 2.
	lay.SetFirst(1, state.Seg{From: 0, Level: 1, Offset: 0})
	lay.Segs[1] = append(lay.Segs[1], state.Seg{From: 3, Level: 0, Offset: 64, Lead: 1})
	// r resident in FAST at 128 (created at 2).
	lay.SetFirst(2, state.Seg{From: 2, Level: 0, Offset: 128, Lead: state.Resident})
	lay.SetFirst(3, state.Seg{From: 2, Level: 0, Offset: 160})
	require.NoError(t, lay.CheckComplete(p))

	want := map[int][]state.Span{
		0: {{Off: 0, End: 64, Block: 0}, {Off: 128, End: 144, Block: 2}},
		1: {{Off: 0, End: 64, Block: 0}, {Off: 128, End: 144, Block: 2}},
		2: {{Off: 64, End: 96, Block: 1}, {Off: 128, End: 144, Block: 2}, {Off: 160, End: 208, Block: 3}},
		3: {{Off: 64, End: 96, Block: 1}, {Off: 128, End: 144, Block: 2}, {Off: 160, End: 208, Block: 3}},
		4: {{Off: 128, End: 144, Block: 2}, {Off: 160, End: 208, Block: 3}},
	}
	for ts, fast := range want {
		o, err := state.OccupancyAt(p, lay, ts)
		require.NoError(t, err)
		assert.Equal(t, fast, spans(o, 0), "FAST at %d", ts)
		// w's home segment is busy until the copy's timestep - 1.
		slow := spans(o, 1)
		if ts <= 2 {
			assert.Equal(t, []state.Span{{Off: 0, End: 64, Block: 1}}, slow, "SLOW at %d", ts)
		} else {
			assert.Empty(t, slow, "SLOW at %d", ts)
		}
	}
	// A's space at 0-1 is free since 2 at timestep 2 (the log), and w's
	// source range in SLOW since 3 at 3.
	o, err := state.OccupancyAt(p, lay, 2)
	require.NoError(t, err)
	assert.Equal(t, 2, o.FreeSince(0, 0, 64))
	assert.Equal(t, 2-state.DefaultHorizon, o.FreeSince(0, 300, 400))
	o, err = state.OccupancyAt(p, lay, 3)
	require.NoError(t, err)
	assert.Equal(t, 3, o.FreeSince(1, 0, 64))

	// A copy's reservation is no reuse partner: x over w's reserved range
	// at 2 is an overlap.
	lay.SetFirst(3, state.Seg{From: 2, Level: 0, Offset: 64})
	_, err = state.OccupancyAt(p, lay, 2)
	require.EqualError(t, err, `timestep 2: blocks "w" and "x" share offset 64 of level "FAST" but neither may take over the other's space`)
	// Without the timeline's semantics, the same layout has no lead.
	require.Error(t, lay.CheckComplete(testprog.Bind(prog, testprog.Profile("hw", fastSlow...))))
}

// history is a brute-force record of a level's occupancy, timestep by
// timestep: which bytes were busy.
type history [][]bool // [t][byte]

// freeSince is FreeSince by brute force: one after the last timestep
// before t at which a byte of [off, end) was busy, at least t - horizon
// (a copy at t is issued at t - horizon at the earliest).
func (h history) freeSince(t int, off, end int64, horizon int) int {
	for u := t - 1; u >= 0 && u >= t-horizon; u-- {
		for x := off; x < end; x++ {
			if h[u][x] {
				return u + 1
			}
		}
	}
	return t - horizon
}

// TestFreeSinceLogModel walks random occupancies timestep by timestep
// (blocks placed where free, dropped some timesteps later, vacated by a
// move; clones taken and walked on independently) and checks FreeSince of
// random free ranges against the brute-force history of each copy; the
// log shares its entries between clones copy-on-write.
func TestFreeSinceLogModel(t *testing.T) {
	const capacity, T, horizon = 96, 60, 6
	prog := testprog.New("p", T)
	for i := range T {
		prog.Block("c"+string(rune('A'+i%26))+string(rune('a'+i/26)), int64(8*(1+i%4)), "activation", i, T-1)
	}
	p, err := state.Bind(prog.Program(), testprog.Profile("hw", testprog.Level{Name: "L", Capacity: capacity, Align: 8, Latency: 1, Bandwidth: 1}),
		"test", state.Semantics{Timeline: true, Horizon: horizon})
	require.NoError(t, err)
	checks := 0
	for run := range 20 {
		rng := rand.New(rand.NewPCG(15, uint64(run)))
		checks += walkFreeSince(t, p, rng, capacity, T, horizon)
	}
	require.Greater(t, checks, 5000)
}

// walkFreeSince is one random walk of TestFreeSinceLogModel; it returns
// the number of ranges checked.
func walkFreeSince(t *testing.T, p *state.Problem, rng *rand.Rand, capacity int64, T, horizon int) int {
	type walker struct {
		o     *state.Occupancy
		h     history
		where map[int]int64 // block -> offset, placed
	}
	walkers := []*walker{{o: state.NewOccupancy(p), where: map[int]int64{}}}
	checks := 0
	for ts := 0; ts < T; ts++ {
		for _, w := range walkers {
			w.o.Advance(ts)
			for b, off := range w.where {
				if rng.IntN(4) == 0 {
					if rng.IntN(2) == 0 {
						w.o.Drop(b, 0, off)
					} else {
						w.o.Vacate(b, 0, off)
					}
					delete(w.where, b)
				}
			}
			// Block ts (and, by block ID, nothing else) is placed where
			// free now, best fit.
			foot := p.Foot(ts, 0)
			w.o.FitGaps(0, foot, func(g state.Gap) bool {
				w.o.Place(ts, 0, g.Off)
				w.where[ts] = g.Off
				return false
			})
			row := make([]bool, capacity)
			for b, off := range w.where {
				for x := off; x < off+p.Foot(b, 0); x++ {
					row[x] = true
				}
			}
			w.h = append(w.h, row)
			// Random ranges free now.
			w.o.Gaps(0, func(g state.Gap) bool {
				off := g.Off + 8*rng.Int64N(g.Size()/8)
				end := off + 8*(1+rng.Int64N((g.End-off)/8))
				require.Equal(t, w.h.freeSince(ts, off, end, horizon), w.o.FreeSince(0, off, end), "timestep %d range [%d,%d)", ts, off, end)
				checks++
				return true
			})
		}
		if len(walkers) < 6 && rng.IntN(5) == 0 {
			w := walkers[rng.IntN(len(walkers))]
			c := &walker{o: w.o.Clone(), h: append(history(nil), w.h...), where: map[int]int64{}}
			for b, off := range w.where {
				c.where[b] = off
			}
			walkers = append(walkers, c)
		}
	}
	return checks
}

// TestOccupancyAtLogMatchesLayout rebuilds occupancies of random valid
// timeline layouts (internal/tlgen) at every timestep and checks the
// rebuilt log against the layout's history: FreeSince of every free range
// of a few bytes is one after the last timestep any segment occupied a
// byte of it (from OccStart to OccEnd), at least t - Horizon.
func TestOccupancyAtLogMatchesLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 10))
	checks := 0
	for n := 0; n < 300; {
		g, ok := tlgen.Random(rng, tlgen.Options{})
		if !ok {
			continue
		}
		n++
		p, err := state.Bind(g.Prog, g.Prof, "rnd", state.Semantics{Timeline: true, Horizon: 1 + rng.IntN(4)})
		require.NoError(t, err)
		lay, err := state.LayoutOf(p, g.Plan)
		require.NoError(t, err)
		T := p.Prog.Timesteps()
		for l := range p.Levels() {
			capacity := min(p.HW.Levels[l].Capacity, 4096)
			h := make(history, T)
			for ts := range h {
				h[ts] = make([]bool, capacity)
			}
			for b, segs := range lay.Segs {
				for i, s := range segs {
					if int(s.Level) != l {
						continue
					}
					for u := int(s.OccStart()); u <= state.OccEnd(p, b, segs, i); u++ {
						for x := s.Offset; x < min(s.Offset+p.Foot(b, l), capacity); x++ {
							h[u][x] = true
						}
					}
				}
			}
			for ts := range T {
				o, err := state.OccupancyAt(p, lay, ts)
				require.NoError(t, err)
				require.NoError(t, o.Check())
				for off := int64(0); off+16 <= capacity; off += 16 {
					if o.Free(l, off, off+16) {
						require.Equal(t, h.freeSince(ts, off, off+16, p.Horizon()), o.FreeSince(l, off, off+16), "level %d timestep %d [%d,+16)", l, ts, off)
						checks++
					}
				}
			}
		}
	}
	require.Greater(t, checks, 1000)
}
