package main

import "golang.org/x/sys/unix"

// totalRAM returns the machine's RAM in bytes (sysinfo), or 0 if unknown.
func totalRAM() int64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
