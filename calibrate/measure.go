package calibrate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"time"
)

// Options controls Measure.
type Options struct {
	// Levels to measure, by name (L1, L2, L3, DRAM); default all four.
	Levels []string
	// Repeat is the number of samples per size, direction and kind
	// (default 5).
	Repeat int
	// Quick measures 3 sizes per level (12 otherwise) with short batches
	// and a smaller DRAM range: a run of a second or two, for tests.
	Quick bool
	// Caches gives the cache capacities; nil reads them (ReadCaches).
	Caches *Caches
	// Batch is the shortest timed run; each sample is the fastest of 3
	// runs of at least Batch, in 3 sweeps over the level. Default 500µs
	// (50µs with Quick).
	Batch time.Duration
	// Progress, if set, is called after every step (the 2 latency runs,
	// or the 2 streaming runs, of one size in one sweep, or the copy run
	// of one copy size in one sweep) with the number of steps done and the
	// total.
	Progress func(done, total int)
}

// Sizes per level and timing constants.
const (
	sizesFull    = 12
	sizesQuick   = 3
	batchFull    = 500 * time.Microsecond
	batchQuick   = 50 * time.Microsecond
	bestOf       = 3
	LatencyBytes = 8 // the bytes of a latency (pointer-chase) sample: one word
	lineWords    = 8 // 64-byte cache line, in words
)

// LevelPlan is what Measure does for one level: streaming samples at Sizes
// (bytes), pointer-chase samples over a ring of ChaseBytes, and copy
// samples of CopySizes bytes.
type LevelPlan struct {
	Level      string
	Sizes      []int64
	ChaseBytes int64
	// CopySizes are the bytes of the copy samples: each is half of a
	// streaming size (the smallest, a middle one and the largest), so that
	// source and destination together take the room of that streaming
	// buffer and sit in the level as it does.
	CopySizes []int64
}

// pageBytes is the granule of 4K aliasing: a load whose address matches a
// pending store's in bits 0-11 waits for it on x86 cores. The copy's
// destination starts a whole number of pages after its source.
const pageBytes = 4096

// Plan returns the sizes Measure uses for each level: from 1/8 to 1/2 of
// the level's capacity for L1, L2 and L3, and from 2x the L3 to 8x the L3
// (at most 256 MiB, at least twice the start) for DRAM; 12 sizes spread
// evenly (3 with Quick, and DRAM from 2x to 3x the L3). Sizes are multiples
// of 256 bytes. The pointer chase runs over the largest size of L1 and L2
// and the smallest of L3 and DRAM. Copies move half of the smallest, a
// middle and the largest size (rounded down to 256 bytes) from one buffer
// into another.
func Plan(o Options) ([]LevelPlan, error) {
	caches := ReadCaches()
	if o.Caches != nil {
		caches = *o.Caches
	}
	levels := o.Levels
	if len(levels) == 0 {
		levels = LevelOrder
	}
	n := sizesFull
	if o.Quick {
		n = sizesQuick
	}
	var out []LevelPlan
	for _, l := range levels {
		if !slices.Contains(LevelOrder, l) {
			return nil, fmt.Errorf("unknown level %q: want %s", l, joinLevels())
		}
		if slices.ContainsFunc(out, func(p LevelPlan) bool { return p.Level == l }) {
			return nil, fmt.Errorf("level %q given twice", l)
		}
		var lo, hi int64
		switch l {
		case "DRAM":
			lo = 2 * caches.L3
			hi = min(8*caches.L3, max(256<<20, 2*lo))
			if o.Quick {
				hi = 3 * caches.L3
			}
		default:
			c, _ := caches.Capacity(l)
			lo, hi = c/8, c/2
		}
		p := LevelPlan{Level: l, Sizes: spread(lo, hi, n)}
		for _, i := range []int{0, (len(p.Sizes) - 1) / 2, len(p.Sizes) - 1} {
			c := p.Sizes[i] / 2 / (kernelWords * 8) * (kernelWords * 8)
			if c = max(c, kernelWords*8); !slices.Contains(p.CopySizes, c) {
				p.CopySizes = append(p.CopySizes, c)
			}
		}
		// The ring of the latency samples: for L1 and L2 the largest size,
		// so that few hops hit the level above; for L3 and DRAM the
		// smallest (4x the L2, 2x the L3), which misses the level above
		// as well, and spans the fewest pages: a random hop also pays for
		// a TLB miss (a page walk, nested in a virtual machine) that a
		// streaming transfer pays once per page; and in a shared L3 the
		// smaller ring is the likelier to stay resident.
		p.ChaseBytes = p.Sizes[len(p.Sizes)-1]
		if l == "L3" || l == "DRAM" {
			p.ChaseBytes = p.Sizes[0]
		}
		out = append(out, p)
	}
	return out, nil
}

