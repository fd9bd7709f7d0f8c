package calibrate

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:noescape
func readAVX512(p *byte, n int) uint64

//go:noescape
func writeAVX512(p *byte, n int, v uint64)

//go:noescape
func readAVX2(p *byte, n int) uint64

//go:noescape
func writeAVX2(p *byte, n int, v uint64)

func init() {
	switch {
	case cpu.X86.HasAVX512F:
		kernels = kernelSet{
			name:  "avx512",
			read:  func(b []uint64) uint64 { return readAVX512(bytePtr(b), len(b)*8) },
			write: func(b []uint64, v uint64) { writeAVX512(bytePtr(b), len(b)*8, v) },
		}
	case cpu.X86.HasAVX2:
		kernels = kernelSet{
			name:  "avx2",
			read:  func(b []uint64) uint64 { return readAVX2(bytePtr(b), len(b)*8) },
			write: func(b []uint64, v uint64) { writeAVX2(bytePtr(b), len(b)*8, v) },
		}
	}
}

func bytePtr(b []uint64) *byte { return (*byte)(unsafe.Pointer(unsafe.SliceData(b))) }
