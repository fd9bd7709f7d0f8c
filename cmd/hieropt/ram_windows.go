package main

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// memoryStatusEx is Win32's MEMORYSTATUSEX.
type memoryStatusEx struct {
	length               uint32
	memoryLoad           uint32
	totalPhys            uint64
	availPhys            uint64
	totalPageFile        uint64
	availPageFile        uint64
	totalVirtual         uint64
	availVirtual         uint64
	availExtendedVirtual uint64
}

var globalMemoryStatusEx = windows.NewLazySystemDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")

// totalRAM returns the machine's RAM in bytes (GlobalMemoryStatusEx), or 0
// if unknown.
func totalRAM() int64 {
	if globalMemoryStatusEx.Find() != nil {
		return 0
	}
	ms := memoryStatusEx{length: uint32(unsafe.Sizeof(memoryStatusEx{}))}
	if ok, _, _ := globalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&ms))); ok == 0 {
		return 0
	}
	return int64(ms.totalPhys)
}
