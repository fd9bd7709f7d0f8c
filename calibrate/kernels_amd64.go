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
func copyAVX512(dst, src *byte, n int)

//go:noescape
func readAVX2(p *byte, n int) uint64

//go:noescape
func writeAVX2(p *byte, n int, v uint64)

//go:noescape
func copyAVX2(dst, src *byte, n int)

var (
	avx512Kernels = kernelSet{
		name:  "avx512",
		read:  func(b []uint64) uint64 { return readAVX512(bytePtr(b), len(b)*8) },
		write: func(b []uint64, v uint64) { writeAVX512(bytePtr(b), len(b)*8, v) },
		copy:  func(dst, src []uint64) { copyAVX512(bytePtr(dst[:len(src)]), bytePtr(src), len(src)*8) },
	}
	avx2Kernels = kernelSet{
		name:  "avx2",
		read:  func(b []uint64) uint64 { return readAVX2(bytePtr(b), len(b)*8) },
		write: func(b []uint64, v uint64) { writeAVX2(bytePtr(b), len(b)*8, v) },
		copy:  func(dst, src []uint64) { copyAVX2(bytePtr(dst[:len(src)]), bytePtr(src), len(src)*8) },
	}
)

func init() {
	if cpu.X86.HasAVX2 {
		availableKernels = append([]kernelSet{avx2Kernels}, availableKernels...)
	}
	if cpu.X86.HasAVX512F {
		availableKernels = append([]kernelSet{avx512Kernels}, availableKernels...)
	}
	kernels = availableKernels[0]
}

func bytePtr(b []uint64) *byte { return (*byte)(unsafe.Pointer(unsafe.SliceData(b))) }
