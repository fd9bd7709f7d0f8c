package tflm_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/tflm"
)

// Corrupt models (every 4-byte word of small models set to values that
// break lengths and offsets, and random byte changes) are read as a model
// or refused with a one-line error, never a panic or a runaway
// allocation; a model read is planned by TFLM's greedy validly, and its
// plan written and read back. (A fuzz target would do the same: Go's fuzzer
// runs this package's instrumented binary, with flatc's generated schema
// code, at a few executions a second, too slow to be of use.)
func TestCorruptModels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var what string
	try := func(data []byte) {
		m, err := tflm.Read("corrupt.tflite", data)
		if err != nil {
			require.NotContains(t, strings.TrimSpace(err.Error()), "\n")
			return
		}
		offs, _ := m.Greedy()
		plan := make([]int32, len(offs))
		for i, o := range offs {
			if o > math.MaxInt32 {
				return // no int32 offset holds it (Plan refuses such a model)
			}
			plan[i] = int32(o)
		}
		require.True(t, m.Check(plan).Valid(), "%v", m.Check(plan).Problems)
		if m.Offline != nil {
			m.Check(m.Offline.Offsets)
		}
		out, err := m.Write(plan)
		if err != nil {
			return
		}
		back, err := tflm.Read("corrupt.tflite", out)
		require.NoError(t, err, what)
		require.NotNil(t, back.Offline)
		require.Equal(t, plan, back.Offline.Offsets)
	}
	for _, name := range []string{"hello_world_int8", "branchy"} {
		orig, err := os.ReadFile(filepath.Join("..", "testdata", "tflite", name+".tflite"))
		require.NoError(t, err)
		for pos := 0; pos+4 <= len(orig); pos += 4 {
			for _, v := range []uint32{0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x00010000, 0x0000FFFF, 0x00000100, 0} {
				d := append([]byte(nil), orig...)
				binary.LittleEndian.PutUint32(d[pos:], v)
				what = fmt.Sprintf("%s: word at %d set to %#x", name, pos, v)
				try(d)
			}
		}
		for range 2000 {
			d := append([]byte(nil), orig...)
			what = name + ": random bytes changed:"
			for range 1 + r.IntN(8) {
				k := r.IntN(len(d))
				d[k] = byte(r.Uint32())
				what += fmt.Sprintf(" %d=%#x", k, d[k])
			}
			try(d)
		}
	}
}
