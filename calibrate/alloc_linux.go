package calibrate

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

const hugePage = 2 << 20

// allocWords returns a buffer of n words outside the Go heap, 2 MiB-aligned
// and advised to use transparent huge pages where the kernel allows, so
// that TLB misses (and, in a virtual machine, nested page walks) do not add
// to the latency of the level being measured. free releases it. If mmap
// fails, the buffer comes from the Go heap.
func allocWords(n int) (buf []uint64, free func()) {
	size := (n*8 + hugePage - 1) / hugePage * hugePage
	mem, err := unix.Mmap(-1, 0, size+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]uint64, n), func() {}
	}
	off := 0
	if r := uintptr(unsafe.Pointer(&mem[0])) % hugePage; r != 0 {
		off = int(hugePage - r)
	}
	aligned := mem[off : off+size]
	_ = unix.Madvise(aligned, unix.MADV_HUGEPAGE) // advice only: 4 KiB pages still work
	buf = unsafe.Slice((*uint64)(unsafe.Pointer(&aligned[0])), n)
	return buf, func() { _ = unix.Munmap(mem) }
}
