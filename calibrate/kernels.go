package calibrate

// A kernel streams over a buffer whose length is a multiple of kernelWords
// (256 bytes): read loads every byte and returns a checksum (so that the
// loads cannot be removed), write stores v into every word, copy loads
// every byte of src and stores it into dst (len(src) bytes; dst must be at
// least as long and must not overlap src).
//
// On amd64 they are assembly loops of 512-bit (AVX-512) or 256-bit (AVX2)
// loads and stores: a scalar Go loop issues 8-byte accesses and is limited
// by the core's load/store ports at about the rate the L2 delivers, so it
// could not tell L1 from L2. Elsewhere they are the Go loops below, unrolled
// over 8 words. (The copy kernel is not the built-in copy: memmove may use
// string instructions or non-temporal stores that skip the caches.)
type kernelSet struct {
	name  string
	read  func(b []uint64) uint64
	write func(b []uint64, v uint64)
	copy  func(dst, src []uint64)
}

// kernelWords is the granularity of the kernels, in 8-byte words.
const kernelWords = 32

// goKernels are the portable kernels.
var goKernels = kernelSet{name: "go", read: readGo, write: writeGo, copy: copyGo}

// kernels are the kernels Measure uses: the fastest of availableKernels.
var kernels = goKernels

// availableKernels are the kernel sets this machine can run, the fastest
// first (set by init on amd64); the tests check every one.
var availableKernels = []kernelSet{goKernels}

// Kernel names the streaming kernels Measure uses on this machine: "avx512",
// "avx2" or "go".
func Kernel() string { return kernels.name }

func readGo(b []uint64) uint64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 uint64
	for i := 0; i+8 <= len(b); i += 8 {
		c := b[i : i+8 : i+8]
		s0 += c[0]
		s1 += c[1]
		s2 += c[2]
		s3 += c[3]
		s4 += c[4]
		s5 += c[5]
		s6 += c[6]
		s7 += c[7]
	}
	return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7
}

func writeGo(b []uint64, v uint64) {
	for i := 0; i+8 <= len(b); i += 8 {
		c := b[i : i+8 : i+8]
		c[0] = v
		c[1] = v
		c[2] = v
		c[3] = v
		c[4] = v
		c[5] = v
		c[6] = v
		c[7] = v
	}
}

func copyGo(dst, src []uint64) {
	dst = dst[:len(src)]
	for i := 0; i+8 <= len(src); i += 8 {
		s := src[i : i+8 : i+8]
		d := dst[i : i+8 : i+8]
		d[0] = s[0]
		d[1] = s[1]
		d[2] = s[2]
		d[3] = s[3]
		d[4] = s[4]
		d[5] = s[5]
		d[6] = s[6]
		d[7] = s[7]
	}
}
