package calibrate

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Caches are the data-cache capacities of this machine's first CPU, in
// bytes.
type Caches struct {
	L1, L2, L3 int64
	// FromSys records which of L1, L2, L3 were read from /sys (the others
	// are the fallbacks).
	FromSys [3]bool
}

// Fallback capacities when /sys does not say.
const (
	FallbackL1 = 32 << 10
	FallbackL2 = 1 << 20
	FallbackL3 = 32 << 20
	// DRAMCapacity is the capacity a fitted profile gives DRAM when no
	// --base profile says otherwise.
	DRAMCapacity = 16 << 30
)

// sysCacheDir is where Linux describes the caches of CPU 0.
var sysCacheDir = "/sys/devices/system/cpu/cpu0/cache"

// ReadCaches returns the data (or unified) cache sizes of CPU 0 from
// /sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}, with
// FallbackL1/L2/L3 for levels that are absent.
func ReadCaches() Caches { return readCaches(sysCacheDir) }

func readCaches(dir string) Caches {
	c := Caches{L1: FallbackL1, L2: FallbackL2, L3: FallbackL3}
	idx, _ := filepath.Glob(filepath.Join(dir, "index*"))
	for _, d := range idx {
		level, err1 := readTrim(filepath.Join(d, "level"))
		typ, err2 := readTrim(filepath.Join(d, "type"))
		size, err3 := readTrim(filepath.Join(d, "size"))
		if err1 != nil || err2 != nil || err3 != nil || typ == "Instruction" {
			continue
		}
		n, ok := parseCacheSize(size)
		if !ok {
			continue
		}
		switch level {
		case "1":
			c.L1, c.FromSys[0] = n, true
		case "2":
			c.L2, c.FromSys[1] = n, true
		case "3":
			c.L3, c.FromSys[2] = n, true
		}
	}
	return c
}

func readTrim(name string) (string, error) {
	b, err := os.ReadFile(name)
	return strings.TrimSpace(string(b)), err
}

// parseCacheSize reads "48K", "1024K", "32M" or a plain byte count.
func parseCacheSize(s string) (int64, bool) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n * mult, true
}

// Capacity returns the capacity of a level by its calibrate name: L1, L2
// and L3 from c, DRAM the DRAMCapacity.
func (c Caches) Capacity(level string) (int64, bool) {
	switch level {
	case "L1":
		return c.L1, true
	case "L2":
		return c.L2, true
	case "L3":
		return c.L3, true
	case "DRAM":
		return DRAMCapacity, true
	}
	return 0, false
}
