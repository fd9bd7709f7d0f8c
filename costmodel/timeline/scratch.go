package timeline

// Scratch holds the buffers of Simulate, so that repeated calls allocate
// nothing once the buffers have grown. The zero value is ready. A Scratch
// is not safe for concurrent use: give each goroutine its own.
type Scratch struct {
	ready []float64
	f     []float64
	order []int32
}
