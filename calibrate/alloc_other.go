//go:build !linux

package calibrate

// allocWords returns a buffer of n words; free is a no-op (the garbage
// collector reclaims it).
func allocWords(n int) (buf []uint64, free func()) { return make([]uint64, n), func() {} }
