package fuzzcheck_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/calibrate"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/pack"
	"github.com/hieropt/hieropt/sweep"
)

// requireInputError checks a reader's failure: an *inputerr.Error, on one
// line, naming the document.
func requireInputError(t *testing.T, err error, doc string) {
	t.Helper()
	require.True(t, inputerr.Is(err), "%T: %v", err, err)
	require.NotContains(t, err.Error(), "\n")
	require.True(t, strings.HasPrefix(err.Error(), doc+": "), err.Error())
}

// addFiles adds the files matching pattern (relative to the repository
// root) to the seed corpus.
func addFiles(f *testing.F, pattern string) {
	files, err := filepath.Glob(filepath.Join("..", "..", pattern))
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
}

// FuzzSamplesCSV fuzzes calibrate.ReadSamples, the reader of hieropt
// tune's input: it never panics, fails with an input error on one line, and
// what it accepts follows the format (a level, in or out, bytes >= 0, a
// finite ns >= 0) and survives WriteSamples and ReadSamples (ns to the 3
// decimals WriteSamples keeps).
func FuzzSamplesCSV(f *testing.F) {
	f.Add([]byte(calibrate.Header + "\nL1,in,64,1.5\nL1,out,4096,20.25\nDRAM,in,1048576,90000\n"))
	f.Add([]byte("\ufeff" + calibrate.Header + "\r\n\"L 2\",out,0,0\r\n"))
	addFiles(f, "testdata/bad/samples/*.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := calibrate.ReadSamples("f.csv", bytes.NewReader(data))
		if err != nil {
			requireInputError(t, err, `samples "f.csv"`)
			return
		}
		require.NotEmpty(t, ss)
		for _, s := range ss {
			require.NotEmpty(t, s.Level)
			require.Contains(t, []string{calibrate.In, calibrate.Out}, s.Direction)
			require.GreaterOrEqual(t, s.Bytes, int64(0))
			require.False(t, math.IsNaN(s.NS) || math.IsInf(s.NS, 0) || s.NS < 0, "ns %v", s.NS)
		}
		var buf bytes.Buffer
		require.NoError(t, calibrate.WriteSamples(&buf, ss))
		again, err := calibrate.ReadSamples("f.csv", bytes.NewReader(buf.Bytes()))
		require.NoError(t, err, "%q", buf.String())
		require.Len(t, again, len(ss))
		for i := range ss {
			require.Equal(t, ss[i].Level, again[i].Level, "%q", buf.String())
			require.Equal(t, ss[i].Direction, again[i].Direction)
			require.Equal(t, ss[i].Bytes, again[i].Bytes)
			require.InDelta(t, ss[i].NS, again[i].NS, 0.0005+1e-15*ss[i].NS)
		}
	})
}

// FuzzSweepCSV fuzzes sweep.ReadCSV, the reader of hieropt sweep merge:
// it never panics, fails with an input error on one line, and writing what
// it accepts and reading that back gives the same bytes again (WriteCSV
// rounds the seconds, so the first write may differ from the input).
func FuzzSweepCSV(f *testing.F) {
	head := strings.Join(sweep.Header([]string{"beam"}), ",")
	f.Add([]byte(head + "\n0,2,seed000-example,ethos-u55,,4,valid,3341,3000,10.2066,0.001,1,5,12\n" +
		"1,2,seed000-example,ethos-u55,,8,does not fit: x,,,,0.5,,,\n"))
	f.Add([]byte(strings.Join(sweep.Header(nil), ",") + "\n"))
	f.Add([]byte("run,runs\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := sweep.ReadCSV(bytes.NewReader(data), "f.csv")
		if err != nil {
			requireInputError(t, err, `sweep CSV "f.csv"`)
			return
		}
		var w1 bytes.Buffer
		require.NoError(t, tab.WriteCSV(&w1))
		again, err := sweep.ReadCSV(bytes.NewReader(w1.Bytes()), "f.csv")
		require.NoError(t, err, "%q", w1.String())
		var w2 bytes.Buffer
		require.NoError(t, again.WriteCSV(&w2))
		require.Equal(t, w1.String(), w2.String())
	})
}

// FuzzMiniMallocCSV fuzzes pack.ReadCSV, the reader of MiniMalloc problems
// (hieropt pack, import minimalloc): it never panics, fails with an input
// error on one line, accepts only buffers with 0 <= lower < upper and
// size > 0 and distinct ids, and what it accepts survives WriteCSV and
// ReadCSV.
func FuzzMiniMallocCSV(f *testing.F) {
	f.Add([]byte("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n"))
	f.Add([]byte("size,upper,lower,id,offset\n4,3,0,x,0\n"))
	addFiles(f, "testdata/minimalloc/input.12.csv")
	addFiles(f, "testdata/bad/csv/*.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := pack.ReadCSV("f.csv", bytes.NewReader(data))
		if err != nil {
			requireInputError(t, err, `CSV "f.csv"`)
			return
		}
		ids := map[string]bool{}
		for _, b := range p.Buffers {
			require.NotEmpty(t, b.ID)
			require.False(t, ids[b.ID], "id %q twice", b.ID)
			ids[b.ID] = true
			require.True(t, 0 <= b.Lower && b.Lower < b.Upper && b.Size > 0, "%+v", b)
		}
		var buf bytes.Buffer
		require.NoError(t, pack.WriteCSV(&buf, p, nil))
		again, err := pack.ReadCSV("f.csv", bytes.NewReader(buf.Bytes()))
		require.NoError(t, err, "%q", buf.String())
		require.Equal(t, p.Buffers, again.Buffers, "%q", buf.String())
	})
}
