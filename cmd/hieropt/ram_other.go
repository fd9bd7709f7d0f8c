//go:build !linux && !darwin && !windows

package main

// totalRAM returns 0: the machine's RAM is not known on this system, and
// physicalMemory assumes 8 GiB.
func totalRAM() int64 { return 0 }
