package gen_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/workload"
)

var mixes = []string{gen.MixCNN, gen.MixTransformer, gen.MixMixed}

// elementwise op types: an input whose last reader is one of these (with an
// output of the same size) is reusable.
var elementwise = map[string]bool{"ReLU": true, "BatchNorm2d": true, "add": true, "mul": true, "GELU": true}

func generate(t testing.TB, o gen.Options) *workload.Program {
	t.Helper()
	p, err := gen.Generate(o)
	require.NoError(t, err, "%+v", o)
	require.NotNil(t, p)
	return p
}

func TestGenerateValidates(t *testing.T) {
	for _, mix := range mixes {
		for _, n := range []int{1, 2, 7, 100, 1000, 10000} {
			t.Run(fmt.Sprintf("%s/%d", mix, n), func(t *testing.T) {
				p := generate(t, gen.Options{Ops: n, Seed: 7, Mix: mix})
				require.Len(t, p.Ops, n)
				require.NoError(t, p.Validate("again"))
				checkShape(t, p)
			})
		}
	}
}

// TestEveryCut generates every length up to a few passes, so that the
// program is cut at every position of every kind of block.
func TestEveryCut(t *testing.T) {
	for _, mix := range mixes {
		for n := 1; n <= 400; n++ {
			p, err := gen.Generate(gen.Options{Ops: n, Seed: uint64(n % 5), Mix: mix})
			require.NoError(t, err, "%s %d", mix, n)
			require.Len(t, p.Ops, n)
			checkShape(t, p)
		}
	}
}

// checkShape checks what Validate does not: the generator's own promises.
func checkShape(t *testing.T, p *workload.Program) {
	t.Helper()
	T := len(p.Ops)
	names := make(map[string]bool, T)
	for _, op := range p.Ops {
		require.False(t, names[op.Name], "op name %q twice", op.Name)
		names[op.Name] = true
		require.NotEmpty(t, op.Type, op.Name)
		switch op.Type {
		case "Conv2d", "Linear", "matmul":
			require.Positive(t, op.MACs, op.Name)
		default:
			require.Zero(t, op.MACs, op.Name)
		}
	}
	var inputs, outputs int
	outSize := make([]int64, T) // size of the op output created at each timestep
	for i := range p.Blocks {
		if o := &p.Blocks[i]; o.Kind == workload.Activation || o.Kind == workload.Output {
			require.Zero(t, outSize[o.First], "one output per op: %s", o.Name)
			outSize[o.First] = o.Size
		}
	}
	for i := range p.Blocks {
		b := &p.Blocks[i]
		switch b.Kind {
		case workload.Input:
			inputs++
			require.Equal(t, []int{0}, b.Writes, b.Name)
			require.NotEmpty(t, b.Reads, b.Name)
		case workload.Output:
			outputs++
			require.Equal(t, T-1, b.First, b.Name)
			require.Equal(t, []int{T - 1}, b.Writes, b.Name)
			require.Equal(t, []int{T - 1}, b.Reads, b.Name)
			require.False(t, b.Reusable, b.Name)
		case workload.Activation:
			require.Equal(t, []int{b.First}, b.Writes, b.Name)
			require.NotEmpty(t, b.Reads, "%s is never read", b.Name)
			require.Equal(t, b.Last, b.Reads[len(b.Reads)-1], b.Name)
			require.Greater(t, b.Reads[0], b.First, b.Name)
			// local lifetimes: at most one residual / attention block
			require.LessOrEqual(t, b.Last-b.First, 14, b.Name)
		case workload.Scratch:
			require.Equal(t, "Conv2d", p.Ops[b.First].Type, b.Name)
			require.False(t, b.Reusable, b.Name)
		case workload.Constant:
			require.Equal(t, 0, b.First, b.Name)
			require.Empty(t, b.Writes, b.Name)
			require.Equal(t, []int{b.Last}, b.Reads, b.Name)
		}
		if b.Kind == workload.Input || b.Kind == workload.Activation {
			last := p.Ops[b.Last]
			want := elementwise[last.Type] && outSize[b.Last] == b.Size
			require.Equal(t, want, b.Reusable, "%s (last read by %s %s)", b.Name, last.Type, last.Name)
		}
		require.LessOrEqual(t, b.Size, int64(8<<20), "%s: sizes stay realistic at int8", b.Name)
	}
	require.Equal(t, 1, inputs)
	require.Equal(t, 1, outputs)
}

