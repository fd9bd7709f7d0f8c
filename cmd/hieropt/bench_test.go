package main

import (
	"encoding/csv"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchCores: --cores plans every pair on each core count, checks
// the plans are identical, prints a time per count and their ratio, and
// gives GOMAXPROCS back.
func TestBenchCores(t *testing.T) {
	// With -short (CI's race run) a smaller network than ResNet-50.
	network, prof := "resnet50-int8", "ethos-u55"
	if testmode.Quick() {
		network, prof = "squeezenet1_1-int8", "k210"
	}
	procs := runtime.GOMAXPROCS(0)
	r := runCLI(t, "", "bench", "--workloads", "seed000-example,"+network, "--hw", "ethos-u55,k210",
		"--cores", "1,2", "--repeat", "2", "--format", "csv")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, procs, runtime.GOMAXPROCS(0))
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"workload", "profile", "seconds_1_cores", "seconds_2_cores", "speedup", "status"}, recs[0])
	require.Len(t, recs, 5)
	valid := 0
	for _, rec := range recs[1:] {
		if rec[5] != "valid" {
			assert.Contains(t, rec[5], "does not fit")
			continue
		}
		valid++
		one, err1 := strconv.ParseFloat(rec[2], 64)
		two, err2 := strconv.ParseFloat(rec[3], 64)
		sp, err3 := strconv.ParseFloat(rec[4], 64)
		require.NoError(t, err1)
		require.NoError(t, err2)
		require.NoError(t, err3)
		require.Positive(t, one)
		require.Positive(t, two)
		assert.InEpsilon(t, one/two, sp, 0.05) // times are rounded to microseconds
	}
	assert.GreaterOrEqual(t, valid, 3)

	// --copies: N one-worker searches at once on N cores; the ceiling is
	// N times the one-core time over theirs.
	r = runCLI(t, "", "bench", "--workloads", network, "--hw", prof,
		"--cores", "1,2", "--copies", "--repeat", "2", "--format", "csv")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, procs, runtime.GOMAXPROCS(0))
	recs, err = csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"workload", "profile", "seconds_1_cores", "seconds_2_cores", "speedup", "seconds_2_copies", "ceiling", "status"}, recs[0])
	require.Len(t, recs, 2)
	require.Equal(t, "valid", recs[1][7])
	var v [5]float64
	for i := range v {
		v[i], err = strconv.ParseFloat(recs[1][2+i], 64)
		require.NoError(t, err)
		require.Positive(t, v[i])
	}
	assert.InEpsilon(t, 2*v[0]/v[3], v[4], 0.05)

	r = runCLI(t, "", "bench", "--workloads", "seed000-example", "--hw", "ethos-u55", "--cores", "1,3", "--copies")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "| workload | profile | 1 core | 3 cores | speedup | 3 copies | ceiling | plans |")
	assert.Regexp(t, `\| seed000-example \| ethos-u55 \| .+ \| .+ \| \d+\.\d\dx \| .+ \| \d+\.\d\dx \| valid, identical \|`, r.stdout)

	r = runCLI(t, "", "bench", "--workloads", "seed000-example", "--hw", "ethos-u55", "--cores", "1,2,3")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "| workload | profile | 1 core | 2 cores | 3 cores | speedup | plans |")
	assert.Regexp(t, `\| seed000-example \| ethos-u55 \| .+ \| .+ \| .+ \| \d+\.\d\dx \| valid, identical \|`, r.stdout)

	for _, c := range []struct{ args, err string }{
		{"--copies", "--copies compares with one core: give --cores 1,N"},
		{"--cores 2,1 --copies", "--copies compares with one core: give --cores 1,N"},
		{"--cores 0", "--cores 0: want at least 1"},
		{"--cores 1,2 -j 2", "--cores sets the workers to the number of cores: drop -j"},
		{"--cores 1,2 --format grid", "--cores prints times per core count: use --format text, csv or json"},
	} {
		r := runCLI(t, "", append([]string{"bench", "--workloads", "seed000-example", "--hw", "ethos-u55"}, strings.Fields(c.args)...)...)
		assert.Equal(t, exitInput, r.code, c.args)
		assert.Contains(t, r.stderr, "hieropt: "+c.err+"\n", c.args)
	}
}

// bench's gap to the bound: every plan's cost bound (the one 'hieropt
// bounds' prints) is at most its cost, and the percentage is the cost's
// distance above it.
func TestBenchGapToBound(t *testing.T) {
	hws := repo("testdata", "hw", "seed003", "ethos-u55.yaml") + "," + repo("testdata", "hw", "seed003", "h100-sm.yaml")
	r := runCLI(t, "", "bench", "--workloads", "resnet18-int8,squeezenet1_1-int8", "--hw", hws, "--format", "csv")
	require.Equal(t, exitOK, r.code, r.stderr)
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"cost_bound", "above_bound_pct"}, recs[0][10:])
	require.Len(t, recs, 5)
	for _, rec := range recs[1:] {
		cost, err := strconv.ParseFloat(rec[3], 64)
		require.NoError(t, err)
		bound, err := strconv.ParseFloat(rec[10], 64)
		require.NoError(t, err, "%v", rec)
		gap, err := strconv.ParseFloat(rec[11], 64)
		require.NoError(t, err)
		require.LessOrEqual(t, bound, cost, "%v", rec)
		require.InDelta(t, 100*(cost-bound)/bound, gap, 1e-3, "%v", rec)
	}
}
