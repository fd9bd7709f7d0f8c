package timeline

// Scratch holds the buffers of Simulate and Reprice, so that repeated
// calls allocate nothing once the buffers have grown. The zero value is
// ready. A Scratch is not safe for concurrent use: give each goroutine its
// own. It may serve several bases in turn.
type Scratch struct {
	// Calls counts the Reprice calls made with this Scratch and Steps the
	// ops they simulated; Steps/Calls is the mean work of a call.
	Calls, Steps int64

	ready []float64
	f     []float64
	order []int32

	ops     []OpChange
	touched []int // Derive: the chunks a change touches
	removed []CopyKey
	added   []Copy
	dirty   []int
	live    []pending
	last    float64 // max(R, the latest end in live)
	offs    []float64
	// Stamps: seenB[a] == gen and seenN[a] == gen say valB[a] and
	// valN[a] hold a value in the current comparison.
	seenB, seenN []uint32
	valB, valN   []float64
	gen          uint32

	// simChunk's buffers: the in-flight copies before a chunk, the copies
	// issued in it, and per lane offsets and runs.
	pre                               []pending
	iss                               []issued
	laneOff, laneFill, laneLo, laneHi []int32
}
