package timeline

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomChange draws a change of b's program p: retimed ops, removed,
// added and moved copies, now and then at the first and the last op.
func randomChange(rng *rand.Rand, p *Program, rg regime) *Change {
	n := len(p.Compute)
	ch := &Change{}
	pickOp := func() int {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return n - 1
		}
		return rng.IntN(n)
	}
	used := map[int]bool{}
	for range rng.IntN(3) {
		t := pickOp()
		if used[t] {
			continue
		}
		used[t] = true
		o := OpChange{T: t, Compute: p.Compute[t], Memory: p.Memory[t]}
		switch rng.IntN(3) {
		case 0:
			o.Memory = randomTime(rng, rg.memory, rg.discrete)
		case 1:
			o.Compute = randomTime(rng, rg.compute, rg.discrete)
		default:
			o.Compute, o.Memory = 0, 0
		}
		ch.Ops = append(ch.Ops, o)
	}
	removed := map[int]bool{}
	if len(p.Copies) > 0 {
		for range rng.IntN(3) {
			k := rng.IntN(len(p.Copies))
			if removed[k] {
				continue
			}
			removed[k] = true
			ch.Removed = append(ch.Removed, p.Copies[k].Key())
			if rng.IntN(2) == 0 { // moved: the same copy, another start
				c := p.Copies[k]
				c.Start = rng.IntN(c.At + 1)
				ch.Added = append(ch.Added, c)
			}
		}
	}
	for range rng.IntN(3) {
		ch.Added = append(ch.Added, randomCopy(rng, n, rg, int64(len(p.Copies)+1+len(ch.Added))))
	}
	return ch
}

func TestRepriceMatchesSimulate(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var s Scratch
	calls, early := 0, 0
	for i := range rounds(1500) {
		rg := randomRegime(rng)
		p := randomProgram(rng, 1+rng.IntN(200), 1+rng.IntN(4), rg)
		b, err := NewBase(p)
		require.NoError(t, err)
		require.Equal(t, Simulate(p), b.Cost())
		for j := range 20 {
			ch := randomChange(rng, p, rg)
			require.NoError(t, b.CheckChange(ch), "program %d change %d", i, j)
			q := b.Apply(ch)
			require.NoError(t, q.Validate())
			want, _, _ := oracle(q)
			steps := s.Steps
			got := b.Reprice(ch, &s)
			require.LessOrEqual(t, relDiff(want, got), 1e-12, "program %d change %d: %+v: simulated %v, repriced %v", i, j, ch, want, got)
			calls++
			if s.Steps-steps < int64(len(p.Compute)) {
				early++
			}
		}
	}
	// The point of Reprice: most changes stop well before the end.
	t.Logf("%d of %d reprices stopped before the last op; mean %.1f ops simulated", early, calls, float64(s.Steps)/float64(s.Calls))
	assert.Greater(t, early, calls/2)
}

func TestRepriceConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	p := randomProgram(rng, 300, 2, computeBound)
	b, err := NewBase(p)
	require.NoError(t, err)
	changes := make([]*Change, 400)
	want := make([]float64, len(changes))
	for i := range changes {
		changes[i] = randomChange(rng, p, computeBound)
		want[i] = Simulate(b.Apply(changes[i]))
	}
	var wg sync.WaitGroup
	got := make([][]float64, 4)
	for g := range got {
		got[g] = make([]float64, len(changes))
		wg.Go(func() {
			var s Scratch
			for i := range changes {
				j := (i + g*97) % len(changes) // each goroutine in another order
				got[g][j] = b.Reprice(changes[j], &s)
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i := range changes {
			assert.LessOrEqual(t, relDiff(want[i], got[g][i]), 1e-12, "goroutine %d change %d", g, i)
		}
	}
}

// steady is n ops of compute 1, memory 0: compute-bound, nothing else.
func steady(n int) *Program {
	p := &Program{Compute: make([]float64, n), Memory: make([]float64, n), Channels: 1}
	for t := range n {
		p.Compute[t] = 1
	}
	return p
}

// One case per way Reprice ends.
func TestRepriceTermination(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     *Program
		ch    Change
		steps int64 // ops Reprice simulates
	}{
		{
			"nothing to change",
			steady(100), Change{}, 0,
		},
		{
			// Memory 0.5 under compute 1: d(50) unchanged, the state before
			// op 51 is the base's.
			"converges at once: the op's duration is unchanged",
			steady(100), Change{Ops: []OpChange{{T: 50, Compute: 1, Memory: 0.5}}}, 1,
		},
		{
			// Op 50 lasts 3 instead of 1: every later op moves by 2, and
			// the state before op 51 is the base's shifted by 2.
			"converges at once: a shift",
			steady(100), Change{Ops: []OpChange{{T: 50, Compute: 3}}}, 1,
		},
		{
			// A copy for the last op runs from 0 to 1000 on the only
			// channel: op 0's change moves R but not the copy's end, so the
			// states differ until the last op, which waits for the copy.
			"runs to the end when a channel stays busy",
			func() *Program {
				p := steady(100)
				p.Copies = []Copy{{Start: 0, At: 99, Time: 1000}}
				return p
			}(),
			Change{Ops: []OpChange{{T: 0, Compute: 2}}}, 100,
		},
		{
			// The copy for op 95, issued at op 10, ends at 10.5; moved to
			// op 90 it ends at 90.5. Op 10 runs, the state before op 11 is
			// the base's, so Reprice jumps to op 90, runs it, and stops.
			"jumps between the changed ops",
			func() *Program {
				p := steady(100)
				p.Copies = []Copy{{Start: 10, At: 95, Time: 0.5}}
				return p
			}(),
			Change{Removed: []CopyKey{{Start: 10, At: 95}}, Added: []Copy{{Start: 90, At: 95, Time: 0.5}}}, 2,
		},
		{
			// The same copy lasting 200 is still in flight when the moved
			// one is issued: no jump. Reprice runs from op 10 until op 95
			// has waited for the copy (its end 210 in the base, 290 in the
			// change); before op 96 the state is the base's shifted by 80.
			"no jump while the change is in flight",
			func() *Program {
				p := steady(100)
				p.Copies = []Copy{{Start: 10, At: 95, Time: 200}}
				return p
			}(),
			Change{Removed: []CopyKey{{Start: 10, At: 95}}, Added: []Copy{{Start: 90, At: 95, Time: 200}}}, 86,
		},
		{
			// Ops of 0.1 and copies of 0.15 for two ops later, one channel:
			// DMA-bound, every op waits. Op 10 lasting 0.2 shifts the state
			// by 0.1 until the stalls absorb it; the state before op 13
			// equals the base's shifted, but the offsets from R of the
			// copies in flight, computed from R shifted by 0.1 in floating
			// point, differ from the base's by an ulp: with an exact
			// comparison Reprice would run one op more.
			"rejoins despite rounding",
			func() *Program {
				p := steady(100)
				for t := range p.Compute {
					p.Compute[t] = 0.1
					if t+2 < len(p.Compute) {
						p.Copies = append(p.Copies, Copy{Start: t, At: t + 2, Rank: int64(t), Time: 0.15})
					}
				}
				return p
			}(),
			Change{Ops: []OpChange{{T: 10, Compute: 0.2}}}, 3,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBase(tc.p)
			require.NoError(t, err)
			var s Scratch
			got := b.Reprice(&tc.ch, &s)
			want, _, _ := oracle(b.Apply(&tc.ch))
			assert.LessOrEqual(t, relDiff(want, got), 1e-12, "simulated %v, repriced %v", want, got)
			assert.Equal(t, tc.steps, s.Steps)
			assert.Equal(t, int64(1), s.Calls)
		})
	}
}

func TestRepriceAllocatesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	p := randomProgram(rng, 1000, 2, dmaBound)
	b, err := NewBase(p)
	require.NoError(t, err)
	changes := make([]*Change, 50)
	for i := range changes {
		changes[i] = randomChange(rng, p, dmaBound)
	}
	var s Scratch
	for _, ch := range changes {
		b.Reprice(ch, &s) // grow the buffers
	}
	i := 0
	assert.Zero(t, testing.AllocsPerRun(200, func() {
		b.Reprice(changes[i%len(changes)], &s)
		i++
	}))
}

func TestCheckChange(t *testing.T) {
	p := &Program{
		Compute: []float64{1, 1, 1}, Memory: []float64{0, 0, 0}, Channels: 1,
		Copies: []Copy{{Start: 0, At: 2, Rank: 1, Time: 1}, {Start: 1, At: 1, Rank: 2, Time: 1}},
	}
	b, err := NewBase(p)
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		ch    Change
		error string // "" for a valid change
	}{
		{"empty", Change{}, ""},
		{"op out of range", Change{Ops: []OpChange{{T: 3}}}, "op 3 out of range [0, 3)"},
		{"op twice", Change{Ops: []OpChange{{T: 1}, {T: 1, Compute: 2}}}, "op 1 changed twice"},
		{"negative op time", Change{Ops: []OpChange{{T: 1, Memory: -2}}}, "op 1: compute 0, memory -2"},
		{"removed not in the base", Change{Removed: []CopyKey{{Start: 0, At: 2, Rank: 2}}}, "removed copy with start 0, at 2, rank 2 is not in the base"},
		{"removed out of range", Change{Removed: []CopyKey{{Start: 3, At: 3}}}, "removed copy with start 3, at 3, rank 0 is not in the base"},
		{"removed twice", Change{Removed: []CopyKey{{Start: 1, At: 1, Rank: 2}, {Start: 1, At: 1, Rank: 2}}}, "copy with start 1, at 1, rank 2 removed twice"},
		{"added outside", Change{Added: []Copy{{Start: 2, At: 1}}}, "added copy: start 2, at 1"},
		{"added twice", Change{Added: []Copy{{Start: 0, At: 1}, {Start: 0, At: 1}}}, "two added copies with start 0, at 1, rank 0"},
		{"added is kept base copy", Change{Added: []Copy{{Start: 1, At: 1, Rank: 2}}}, "start 1, at 1, rank 2 is a kept base copy"},
		{"added replaces removed base copy", Change{Removed: []CopyKey{{Start: 1, At: 1, Rank: 2}}, Added: []Copy{{Start: 1, At: 1, Rank: 2, Time: 5}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := b.CheckChange(&tc.ch)
			if tc.error == "" {
				require.NoError(t, err)
				var s Scratch
				assert.Equal(t, Simulate(b.Apply(&tc.ch)), b.Reprice(&tc.ch, &s))
				return
			}
			assert.ErrorContains(t, err, tc.error)
			assert.PanicsWithError(t, err.Error(), func() { b.Reprice(&tc.ch, &Scratch{}) })
		})
	}
}

func TestNewBaseRejectsInvalidProgram(t *testing.T) {
	_, err := NewBase(&Program{Compute: []float64{1}, Memory: []float64{1}, Channels: 0})
	assert.ErrorContains(t, err, "0 DMA channels")
}