func TestGenerateHasEveryKind(t *testing.T) {
	for _, mix := range mixes {
		p := generate(t, gen.Options{Ops: 1000, Seed: 1, Mix: mix})
		s := p.ComputeStats()
		assert.Equal(t, 1, s.BlocksByKind[workload.Input], mix)
		assert.Equal(t, 1, s.BlocksByKind[workload.Output], mix)
		assert.Positive(t, s.BlocksByKind[workload.Activation], mix)
		assert.Positive(t, s.BlocksByKind[workload.Constant], mix)
		if mix != gen.MixTransformer {
			assert.Positive(t, s.BlocksByKind[workload.Scratch], mix)
		}
		reusable := 0
		for _, b := range p.Blocks {
			if b.Reusable {
				reusable++
			}
		}
		assert.Positive(t, reusable, mix)
		assert.Positive(t, s.MACs, mix)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	for _, mix := range mixes {
		o := gen.Options{Ops: 1000, Seed: 42, Mix: mix}
		a, b := generate(t, o), generate(t, o)
		assert.Equal(t, a, b, mix)
		o.Seed = 43
		c := generate(t, o)
		assert.NotEqual(t, a.Ops, c.Ops, mix)
		assert.NotEqual(t, a.Blocks, c.Blocks, mix)
	}
}

func TestGenerateDefaults(t *testing.T) {
	p := generate(t, gen.Options{Ops: 50, Seed: 3})
	assert.Equal(t, "gen-mixed-50-3", p.Name)
	q := generate(t, gen.Options{Ops: 50, Seed: 3, Mix: gen.MixMixed, DType: 1, Name: "gen-mixed-50-3"})
	assert.Equal(t, p, q)

	fp32 := generate(t, gen.Options{Ops: 50, Seed: 3, DType: 4})
	require.Len(t, fp32.Blocks, len(p.Blocks))
	for i := range p.Blocks {
		if p.Blocks[i].Name == "input" {
			continue
		}
		assert.Equal(t, 4*p.Blocks[i].Size, fp32.Blocks[i].Size, p.Blocks[i].Name)
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, o := range []gen.Options{
		{Ops: 0},
		{Ops: -3},
		{Ops: 10, Mix: "rnn"},
		{Ops: 10, DType: -1},
	} {
		_, err := gen.Generate(o)
		assert.Error(t, err, "%+v", o)
	}
}

// TestMaxLiveBounded: the live non-constant bytes do not grow with the
// program (lifetimes are local).
func TestMaxLiveBounded(t *testing.T) {
	const bound = 32 << 20
	for _, mix := range mixes {
		s1 := generate(t, gen.Options{Ops: 1000, Seed: 5, Mix: mix}).ComputeStats()
		s10 := generate(t, gen.Options{Ops: 10000, Seed: 5, Mix: mix}).ComputeStats()
		assert.Less(t, s1.MaxLiveNoConst, int64(bound), mix)
		assert.Less(t, s10.MaxLiveNoConst, int64(bound), mix)
		assert.LessOrEqual(t, float64(s10.MaxLiveNoConst), 1.25*float64(s1.MaxLiveNoConst), mix)
	}
}

// TestWriteParse: a generated program survives the JSON format.
func TestWriteParse(t *testing.T) {
	for _, mix := range mixes {
		p := generate(t, gen.Options{Ops: 300, Seed: 9, Mix: mix, DType: 2})
		var buf bytes.Buffer
		require.NoError(t, p.Write(&buf))
		q, err := workload.Parse("gen.json", buf.Bytes())
		require.NoError(t, err)
		assert.Equal(t, p.Ops, q.Ops)
		require.Len(t, q.Blocks, len(p.Blocks))
		for i := range p.Blocks {
			a, b := p.Blocks[i], q.Blocks[i]
			assert.Equal(t, a.Name, b.Name)
			assert.Equal(t, a.Size, b.Size)
			assert.Equal(t, a.Kind, b.Kind)
			assert.Equal(t, [2]int{a.First, a.Last}, [2]int{b.First, b.Last}, a.Name)
			assert.ElementsMatch(t, a.Writes, b.Writes, a.Name)
			assert.ElementsMatch(t, a.Reads, b.Reads, a.Name)
			assert.Equal(t, a.Reusable, b.Reusable, a.Name)
		}
	}
}

// TestStats logs the figures of 1k, 10k and 100k-op programs (go test -v -run Stats).
func TestStats(t *testing.T) {
	for _, mix := range mixes {
		for _, n := range []int{1000, 10000, 100000} {
			s := generate(t, gen.Options{Ops: n, Seed: 1, Mix: mix}).ComputeStats()
			t.Logf("%-11s ops %6d  blocks %6d  total %11d B  const %11d B  max-live %10d B  w/o const %8d B  in-place %10d B  GMACs %.1f",
				mix, s.Ops, s.Blocks, s.TotalBytes, s.ConstBytes, s.MaxLive, s.MaxLiveNoConst, s.MaxLiveInPlace, float64(s.MACs)/1e9)
		}
	}
}

func BenchmarkGenerate100k(b *testing.B) {
	for _, mix := range mixes {
		b.Run(mix, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := gen.Generate(gen.Options{Ops: 100000, Seed: 1, Mix: mix}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
