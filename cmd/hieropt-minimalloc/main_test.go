package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/pack"
)

// buildBinary builds this command into dir and returns its path.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build the binary")
	}
	bin := filepath.Join(dir, "hieropt-minimalloc")
	out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// TestDeeployRecipe runs the binary as Deeploy's Tiler.minimalloc runs
// MiniMalloc's: $MINIMALLOC_INSTALL_DIR/minimalloc (here a link to
// hieropt-minimalloc) with exactly --capacity=N --input=F.csv
// --output=G.csv, in the working directory, on a file written as Deeploy
// writes it (csv.writer: id,lower,upper,size; upper = last step + 1). It
// checks what Deeploy checks (the exit code) and reads the result as
// Deeploy does (csv.reader: skip the header; per row, row[0] is the id,
// row[-1] the offset, row[-2] the size), then checks those offsets with
// pack.Check at the capacity. At a capacity below max-live the exit code
// is not 0, which Deeploy turns into its CalledProcessError.
func TestDeeployRecipe(t *testing.T) {
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	install := filepath.Join(dir, "install", "minimalloc")
	require.NoError(t, os.MkdirAll(install, 0o755))
	require.NoError(t, os.Symlink(bin, filepath.Join(install, "minimalloc")))
	work := filepath.Join(dir, "work")
	require.NoError(t, os.Mkdir(work, 0o755))

	// Tensors of a small network: name, [first, last] step, bytes.
	type block struct {
		name        string
		first, last int
		size        int
	}
	var blocks []block
	for i := range 60 {
		blocks = append(blocks, block{fmt.Sprintf("onnx::MatMul_%d", i), i / 3, i/3 + i%4, 64 * (1 + (i*37)%29)})
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	require.NoError(t, w.Write([]string{"id", "lower", "upper", "size"}))
	p := &pack.Problem{}
	for _, x := range blocks {
		require.NoError(t, w.Write([]string{x.name, strconv.Itoa(x.first), strconv.Itoa(x.last + 1), strconv.Itoa(x.size)}))
		p.Buffers = append(p.Buffers, pack.Buffer{ID: x.name, Lower: int64(x.first), Upper: int64(x.last + 1), Size: int64(x.size)})
	}
	w.Flush()
	require.NoError(t, w.Error())
	in := "input_minimalloc_testNet.csv"
	require.NoError(t, os.WriteFile(filepath.Join(work, in), []byte(b.String()), 0o644))
	maxLive := pack.MaxLive(p)

	run := func(capacity int64) (int, string) {
		cmd := exec.Command(filepath.Join(install, "minimalloc"),
			fmt.Sprintf("--capacity=%d", capacity), "--input="+in, "--output=output_minimalloc_testNet.csv")
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		}
		require.NoError(t, err)
		return 0, string(out)
	}

	capacity := maxLive + maxLive/10
	code, out := run(capacity)
	require.Equal(t, 0, code, out)
	data, err := os.ReadFile(filepath.Join(work, "output_minimalloc_testNet.csv"))
	require.NoError(t, err)
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"id", "lower", "upper", "size", "offset"}, rows[0])
	addr := map[string][2]int64{}
	for _, row := range rows[1:] {
		off, err := strconv.ParseInt(row[len(row)-1], 10, 64)
		require.NoError(t, err)
		size, err := strconv.ParseInt(row[len(row)-2], 10, 64)
		require.NoError(t, err)
		addr[row[0]] = [2]int64{off, off + size}
	}
	require.Len(t, addr, len(blocks), "every block gets an address")
	s := &pack.Solution{}
	for _, x := range blocks {
		a := addr[x.name]
		assert.Equal(t, int64(x.size), a[1]-a[0])
		s.Offsets = append(s.Offsets, a[0])
		s.Peak = max(s.Peak, a[1])
	}
	p.Capacity = capacity
	require.NoError(t, pack.Check(p, s))

	code, _ = run(maxLive - 1)
	assert.NotEqual(t, 0, code, "Deeploy's 'insufficient memory' case must fail")
}
