package timeline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chainChange draws a change of program p as randomChange does (ops
// retimed, copies removed, moved and added, now and then at the first and
// the last op), with ops near chunk boundaries now and then, and with
// ranks for the new copies that no copy has had before (*rank counts
// them), so that a chain of changes never adds a key twice.
func chainChange(rng *rand.Rand, p *Program, rg regime, rank *int64) *Change {
	ch := randomChange(rng, p, rg)
	// randomChange adds the moved copies (their rank kept) as it removes
	// them, then the new ones.
	moved := 0
	for _, k := range ch.Removed {
		if moved < len(ch.Added) && ch.Added[moved].At == k.At && ch.Added[moved].Rank == k.Rank {
			moved++
		}
	}
	for i := moved; i < len(ch.Added); i++ {
		ch.Added[i].Rank = *rank
		*rank++
	}
	n := len(p.Compute)
	if n > chunkLen && rng.IntN(4) == 0 {
		t := []int{chunkLen - 1, chunkLen, n - n%chunkLen, n - n%chunkLen - 1}[rng.IntN(4)]
		if t < n && !slices.ContainsFunc(ch.Ops, func(o OpChange) bool { return o.T == t }) {
			ch.Ops = append(ch.Ops, OpChange{T: t, Compute: randomTime(rng, rg.compute, rg.discrete), Memory: p.Memory[t]})
		}
	}
	return ch
}

// ckOf is chunk ci of b with the offset b adds to its times.
func ckOf(b *Base, ci int) ckRef {
	ck, off := b.chunk(ci)
	return ckRef{ck, off}
}

// canonical is the canonical state of a base before op t (the package
// doc): R, the channels' clamped finish times as offsets from R,
// ascending, and per op the latest end in flight as an offset from R.
type canonical struct {
	r       float64
	fc      []float64
	pending map[int]float64
}

// canonicalAt reads b's checkpoint before op t. It panics if a copy the
// checkpoint holds in flight has ended by R.
func canonicalAt(b *Base, t int) canonical {
	ck, off, i := b.ckAt(t)
	nc, nl := b.c, b.c+1
	c := canonical{r: ck.r[i] + off, pending: map[int]float64{}}
	for _, x := range ck.fc[i*nc : (i+1)*nc] {
		c.fc = append(c.fc, x-ck.r[i])
	}
	for j := range nl {
		for p := ck.lo[i*nl+j]; p < ck.hi[i*nl+j]; p++ {
			a := int(ck.at[p])
			if ck.end[p] <= ck.r[i] {
				panic(fmt.Sprintf("checkpoint %d: copy for op %d in flight, ended at %v <= R = %v", t, a, ck.end[p], ck.r[i]))
			}
			c.pending[a] = max(c.pending[a], ck.end[p]-ck.r[i])
		}
	}
	return c
}

// requireSameBase checks that got, a derived base, is want, a base built
// from scratch for the same program: the same program, costs within
// 1e-12 relative, and checkpoint for checkpoint the same canonical state,
// each time within 1e-12 of the cost.
func requireSameBase(t *testing.T, want, got *Base, msg string) {
	t.Helper()
	require.Equal(t, want.Program(), got.Program(), msg)
	require.LessOrEqual(t, relDiff(want.Cost(), got.Cost()), 1e-12, "%s: cost %v, derived %v", msg, want.Cost(), got.Cost())
	tol := 1e-12 * max(want.Cost(), 1)
	near := func(x, y float64) bool { return math.Abs(x-y) <= tol }
	for op := 0; op <= want.n; op++ {
		w, g := canonicalAt(want, op), canonicalAt(got, op)
		if !near(w.r, g.r) || !slices.EqualFunc(w.fc, g.fc, near) {
			t.Fatalf("%s: before op %d: R %v, channels %v; derived: %v, %v", msg, op, w.r, w.fc, g.r, g.fc)
		}
		for a, x := range w.pending {
			if !near(x, g.pending[a]) {
				t.Fatalf("%s: before op %d: in flight for op %d: %v; derived: %v", msg, op, a, x, g.pending[a])
			}
		}
		for a, x := range g.pending {
			if !near(x, w.pending[a]) {
				t.Fatalf("%s: before op %d: in flight for op %d: %v; derived: %v", msg, op, a, w.pending[a], x)
			}
		}
	}
}

// A chain of 1 to 50 derived bases, each from the one before by a random
// change, equals NewBase of the same program: cost, checkpoints, and the
// prices Reprice gives to further changes. Programs of up to 400 ops are
// one group of chunks; every tenth program has 1,000 to 4,000 ops, up to
// four groups.
func TestDeriveChainMatchesNewBase(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var s Scratch
	shared, chunks := 0, 0
	for i := range rounds(150) {
		rg := randomRegime(rng)
		n := 1 + rng.IntN(400)
		if i%10 == 0 { // several groups of chunks
			n = 1000 + rng.IntN(3000)
		}
		p := randomProgram(rng, n, 1+rng.IntN(4), rg)
		rank := int64(len(p.Copies) + 1)
		b, err := NewBase(p)
		require.NoError(t, err)
		for j := range 1 + rng.IntN(50) {
			msg := fmt.Sprintf("program %d derive %d", i, j)
			prog := b.Program()
			ch := chainChange(rng, prog, rg, &rank)
			d, err := b.Derive(ch)
			require.NoError(t, err, msg)
			want, err := NewBase(b.Apply(ch))
			require.NoError(t, err, msg)
			requireSameBase(t, want, d, msg)
			want0 := Simulate(b.Apply(ch))
			require.LessOrEqual(t, relDiff(want0, d.Cost()), 1e-12, msg)
			// The chunks before the first the change touches are b's.
			first := d.nch
			for _, o := range ch.Ops {
				first = min(first, o.T>>chunkShift)
			}
			for _, k := range ch.Removed {
				first = min(first, k.Start>>chunkShift)
			}
			for _, c := range ch.Added {
				first = min(first, c.Start>>chunkShift)
			}
			for k := range d.nch {
				if k < first {
					require.Equal(t, ckOf(b, k), ckOf(d, k), "%s: chunk %d", msg, k)
					require.Same(t, b.prog(k), d.prog(k), "%s: chunk %d", msg, k)
				}
				if ckOf(d, k).ck == ckOf(b, k).ck {
					shared++
				}
				chunks++
			}

			// Reprice on the derived base as on the fresh one.
			q := d.Program()
			for range 3 {
				c2 := chainChange(rng, q, rg, &rank)
				require.NoError(t, d.CheckChange(c2), msg)
				sim := Simulate(d.Apply(c2))
				got := d.Reprice(c2, &s)
				require.LessOrEqual(t, relDiff(sim, got), 1e-12, "%s: %+v: simulated %v, repriced %v", msg, c2, sim, got)
				require.LessOrEqual(t, relDiff(want.Reprice(c2, &s), got), 1e-12, msg)
			}
			b = d
		}
	}
	t.Logf("%d of %d chunks shared with the parent", shared, chunks)
}

// Derive changes what a change touches and shares the rest.
func TestDeriveShares(t *testing.T) {
	const n = 3000 // three groups of chunks
	p := steady(n)
	for t := 0; t+3 < n; t += 2 {
		p.Copies = append(p.Copies, Copy{Start: t, At: t + 3, Rank: int64(t), Time: 1.5})
	}
	b, err := NewBase(p)
	require.NoError(t, err)
	nch := b.nch
	require.Equal(t, n/chunkLen+1, nch)
	require.Len(t, b.groups, 3)

	// Op 200 lasting 3 instead of 1 shifts every later op by 2: the
	// chunks before op 200's stay as they are, op 200's is simulated, the
	// later ones are b's, offset by 2: those in op 200's group each, the
	// later groups as a whole.
	c200 := 200 >> chunkShift
	d, err := b.Derive(&Change{Ops: []OpChange{{T: 200, Compute: 3}}})
	require.NoError(t, err)
	assert.Equal(t, b.Cost()+2, d.Cost())
	for k := range nch {
		switch {
		case k == c200:
			assert.NotSame(t, ckOf(b, k).ck, ckOf(d, k).ck, "chunk %d", k)
			assert.NotSame(t, b.prog(k), d.prog(k), "chunk %d", k)
			assert.Zero(t, ckOf(d, k).off)
		case k < c200:
			assert.Equal(t, ckOf(b, k), ckOf(d, k), "chunk %d", k)
			assert.Same(t, b.prog(k), d.prog(k), "chunk %d", k)
		default:
			assert.Same(t, ckOf(b, k).ck, ckOf(d, k).ck, "chunk %d", k)
			assert.Equal(t, 2.0, ckOf(d, k).off, "chunk %d", k)
			assert.Same(t, b.prog(k), d.prog(k), "chunk %d", k)
		}
	}
	assert.NotSame(t, b.groups[0].g, d.groups[0].g)
	for gi := 1; gi < 3; gi++ {
		assert.Equal(t, groupRef{b.groups[gi].g, 2}, d.groups[gi], "group %d", gi)
	}
	want, err := NewBase(d.Program())
	require.NoError(t, err)
	requireSameBase(t, want, d, "op 200")

	// Moving the copy issued at op 500 for op 503 to op 501: issued at
	// R = 503 instead of 502, it ends at 504.5, before op 503 starts at
	// 505, and so does the next copy (issued at 504, it begins at 504.5
	// and ends at 506, for op 505 at 507). From op 504 on the state is
	// d's, so only op 500's chunk is simulated.
	e, err := d.Derive(&Change{Removed: []CopyKey{{Start: 500, At: 503, Rank: 500}}, Added: []Copy{{Start: 501, At: 503, Rank: 500, Time: 1.5}}})
	require.NoError(t, err)
	for k := range nch {
		if k == 500>>chunkShift {
			assert.NotSame(t, ckOf(d, k).ck, ckOf(e, k).ck, "chunk %d", k)
			continue
		}
		assert.Equal(t, ckOf(d, k), ckOf(e, k), "chunk %d", k)
		assert.Same(t, d.prog(k), e.prog(k), "chunk %d", k)
	}
	want, err = NewBase(e.Program())
	require.NoError(t, err)
	requireSameBase(t, want, e, "moved copy")

	// Nothing to change: the base itself.
	same, err := e.Derive(&Change{})
	require.NoError(t, err)
	assert.Same(t, e, same)

	// A bad change: an error, as CheckChange says.
	_, err = e.Derive(&Change{Removed: []CopyKey{{Start: 500, At: 503, Rank: 500}}})
	assert.ErrorContains(t, err, "removed copy with start 500, at 503, rank 500 is not in the base")
}

// A change near the end: the last chunk holds checkpoint n.
func TestDeriveAtTheEnd(t *testing.T) {
	for _, n := range []int{1, chunkLen - 1, chunkLen, chunkLen + 1, 2 * chunkLen, 2*chunkLen + 2} {
		p := steady(n)
		b, err := NewBase(p)
		require.NoError(t, err)
		d, err := b.Derive(&Change{Ops: []OpChange{{T: n - 1, Compute: 4}}, Added: []Copy{{Start: n - 1, At: n - 1, Time: 2}}})
		require.NoError(t, err)
		assert.Equal(t, float64(n-1+2+4), d.Cost(), "%d ops", n)
		want, err := NewBase(d.Program())
		require.NoError(t, err)
		requireSameBase(t, want, d, "at the end")
	}
}

func TestDeriveConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	rg := dmaBound
	p := randomProgram(rng, 600, 2, rg)
	rank := int64(len(p.Copies) + 1)
	b, err := NewBase(p)
	require.NoError(t, err)
	for range 5 { // a derived base, a few generations down
		b, err = b.Derive(chainChange(rng, b.Program(), rg, &rank))
		require.NoError(t, err)
	}
	q := b.Program()
	changes := make([]*Change, 200)
	want := make([]float64, len(changes))
	for i := range changes {
		changes[i] = chainChange(rng, q, rg, &rank)
		want[i] = Simulate(b.Apply(changes[i]))
	}
	var wg sync.WaitGroup
	got := make([][]float64, 4)
	derived := make([][]float64, 4)
	for g := range got {
		got[g] = make([]float64, len(changes))
		derived[g] = make([]float64, len(changes))
		wg.Go(func() {
			var s Scratch
			for i := range changes {
				j := (i + g*53) % len(changes) // each goroutine in another order
				got[g][j] = b.Reprice(changes[j], &s)
				d, err := b.Derive(changes[j])
				if err != nil {
					panic(err)
				}
				derived[g][j] = d.Cost()
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i := range changes {
			assert.LessOrEqual(t, relDiff(want[i], got[g][i]), 1e-12, "goroutine %d change %d: reprice", g, i)
			assert.LessOrEqual(t, relDiff(want[i], derived[g][i]), 1e-12, "goroutine %d change %d: derive", g, i)
		}
	}
}

// baseSize counts what a base holds: its chunks, their checkpoints and
// their in-flight entries.
func baseSize(b *Base) (chunks, checkpoints, entries int) {
	for ci := range b.nch {
		ref := ckOf(b, ci)
		chunks++
		checkpoints += len(ref.ck.r)
		entries += len(ref.ck.at)
	}
	return chunks, checkpoints, entries
}

// A chain of 10,000 derived bases of a 10,000-op program, each a small
// change of the one before: every derive simulates a few chunks, and the
// last base holds no more than a base built from scratch.
func TestDeriveChainStaysSmall(t *testing.T) {
	n, steps := 10_000, 10_000
	if testmode.Quick() {
		steps = 1_000
	}
	rng := rand.New(rand.NewPCG(25, 26))
	p := benchProgram(n, computeBound)
	b, err := NewBase(p)
	require.NoError(t, err)
	copied := 0
	for range steps {
		ch := smallChange(rng, b, computeBound)
		d, err := b.Derive(ch)
		require.NoError(t, err)
		for k := range d.nch {
			if ckOf(d, k).ck != ckOf(b, k).ck {
				copied++
			}
		}
		b = d
	}
	want, err := NewBase(b.Program())
	require.NoError(t, err)
	requireSameBase(t, want, b, "the last base")
	worst := 0.0 // the largest difference of R, relative to the cost
	for op := 0; op <= n; op++ {
		worst = max(worst, math.Abs(canonicalAt(want, op).r-canonicalAt(b, op).r)/want.Cost())
	}
	t.Logf("the last base: cost %v, from scratch %v; R differs by at most %.2g of the cost", b.Cost(), want.Cost(), worst)
	wc, wp, we := baseSize(want)
	gc, gp, ge := baseSize(b)
	t.Logf("%d derives: %.2f chunks simulated per derive; the last base: %d chunks, %d checkpoints, %d in-flight entries (from scratch: %d, %d, %d)",
		steps, float64(copied)/float64(steps), gc, gp, ge, wc, wp, we)
	// A compute-bound change rejoins within a chunk or two.
	assert.LessOrEqual(t, float64(copied)/float64(steps), 3.0)
	assert.Equal(t, wc, gc)
	assert.Equal(t, wp, gp)
	assert.Equal(t, we, ge)
}

// smallChange is one op's memory time or one copy moved to another start
// before the same op, at a random place of b's program.
func smallChange(rng *rand.Rand, b *Base, rg regime) *Change {
	t := rng.IntN(b.n)
	pc, i := b.prog(t>>chunkShift), t&chunkMask
	if cs := pc.at(i); len(cs) > 0 && rng.IntN(2) == 0 {
		c := cs[rng.IntN(len(cs))]
		old := c.Key()
		for c.Start == old.Start && c.At > 0 {
			c.Start = max(0, c.At-rng.IntN(9))
		}
		return &Change{Removed: []CopyKey{old}, Added: []Copy{c}}
	}
	return &Change{Ops: []OpChange{{T: t, Compute: pc.comp[i], Memory: randomTime(rng, rg.memory, false)}}}
}
