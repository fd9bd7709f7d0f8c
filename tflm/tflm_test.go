package tflm_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/importer/tflite"
	"github.com/hieropt/hieropt/importer/tflite/schema"
	"github.com/hieropt/hieropt/tflm"
)

func models(t *testing.T) []string {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join("..", "testdata", "tflite", "*.tflite"))
	require.NoError(t, err)
	require.NotEmpty(t, ms)
	return ms
}

func read(t *testing.T, path string) *tflm.Model {
	t.Helper()
	m, err := tflm.ReadFile(path)
	require.NoError(t, err)
	return m
}

func to32(v []int64) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// Arm Vela's plan in person_detect_vela is read back: one offset per
// tensor, no rule broken, the Ethos-U operator's operands sharing its
// scratch tensor reported as notes, a head below TFLM's own plan.
func TestReadVelaPlan(t *testing.T) {
	m := read(t, filepath.Join("..", "testdata", "tflite", "person_detect_vela.tflite"))
	require.NotNil(t, m.Offline)
	require.Len(t, m.Offline.Offsets, len(m.Tensors))
	r := m.Check(m.Offline.Offsets)
	require.True(t, r.Valid(), "%v", r.Problems)
	require.NotEmpty(t, r.Notes)
	require.Positive(t, r.Offline)
	require.Less(t, r.Head, r.Greedy)
}

// Write puts the plan in the model and changes nothing else: the model
// read back holds the offsets, and with the plan's metadata entry and
// buffer taken out it unpacks to what the original does; the original's
// bytes are all there, unchanged and as aligned as they were.
func TestWriteKeepsTheModel(t *testing.T) {
	for _, path := range models(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			m := read(t, path)
			offs, _ := m.Greedy()
			out, err := m.Write(to32(offs))
			require.NoError(t, err)
			back, err := tflm.Read(path, out)
			require.NoError(t, err)
			require.NotNil(t, back.Offline)
			require.Equal(t, to32(offs), back.Offline.Offsets)
			require.Equal(t, m.Tensors, back.Tensors)

			orig, _ := os.ReadFile(path)
			want := schema.GetRootAsModel(orig, 0).UnPack()
			got := schema.GetRootAsModel(out, 0).UnPack()
			strip := func(mt *schema.ModelT, b int) {
				mt.Metadata = slices.DeleteFunc(mt.Metadata, func(x *schema.MetadataT) bool { return x.Name == tflm.MetadataName })
				mt.Buffers = slices.Delete(mt.Buffers, b, b+1)
			}
			if m.Offline != nil {
				require.Equal(t, m.Offline.Buffer, back.Offline.Buffer, "the existing entry's buffer is reused")
				strip(want, m.Offline.Buffer)
			}
			strip(got, back.Offline.Buffer)
			require.Equal(t, want, got)

			// The original bytes come unchanged after a header that keeps
			// their alignment; the plan's data is 16-byte aligned.
			pre := len(out) - len(orig)
			require.True(t, bytes.Equal(orig, out[pre:]), "the original bytes changed")
			require.Zero(t, pre%16)
			fm := schema.GetRootAsModel(out, 0)
			var b schema.Buffer
			fm.Buffers(&b, back.Offline.Buffer)
			tab := b.Table()
			require.Zero(t, tab.Vector(flatbuffers.UOffsetT(tab.Offset(4)))%16)
		})
	}
}

// An operator's output placed over an input it still reads is caught:
// TFLM itself would run such a plan and compute garbage.
func TestCheckRejectsAnOutputOverItsLiveInput(t *testing.T) {
	for _, typ := range []string{"CONV_2D", "FULLY_CONNECTED"} {
		t.Run(typ, func(t *testing.T) {
			var m *tflm.Model
			k := -1
			for _, path := range models(t) {
				m = read(t, path)
				for i, op := range m.Graph.Ops {
					if op.Type == typ && !m.Tensors[op.Inputs[0]].Constant {
						k = i
						break
					}
				}
				if k >= 0 {
					break
				}
			}
			require.GreaterOrEqual(t, k, 0, "no %s in testdata/tflite", typ)
			offs, _ := m.Greedy()
			plan := to32(offs)
			require.True(t, m.Check(plan).Valid())
			op := m.Graph.Ops[k]
			plan[op.Outputs[0]] = plan[op.Inputs[0]]
			r := m.Check(plan)
			require.False(t, r.Valid())
			require.Contains(t, r.Problems[0], "overlap")
		})
	}
}

// An op that runs in place may write its output over its last input
// (person_detect's final RESHAPE); other rules: N, alignment, negatives.
func TestCheckRules(t *testing.T) {
	m := read(t, filepath.Join("..", "testdata", "tflite", "person_detect.tflite"))
	offs, head := m.Greedy()
	plan := to32(offs)
	k := slices.IndexFunc(m.Graph.Ops, func(op tflite.Operator) bool { return op.Type == "RESHAPE" })
	require.GreaterOrEqual(t, k, 0)
	in, out := m.Graph.Ops[k].Inputs[0], m.Graph.Ops[k].Outputs[0]
	in2 := slices.Clone(plan)
	in2[out], in2[in] = int32(head), int32(head) // both above the rest
	require.True(t, m.Check(in2).Valid(), "%v", m.Check(in2).Problems)

	require.False(t, m.Check(plan[:len(plan)-1]).Valid())
	bad := slices.Clone(plan)
	bad[out] += 8
	require.Contains(t, m.Check(bad).Problems[0], "multiple of 16")
	bad[out] = -2
	require.Contains(t, m.Check(bad).Problems[0], "negative")
}

// Plan's head is never above TFLM's own, its plan breaks no rule, and it
// is the same every time.
func TestPlanNeverAboveTFLM(t *testing.T) {
	for _, path := range models(t) {
		m := read(t, path)
		r, err := m.Plan(context.Background(), tflm.PlanOptions{NodeLimit: 1 << 14})
		require.NoError(t, err)
		require.LessOrEqual(t, r.Head, r.Greedy, path)
		require.LessOrEqual(t, r.MaxLive, r.Head, path)
		c := m.Check(r.Offsets)
		require.True(t, c.Valid(), "%s: %v", path, c.Problems)
		require.Equal(t, r.Head, c.Head, path)
		again, err := m.Plan(context.Background(), tflm.PlanOptions{NodeLimit: 1 << 14})
		require.NoError(t, err)
		require.Equal(t, r, again, path)
		_, err = m.Plan(context.Background(), tflm.PlanOptions{Capacity: r.MaxLive - 16})
		require.Error(t, err, path)
	}
}
