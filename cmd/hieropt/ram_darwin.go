package main

import "golang.org/x/sys/unix"

// totalRAM returns the machine's RAM in bytes (sysctl hw.memsize), or 0
// if unknown.
func totalRAM() int64 {
	n, err := unix.SysctlUint64("hw.memsize")
	if err != nil {
		return 0
	}
	return int64(n)
}
