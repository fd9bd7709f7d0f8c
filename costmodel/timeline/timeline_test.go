package timeline

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oracle is FORMATS.md 6.3 transcribed line by line, with no index and no
// cleverness: the reference Simulate, Breakdown and Reprice are checked
// against. It returns the cost and every copy's end and channel.
func oracle(p *Program) (cost float64, end []float64, channel []int) {
	n := len(p.Compute)
	end = make([]float64, len(p.Copies))
	channel = make([]int, len(p.Copies))
	F := make([]float64, p.Channels) // R = 0; F[1..C] = 0
	R := 0.0
	for t := 0; t < n; t++ {
		// for each transfer k with start == t, ordered by (at, block name)
		var issued []int
		for k, c := range p.Copies {
			if c.Start == t {
				issued = append(issued, k)
			}
		}
		sort.Slice(issued, func(a, b int) bool {
			ca, cb := p.Copies[issued[a]], p.Copies[issued[b]]
			if ca.At != cb.At {
				return ca.At < cb.At
			}
			return ca.Rank < cb.Rank
		})
		for _, k := range issued {
			j := 0 // the channel with the least F (lowest index on ties)
			for i := range F {
				if F[i] < F[j] {
					j = i
				}
			}
			begin := math.Max(R, F[j])
			end[k] = begin + p.Copies[k].Time
			F[j] = end[k]
			channel[k] = j
		}
		T := R // T = max(R, max of end[k] over transfers k with at == t)
		for k, c := range p.Copies {
			if c.At == t {
				T = math.Max(T, end[k])
			}
		}
		R = T + math.Max(p.Compute[t], p.Memory[t]) // R = T + d(t)
	}
	return R, end, channel
}

// regime scales a random program's times.
type regime struct {
	name              string
	compute, memory   float64 // op times are uniform in [0, 2·scale)
	copy              float64 // copy times likewise
	copiesPerOp       float64
	maxWindow         int // At - Start is at most this
	zeroOps, discrete bool
}

var (
	computeBound = regime{name: "compute-bound", compute: 10, memory: 3, copy: 4, copiesPerOp: 0.5, maxWindow: 4}
	memoryBound  = regime{name: "memory-bound", compute: 3, memory: 10, copy: 4, copiesPerOp: 0.5, maxWindow: 4}
	dmaBound     = regime{name: "DMA-bound", compute: 3, memory: 3, copy: 20, copiesPerOp: 0.5, maxWindow: 4}
)

// randomTime draws a time: from a few discrete values (ties, zeros) or
// uniform.
func randomTime(rng *rand.Rand, scale float64, discrete bool) float64 {
	if discrete {
		return []float64{0, 0, 1, 2, 2, 3.5}[rng.IntN(6)] * scale / 2
	}
	return rng.Float64() * 2 * scale
}

// randomProgram draws a valid program of n ops in the regime: distinct
// ranks, copies sorted or not.
func randomProgram(rng *rand.Rand, n, channels int, rg regime) *Program {
	p := &Program{Compute: make([]float64, n), Memory: make([]float64, n), Channels: channels}
	for t := range n {
		if rg.zeroOps && rng.IntN(5) == 0 {
			continue
		}
		p.Compute[t] = randomTime(rng, rg.compute, rg.discrete)
		p.Memory[t] = randomTime(rng, rg.memory, rg.discrete)
	}
	nk := int(rg.copiesPerOp * float64(n))
	if rg.copiesPerOp > 0 {
		nk = rng.IntN(2*nk + 1)
	}
	ranks := rng.Perm(nk + 1)
	for k := range nk {
		p.Copies = append(p.Copies, randomCopy(rng, n, rg, int64(ranks[k])))
	}
	return p
}

func randomCopy(rng *rand.Rand, n int, rg regime, rank int64) Copy {
	at := rng.IntN(n)
	start := at - rng.IntN(min(at, rg.maxWindow)+1)
	if rng.IntN(3) == 0 {
		start = at // start == at: half of all copies in a plan
	}
	return Copy{Start: start, At: at, Rank: rank, Time: randomTime(rng, rg.copy, rg.discrete)}
}

// randomRegime draws scales and shapes, including the extremes.
func randomRegime(rng *rand.Rand) regime {
	rg := []regime{computeBound, memoryBound, dmaBound}[rng.IntN(3)]
	rg.copiesPerOp = []float64{0, 0.2, 0.5, 1, 3}[rng.IntN(5)]
	rg.maxWindow = []int{0, 1, 3, 10, 200}[rng.IntN(5)]
	rg.zeroOps = rng.IntN(2) == 0
	rg.discrete = rng.IntN(2) == 0
	return rg
}

// rounds is n, or a fifth of it under -short (CI's -race run).
func rounds(n int) int {
	if testmode.Quick() {
		return n / 5
	}
	return n
}

func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

func TestSimulateMatchesOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s Scratch
	for i := range rounds(3000) {
		p := randomProgram(rng, 1+rng.IntN(200), 1+rng.IntN(4), randomRegime(rng))
		require.NoError(t, p.Validate())
		want, _, _ := oracle(p)
		// The same operations in the same order: equal to the bit.
		require.Equal(t, want, Simulate(p), "program %d", i)
		require.Equal(t, want, s.Simulate(p), "program %d with a reused scratch", i)
		p.SortCopies()
		require.Equal(t, want, s.Simulate(p), "program %d in issue order", i)
	}
}

func TestSimulateCases(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Program
		want float64
	}{
		{"no ops", Program{Channels: 1}, 0},
		{"ops only: the sum of max(c, m)", Program{Compute: []float64{1, 5, 0}, Memory: []float64{2, 3, 0}, Channels: 1}, 2 + 5 + 0},
		{
			// The copy is issued at R = 0 and runs while op 0 computes:
			// ends at 4, op 1 starts at max(3, 4) = 4, ends at 5.
			"prefetch hidden in part",
			Program{Compute: []float64{3, 1}, Memory: []float64{0, 0}, Copies: []Copy{{Start: 0, At: 1, Time: 4}}, Channels: 1},
			5,
		},
		{
			// Two copies for op 0 on one channel: 2 then 2+3 = 5; op 0 at 5..6.
			"start == at waits, one channel",
			Program{Compute: []float64{1}, Memory: []float64{0}, Copies: []Copy{{Start: 0, At: 0, Rank: 1, Time: 2}, {Start: 0, At: 0, Rank: 2, Time: 3}}, Channels: 1},
			6,
		},
		{
			// On two channels both run at once: max(2, 3) = 3; op 0 at 3..4.
			"start == at waits, two channels",
			Program{Compute: []float64{1}, Memory: []float64{0}, Copies: []Copy{{Start: 0, At: 0, Rank: 1, Time: 2}, {Start: 0, At: 0, Rank: 2, Time: 3}}, Channels: 2},
			4,
		},
		{
			// Issue order is (at, rank): the copy for op 0 (rank 9) goes
			// first although the other has a lower rank; it ends at 1, op 0
			// runs 1..2; the other ends at 1+5 = 6, op 1 runs 6..7.
			"issue order by at before rank",
			Program{Compute: []float64{1, 1}, Memory: []float64{0, 0}, Copies: []Copy{{Start: 0, At: 1, Rank: 0, Time: 5}, {Start: 0, At: 0, Rank: 9, Time: 1}}, Channels: 1},
			7,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, tc.p.Validate())
			assert.Equal(t, tc.want, Simulate(&tc.p))
			o, _, _ := oracle(&tc.p)
			assert.Equal(t, tc.want, o)
		})
	}
}

// With no compute, one channel and every start == at, the timeline is the
// seed model's sum (FORMATS.md 6.3): each op's copies run back to back
// after the previous op ends, then the op.
func TestSimulateEqualsSumWithoutOverlap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range rounds(500) {
		rg := randomRegime(rng)
		p := randomProgram(rng, 1+rng.IntN(200), 1, rg)
		sum := 0.0
		for t := range p.Compute {
			p.Compute[t] = 0
			sum += p.Memory[t]
		}
		for k := range p.Copies {
			p.Copies[k].Start = p.Copies[k].At
			sum += p.Copies[k].Time
		}
		require.NoError(t, p.Validate())
		assert.LessOrEqual(t, relDiff(sum, Simulate(p)), 1e-12, "program %d: sum %v, simulated %v", i, sum, Simulate(p))
	}
}

func TestValidate(t *testing.T) {
	ok := func() Program {
		return Program{Compute: []float64{1, 1}, Memory: []float64{1, 1}, Copies: []Copy{{Start: 0, At: 1, Rank: 0, Time: 1}}, Channels: 1}
	}
	for _, tc := range []struct {
		name  string
		edit  func(p *Program)
		error string
	}{
		{"no channel", func(p *Program) { p.Channels = 0 }, "0 DMA channels"},
		{"lengths", func(p *Program) { p.Memory = p.Memory[:1] }, "2 compute times but 1 memory times"},
		{"negative op", func(p *Program) { p.Compute[1] = -1 }, "op 1: compute -1"},
		{"NaN op", func(p *Program) { p.Memory[0] = math.NaN() }, "op 0: compute 1, memory NaN"},
		{"infinite op", func(p *Program) { p.Memory[0] = math.Inf(1) }, "memory +Inf"},
		{"start after at", func(p *Program) { p.Copies[0].Start = 2 }, "copy 0: start 2, at 1 (rule: 0 <= start <= at < 2 ops)"},
		{"at past the end", func(p *Program) { p.Copies[0].At = 2 }, "copy 0: start 0, at 2"},
		{"negative start", func(p *Program) { p.Copies[0].Start = -1 }, "copy 0: start -1"},
		{"negative time", func(p *Program) { p.Copies[0].Time = -1 }, "copy 0: time -1"},
		{"tie", func(p *Program) { p.Copies = append(p.Copies, Copy{Start: 1, At: 1}, p.Copies[0]) }, "copies 0 and 2: both start 0, at 1, rank 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ok()
			require.NoError(t, p.Validate())
			tc.edit(&p)
			assert.ErrorContains(t, p.Validate(), tc.error)
		})
	}
}

