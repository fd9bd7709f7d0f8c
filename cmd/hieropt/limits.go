package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
)

// Memory estimates, measured on generated programs (a 100,000-op program
// with 198,000 blocks peaks at about 230 MB while searched): about 1.5 KiB
// per block and 1 KiB per op while planning, and about 10 bytes of memory
// per byte of JSON while reading it.
const (
	bytesPerBlock  = 1536
	bytesPerOp     = 1024
	bytesPerByteIn = 10
)

// physicalMemory returns the machine's RAM, or 8 GiB if unknown.
func physicalMemory() int64 {
	if n := totalRAM(); n > 0 {
		return n
	}
	return 8 << 30
}

// parseBytes reads a size: 123, 64K, 512M, 8G, 1T (powers of 1024), with
// an optional trailing B or iB.
func parseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("%q is not a size (e.g. 512M, 8G)", s)
	}
	return int64(v * float64(mult)), nil
}

// setMaxMemory reads --max-memory (or HIEROPT_MAX_MEMORY) for a command;
// the default is 80% of the machine's RAM.
func (a *app) setMaxMemory(cmd *cobra.Command) error {
	v := viper.New()
	v.SetEnvPrefix("HIEROPT")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if f := cmd.Flags().Lookup("max-memory"); f != nil {
		if err := v.BindPFlag("max-memory", f); err != nil {
			return internalErrorf("binding --max-memory: %v", err)
		}
	}
	s := v.GetString("max-memory")
	if s == "" || s == "0" {
		a.maxMemory = physicalMemory() / 10 * 8
		return nil
	}
	n, err := parseBytes(s)
	if err != nil || n == 0 {
		return usageErrorf("--max-memory: %v", err)
	}
	a.maxMemory = n
	return nil
}

// checkInputSize rejects an input file too large to read within the
// memory limit, before reading it.
func (a *app) checkInputSize(doc, path string) error {
	if a.maxMemory <= 0 || path == "-" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil // the read reports it
	}
	return a.checkDataSize(doc, st.Size())
}

// checkDataSize rejects a document of size bytes too large to read within
// the memory limit.
func (a *app) checkDataSize(doc string, size int64) error {
	if a.maxMemory <= 0 {
		return nil
	}
	if need := size * bytesPerByteIn; need > a.maxMemory {
		return inputerr.New(doc, "", "%d bytes to read would need about %s of memory, more than --max-memory (%s)",
			size, fmtBytes(need), fmtBytes(a.maxMemory))
	}
	return nil
}

// checkProgramSize rejects a program too large to plan within the memory
// limit, before planning it.
func (a *app) checkProgramSize(doc string, p *workload.Program) error {
	if a.maxMemory <= 0 {
		return nil
	}
	need := int64(len(p.Blocks))*bytesPerBlock + int64(len(p.Ops))*bytesPerOp
	if need > a.maxMemory {
		return inputerr.New(doc, "", "planning %d ops and %d blocks would need about %s of memory, more than --max-memory (%s)",
			len(p.Ops), len(p.Blocks), fmtBytes(need), fmtBytes(a.maxMemory))
	}
	return nil
}