func joinLevels() string {
	s := ""
	for i, l := range LevelOrder {
		if i > 0 {
			s += ", "
		}
		s += l
	}
	return s
}

// spread returns n sizes evenly spread over [lo, hi], rounded down to
// multiples of 256 bytes, at least 256, without repeats.
func spread(lo, hi int64, n int) []int64 {
	const g = kernelWords * 8
	var out []int64
	for i := 0; i < n; i++ {
		v := lo
		if n > 1 {
			v = lo + (hi-lo)*int64(i)/int64(n-1)
		}
		v = max(g, v/g*g)
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

// sink keeps the checksums of the read kernels and chases alive.
var sink uint64 //nolint:unused // written only: a result the compiler must compute

// CopySample is one copy measurement: copying Bytes bytes from one buffer
// to another, both resident in the level Level, took NS nanoseconds. Copies
// are not samples of the model (the samples file holds in and out only):
// they check it (CheckCopies).
type CopySample struct {
	Level string
	Bytes int64
	NS    float64
}

// Result is what Measure measured.
type Result struct {
	// Samples are the in and out samples: what WriteSamples writes and
	// Fit fits.
	Samples []Sample
	// Copies are the copy samples, for each level, each repetition and
	// each of the level's CopySizes in turn.
	Copies []CopySample
}

// Measure measures this machine's memory hierarchy and returns the
// samples, for each level of the plan (see Plan), each repetition and each
// size in turn:
//
//   - out, the size in bytes: the time of one pass of a read kernel over a
//     buffer of that size (every byte loaded, summed into a checksum that
//     is kept, so the loads cannot be dropped; see Kernel), the buffer
//     first warmed by a pass so that it is resident in the level;
//   - in, the size: the same for a write kernel (every byte stored);
//   - out, LatencyBytes: the time of one hop of a pointer chase around a
//     random cyclic permutation of the cache lines of a buffer sized to
//     the level (LevelPlan.ChaseBytes; each load's address is the previous
//     load's value, so the loads cannot overlap: the level's access
//     latency);
//   - in, LatencyBytes: the same chase storing into each line it visits
//     before loading from it (a dependent read-for-ownership).
//
// and the copy samples (Result.Copies), for each level, each repetition
// and each of the level's CopySizes: the time of one pass of a copy kernel
// (every byte of the source loaded, every byte of the destination stored)
// from a buffer of that size into another, the destination starting at
// the first 4 KiB boundary after the source (see copyOffset), both
// warmed by a pass.
//
// Times are in nanoseconds; each sample is the fastest of 3 timed runs of
// at least Options.Batch, taken in 3 sweeps over the level, far apart in
// time, so that an interruption of the process or a burst of interference
// from other tenants of the machine does not count; a sweep takes its
// latency samples, then its streaming ones, then its copies. Buffers are
// 2 MiB-aligned and advised to use huge pages (Linux). Measure runs on a
// locked OS thread with the garbage collector off. Cancelling ctx stops it
// within a step; it then returns the samples of the levels completed and
// ctx.Err().
func Measure(ctx context.Context, o Options) (Result, error) {
	plan, err := Plan(o)
	if err != nil {
		return Result{}, err
	}
	if o.Repeat == 0 {
		o.Repeat = 5
	}
	if o.Repeat < 0 {
		return Result{}, fmt.Errorf("repeat %d: want at least 1", o.Repeat)
	}
	if o.Batch <= 0 {
		o.Batch = batchFull
		if o.Quick {
			o.Batch = batchQuick
		}
	}
	total := 0
	for _, p := range plan {
		total += bestOf * o.Repeat * (2*len(p.Sizes) + len(p.CopySizes))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	m := &meter{batch: o.Batch, rng: rand.New(rand.NewPCG(1, 2))}
	spin(ifElse(o.Quick, 20*time.Millisecond, 200*time.Millisecond)) // let the clock ramp up
	var out Result
	done := 0
	for _, p := range plan {
		var err error
		done, err = m.level(ctx, p, o, &out, done, total)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// level takes the samples of one level, appending them to out once all
// are taken. Each sample is the fastest of bestOf runs taken in bestOf
// sweeps over all the level's repetitions and sizes, so that a sample's runs are far apart in
// time: a burst of interference (other processes; in a virtual machine,
// other tenants sharing the core or the L3) rarely covers all of them.
//
// A sweep takes all its latency samples first, then all its streaming
// samples: a pointer chase right after a streaming pass is slower for a
// millisecond or so (the prefetchers trained on the stream keep issuing
// useless requests; the page-table entries of the ring have left the
// caches), so the latency phase starts with warmChase. The copies come
// last, over the same buffer.
func (m *meter) level(ctx context.Context, p LevelPlan, o Options, out *Result, done, total int) (int, error) {
	words := p.Sizes[len(p.Sizes)-1] / 8
	for _, c := range p.CopySizes {
		words = max(words, copyOffset(c)+c/8)
	}
	buf, freeBuf := allocWords(int(words))
	defer freeBuf()
	// Write every page: an untouched page of anonymous memory reads as
	// the kernel's shared zero page, which would stay in the caches.
	kernels.write(buf, 1)
	ring, freeRing := m.ring(p.ChaseBytes)
	defer freeRing()
	n := o.Repeat * len(p.Sizes)
	best := make([][4]float64, n)
	for i := range best {
		best[i] = [4]float64{math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)}
	}
	keep := func(i, k int, t float64) { best[i][k] = min(best[i][k], t) }
	nc := o.Repeat * len(p.CopySizes)
	bestCopy := make([]float64, nc)
	for i := range bestCopy {
		bestCopy[i] = math.Inf(1)
	}
	step := func() error {
		done++
		if o.Progress != nil {
			o.Progress(done, total)
		}
		return ctx.Err()
	}
	for sweep := 0; sweep < bestOf; sweep++ {
		m.warmChase(ring, p.Level != "DRAM")
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				keep(i, 2, m.latency(ring, false))
				keep(i, 3, m.latency(ring, true))
			} else {
				keep(i, 3, m.latency(ring, true))
				keep(i, 2, m.latency(ring, false))
			}
			if err := step(); err != nil {
				return done, err
			}
		}
		for i := 0; i < n; i++ {
			b := buf[:p.Sizes[i%len(p.Sizes)]/8]
			// The write pass first: the read pass's warm-up then writes
			// its dirty lines back before the timed passes, so that no
			// write-back traffic delays the reads.
			keep(i, 1, m.stream(b, true))
			keep(i, 0, m.stream(b, false))
			if err := step(); err != nil {
				return done, err
			}
		}
		for i := 0; i < nc; i++ {
			dst, src := copyBuffers(buf, p.CopySizes[i%len(p.CopySizes)])
			bestCopy[i] = min(bestCopy[i], m.copy(dst, src))
			if err := step(); err != nil {
				return done, err
			}
		}
	}
	for i, t := range best {
		size := p.Sizes[i%len(p.Sizes)]
		out.Samples = append(out.Samples,
			Sample{p.Level, Out, size, t[0]},
			Sample{p.Level, In, size, t[1]},
			Sample{p.Level, Out, LatencyBytes, t[2]},
			Sample{p.Level, In, LatencyBytes, t[3]})
	}
	for i, t := range bestCopy {
		out.Copies = append(out.Copies, CopySample{p.Level, p.CopySizes[i%len(p.CopySizes)], t})
	}
	return done, nil
}

// copyOffset is where, in words, the destination of a copy of size bytes
// starts in the level's buffer: at the first page boundary after the
// source (which starts at the buffer's start, page-aligned), so that the
// destination's address is the source's plus a whole number of pages.
// At a distance of d bytes (mod 4 KiB), the load of the source d bytes on
// from a store to the destination matches that store's address in bits
// 0-11 and, if the store is still pending, waits for it (4K aliasing); at
// whole pages the match is 4 KiB on, when the store has long been done.
func copyOffset(size int64) int64 { return (size + pageBytes - 1) / pageBytes * pageBytes / 8 }

// copyBuffers returns the destination and the source of a copy of size
// bytes within buf.
func copyBuffers(buf []uint64, size int64) (dst, src []uint64) {
	off := copyOffset(size)
	return buf[off : off+size/8], buf[:size/8]
}

func ifElse[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// spin keeps the core busy for d.
func spin(d time.Duration) {
	start := time.Now()
	x := uint64(1)
	for time.Since(start) < d {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink += x
}

// copy returns the time of one pass of the copy kernel from src to dst,
// in ns, timed as stream times its passes.
func (m *meter) copy(dst, src []uint64) float64 {
	run := func(iters int) time.Duration {
		start := time.Now()
		for i := 0; i < iters; i++ {
			kernels.copy(dst, src)
		}
		return time.Since(start)
	}
	run(1) // warm: both buffers are now resident
	one := run(1)
	iters := max(1, int(math.Ceil(float64(m.batch)/float64(max(one, 1)))))
	return float64(run(iters).Nanoseconds()) / float64(iters)
}

type meter struct {
	batch time.Duration
	rng   *rand.Rand
	pos   uint64 // where the chase stands
	v     uint64 // the value the write kernel stores, changed every pass
}

// stream returns the time of one pass of the read (or write) kernel over
// b, in ns: after a pass that warms the buffer and one that estimates the
// time of a pass, the mean of enough passes to last m.batch.
func (m *meter) stream(b []uint64, write bool) float64 {
	run := func(iters int) time.Duration {
		var s uint64
		start := time.Now()
		if write {
			for i := 0; i < iters; i++ {
				m.v++
				kernels.write(b, m.v)
			}
		} else {
			for i := 0; i < iters; i++ {
				s += kernels.read(b)
			}
		}
		el := time.Since(start)
		sink += s
		return el
	}
	run(1) // warm: the buffer is now resident
	one := run(1)
	iters := max(1, int(math.Ceil(float64(m.batch)/float64(max(one, 1)))))
	return float64(run(iters).Nanoseconds()) / float64(iters)
}

// ring builds a pointer-chase ring over a buffer of size bytes: one node
// per 64-byte line, word 0 of each node holding the index of the next
// node's word 0, the nodes linked in a random cyclic order (Sattolo's
// algorithm), so that hardware prefetchers cannot guess the next line.
func (m *meter) ring(size int64) ([]uint64, func()) {
	nodes := int(size / 64)
	buf, free := allocWords(nodes * lineWords)
	perm := make([]uint32, nodes)
	for i := range perm {
		perm[i] = uint32(i)
	}
	for i := nodes - 1; i > 0; i-- {
		j := m.rng.IntN(i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	// perm is a single cycle: node perm[k] -> perm[k+1].
	for k := 0; k < nodes; k++ {
		buf[int(perm[k])*lineWords] = uint64(perm[(k+1)%nodes]) * lineWords
	}
	m.pos = 0
	return buf, free
}

// chase walks hops hops of the ring from m.pos; with write, it stores into
// each node before loading its successor.
func (m *meter) chase(ring []uint64, write bool, hops int) {
	p := m.pos
	if write {
		for i := 0; i < hops; i += 4 {
			ring[p+1] = p
			p = ring[p]
			ring[p+1] = p
			p = ring[p]
			ring[p+1] = p
			p = ring[p]
			ring[p+1] = p
			p = ring[p]
		}
	} else {
		for i := 0; i < hops; i += 4 {
			p = ring[p]
			p = ring[p]
			p = ring[p]
			p = ring[p]
		}
	}
	m.pos = p
}

// warmChase prepares the ring for latency samples: with lap, a lap of the
// ring (so that it is resident in the level), then chasing for 4 batches'
// time untimed.
func (m *meter) warmChase(ring []uint64, lap bool) {
	if lap {
		m.chase(ring, false, len(ring)/lineWords)
	}
	m.chase(ring, false, m.hops(ring, false, 4*m.batch))
}

// hops returns how many hops of the chase last about d (a multiple of 4),
// from the time of a few.
func (m *meter) hops(ring []uint64, write bool, d time.Duration) int {
	const probe = 256
	start := time.Now()
	m.chase(ring, write, probe)
	one := time.Since(start)
	hops := int(math.Ceil(float64(d) / float64(max(one, 1)) * probe))
	return max(probe, (hops+3)/4*4)
}

// latency returns the time of one hop of the chase, in ns: the mean of
// enough hops to last m.batch.
func (m *meter) latency(ring []uint64, write bool) float64 {
	hops := m.hops(ring, write, m.batch)
	start := time.Now()
	m.chase(ring, write, hops)
	ns := float64(time.Since(start).Nanoseconds()) / float64(hops)
	sink += m.pos
	return ns
}