func TestBreakdownConsistent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range rounds(1000) {
		p := randomProgram(rng, 1+rng.IntN(200), 1+rng.IntN(4), randomRegime(rng))
		tr := Breakdown(p)
		cost, end, channel := oracle(p)
		require.Equal(t, cost, tr.Cost, "program %d", i)
		require.Equal(t, Simulate(p), tr.Cost, "program %d", i)

		// Ops: back to back after their stalls; the stalls and durations sum to the cost.
		prev, dur := 0.0, 0.0
		for op, o := range tr.Ops {
			require.Equal(t, p.Compute[op], o.Compute)
			require.Equal(t, p.Memory[op], o.Memory)
			require.GreaterOrEqual(t, o.Stall, 0.0)
			require.Equal(t, o.Begin-prev, o.Stall, "op %d", op) // the stall is T - R before the op
			require.Equal(t, o.Begin+max(o.Compute, o.Memory), o.End, "op %d", op)
			prev = o.End
			dur += max(o.Compute, o.Memory)
		}
		assert.LessOrEqual(t, relDiff(tr.Stall()+dur, tr.Cost), 1e-12, "program %d", i)

		// Copies: the oracle's ends and channels; issued at R before their
		// start op; the op they feed waits; one channel runs one copy at a time.
		last := make([]float64, p.Channels)
		order := (&Scratch{}).issueOrder(p.Copies)
		for _, k := range order {
			c, ct := p.Copies[k], tr.Copies[k]
			require.Equal(t, end[k], ct.End, "copy %d", k)
			require.Equal(t, channel[k], ct.Channel, "copy %d", k)
			before := 0.0
			if c.Start > 0 {
				before = tr.Ops[c.Start-1].End
			}
			require.Equal(t, before, ct.Issue, "copy %d", k)
			require.Equal(t, max(ct.Issue, last[ct.Channel]), ct.Begin, "copy %d", k)
			require.Equal(t, ct.Begin+c.Time, ct.End, "copy %d", k)
			require.LessOrEqual(t, ct.End, tr.Ops[c.At].Begin, "copy %d", k)
			last[ct.Channel] = ct.End
		}
	}
}

// At op 2 both channels are idle (their copies ended at 1 and 2, R = 10):
// either gives the copy the same begin, 10, and a rule that looked at
// max(F, R) would take channel 0, the lowest index. FORMATS.md takes the
// least F: channel 1 (F = 1). Breakdown follows FORMATS.md.
func TestBreakdownChannelByRawFinishTime(t *testing.T) {
	p := &Program{
		Compute: []float64{5, 5, 1},
		Memory:  []float64{0, 0, 0},
		Copies: []Copy{
			{Start: 0, At: 0, Rank: 0, Time: 2}, // channel 0: 0..2
			{Start: 0, At: 0, Rank: 1, Time: 1}, // channel 1: 0..1; op 0 runs 2..7, op 1 7..12
			{Start: 2, At: 2, Rank: 2, Time: 3}, // issued at R = 12: channel 1 (F = 1 < 2)
		},
		Channels: 2,
	}
	tr := Breakdown(p)
	assert.Equal(t, []CopyTrace{
		{Issue: 0, Begin: 0, End: 2, Channel: 0},
		{Issue: 0, Begin: 0, End: 1, Channel: 1},
		{Issue: 12, Begin: 12, End: 15, Channel: 1},
	}, tr.Copies)
	assert.Equal(t, OpTrace{Begin: 15, End: 16, Compute: 1, Stall: 3}, tr.Ops[2])
	assert.Equal(t, 16.0, tr.Cost)
	assert.Equal(t, 2.0+3.0, tr.Stall()) // op 0 waits for the copy ending at 2, op 2 for 15
	_, _, channel := oracle(p)
	assert.Equal(t, []int{0, 1, 1}, channel)
}

func TestSimulateAllocatesNothingWithScratch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := randomProgram(rng, 1000, 2, computeBound)
	var s Scratch
	s.Simulate(p)
	assert.Zero(t, testing.AllocsPerRun(10, func() { s.Simulate(p) }), "copies out of order")
	p.SortCopies()
	assert.Zero(t, testing.AllocsPerRun(10, func() { s.Simulate(p) }), "copies in issue order")
}
