package workload_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/workload"
)

// workloadsDir holds the benchmark workloads traced from real networks and
// the README whose table was computed by the (independent) tracer.
const workloadsDir = "../workloads"

// shippedFiles returns the paths of every shipped workload, sorted.
func shippedFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(workloadsDir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no workloads in %s", workloadsDir)
	return files
}

// readFile reads and validates one shipped workload.
func readFile(t *testing.T, path string) *workload.Program {
	t.Helper()
	p, err := workload.ReadFile(path)
	require.NoError(t, err, "%s must parse", path)
	require.NotNil(t, p)
	return p
}

// readmeRow is one row of the table in workloads/README.md.
type readmeRow struct {
	ops, blocks                      int
	total, maxLive, inPlace, noConst int64
	constBytes                       int64
	largestName                      string
	largestSize                      int64
	gmacs                            string // as printed, 3 decimals
}

var largestRE = regexp.MustCompile(`^(\S+) \((\d+)\)$`)

// readmeTable parses the markdown table of the workloads README, keyed by
// file name.
func readmeTable(t *testing.T) map[string]readmeRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(workloadsDir, "README.md"))
	require.NoError(t, err)
	rows := map[string]readmeRow{}
	header := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		require.Len(t, cells, 10, "README table row %q", line)
		if cells[0] == "file" {
			require.Equal(t, []string{"file", "ops", "blocks", "total bytes", "max-live bytes",
				"max-live, in-place aware", "max-live w/o constants", "constant bytes",
				"largest block (bytes)", "GMACs"}, cells, "README table header changed")
			header = true
			continue
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		var r readmeRow
		r.ops = int(atoi(t, cells[1]))
		r.blocks = int(atoi(t, cells[2]))
		r.total = atoi(t, cells[3])
		r.maxLive = atoi(t, cells[4])
		r.inPlace = atoi(t, cells[5])
		r.noConst = atoi(t, cells[6])
		r.constBytes = atoi(t, cells[7])
		m := largestRE.FindStringSubmatch(cells[8])
		require.NotNil(t, m, "largest block cell %q", cells[8])
		r.largestName, r.largestSize = m[1], atoi(t, m[2])
		r.gmacs = cells[9]
		_, dup := rows[cells[0]]
		require.False(t, dup, "README lists %s twice", cells[0])
		rows[cells[0]] = r
	}
	require.True(t, header, "README has no table header")
	require.NotEmpty(t, rows)
	return rows
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return v
}

func TestShippedWorkloadsParse(t *testing.T) {
	for _, path := range shippedFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := readFile(t, path)
			assert.Equal(t, strings.TrimSuffix(filepath.Base(path), ".json"), p.Name, "name matches the file")
			assert.NotEmpty(t, p.Source, "every shipped workload says where it comes from")
			assert.Equal(t, len(p.Ops), p.Timesteps())
		})
	}
}

// TestShippedStatsMatchREADME cross-checks ComputeStats against the table
// the tracer wrote when it made the files.
func TestShippedStatsMatchREADME(t *testing.T) {
	table := readmeTable(t)
	files := shippedFiles(t)
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	tableNames := make([]string, 0, len(table))
	for n := range table {
		tableNames = append(tableNames, n)
	}
	assert.ElementsMatch(t, names, tableNames, "README rows and shipped files differ")

	for _, path := range files {
		name := filepath.Base(path)
		want, ok := table[name]
		if !ok {
			continue // reported above
		}
		t.Run(name, func(t *testing.T) {
			p := readFile(t, path)
			s := p.ComputeStats()
			assert.Equal(t, want.ops, s.Ops, "ops")
			assert.Equal(t, want.blocks, s.Blocks, "blocks")
			assert.Equal(t, want.total, s.TotalBytes, "total bytes")
			assert.Equal(t, want.maxLive, s.MaxLive, "max-live")
			assert.Equal(t, want.inPlace, s.MaxLiveInPlace, "max-live, in-place aware")
			assert.Equal(t, want.noConst, s.MaxLiveNoConst, "max-live w/o constants")
			assert.Equal(t, want.constBytes, s.ConstBytes, "constant bytes")
			require.GreaterOrEqual(t, s.Largest, 0)
			assert.Equal(t, want.largestName, p.Blocks[s.Largest].Name, "largest block")
			assert.Equal(t, want.largestSize, p.Blocks[s.Largest].Size, "largest block size")
			assert.Equal(t, want.gmacs, fmt.Sprintf("%.3f", float64(s.MACs)/1e9), "GMACs")

			// Internal consistency of the figures the table does not list.
			sum := 0
			for _, n := range s.BlocksByKind {
				sum += n
			}
			assert.Equal(t, s.Blocks, sum, "BlocksByKind adds up to Blocks")
			assert.LessOrEqual(t, s.MaxLiveInPlace, s.MaxLive)
			assert.LessOrEqual(t, s.MaxLiveNoConst, s.MaxLive)
			assert.GreaterOrEqual(t, s.MaxLiveAt, 0)
			assert.Less(t, s.MaxLiveAt, s.Ops)
		})
	}
}

// assertSameProgram compares the document fields of two programs (the
// indexes Validate builds are not compared).
func assertSameProgram(t *testing.T, want, got *workload.Program) {
	t.Helper()
	assert.Equal(t, want.Name, got.Name, "name")
	assert.Equal(t, want.Source, got.Source, "source")
	assert.Equal(t, want.Ops, got.Ops, "ops")
	require.Len(t, got.Blocks, len(want.Blocks), "blocks")
	for i := range want.Blocks {
		assert.Equal(t, want.Blocks[i], got.Blocks[i], "block %d", i)
	}
}

func TestShippedWorkloadsRoundTrip(t *testing.T) {
	for _, path := range shippedFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := readFile(t, path)
			var buf bytes.Buffer
			require.NoError(t, p.Write(&buf))
			q, err := workload.Parse("written.json", buf.Bytes())
			require.NoError(t, err, "Write must produce a valid document:\n%s", buf.String())
			assertSameProgram(t, p, q)
			assert.Equal(t, p.ComputeStats(), q.ComputeStats())

			// Writing is deterministic: the re-read program writes the
			// same bytes.
			var again bytes.Buffer
			require.NoError(t, q.Write(&again))
			assert.Equal(t, buf.String(), again.String())
		})
	}
}
