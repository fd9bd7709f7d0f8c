package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTotalRAM: sysinfo's total RAM is /proc/meminfo's MemTotal, and it is
// what the default --max-memory is taken from.
func TestTotalRAM(t *testing.T) {
	f, err := os.Open("/proc/meminfo")
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	var kib int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kib, err = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err)
		}
	}
	require.Positive(t, kib)
	assert.Equal(t, kib*1024, totalRAM())
	assert.Equal(t, totalRAM(), physicalMemory())
}
