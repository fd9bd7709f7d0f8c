package minimalloccli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzReadCSV: the reader never panics; what it accepts has lower < upper,
// size >= 0 and alignment >= 1 for every buffer, and written back with
// offsets (writeCSV) it is a file MiniMalloc's reader accepts, one line per
// buffer, its ids and sizes kept.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n",
		"buffer,start,end,size,alignment,hint,gaps\nx,0,1,4,2,-1,\ny,1,3,8,1,0,2-2@0:4\n",
		"size,upper,id,lower\n4,2,a,0\n",
		"id,lower,upper,size\r\na,-3,5,0\r\n\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bufs, err := readCSV("fuzz.csv", strings.NewReader(s))
		if err != nil {
			return
		}
		for _, b := range bufs {
			require.Less(t, b.lower, b.upper)
			require.GreaterOrEqual(t, b.size, int64(0))
			require.GreaterOrEqual(t, b.align, int64(1))
			if strings.ContainsAny(b.id, "\n") {
				t.Fatalf("id %q has a newline", b.id)
			}
		}
		var out bytes.Buffer
		require.NoError(t, writeCSV(&out, bufs, make([]int64, len(bufs))))
		if len(bufs) == 0 || strings.ContainsRune(s, '\r') {
			return // an id ending in a lone \r cannot be checked line by line
		}
		_, rows := readAsMiniMalloc(t, out.String())
		require.Len(t, rows, len(bufs))
		for i, r := range rows {
			require.Equal(t, bufs[i].id, r.id)
			require.Equal(t, bufs[i].size, r.size)
		}
	})
}

// FuzzParseFlags: the flag parser never panics, and a command line it
// accepts is parsed the same again (no state leaks between runs).
func FuzzParseFlags(f *testing.F) {
	f.Add("--capacity=12 --input x.csv --output=y.csv --validate --nohatless_pruning --timeout=1.5s")
	f.Add("--undefok=foo --foo -- --bar")
	f.Add("--capacity --nocapacity --novalidate=1 --validate= -x ---y")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		none := func(string) (string, bool) { return "", false }
		a, errsA := parseFlags(args, none)
		b, errsB := parseFlags(args, none)
		require.Equal(t, errsA, errsB)
		require.Equal(t, a, b)
	})
}
