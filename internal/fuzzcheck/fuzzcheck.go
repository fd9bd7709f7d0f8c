// Package fuzzcheck builds small random planning problems for fuzz and
// property tests: a program of a few ops and blocks (every kind, reusable
// blocks, scratch, constants, pins, extra alignments) and a profile of a few
// levels, drawn from a stream of choices. The choices come from fuzz bytes
// (Bytes) or from a seeded math/rand/v2 generator, so that a fuzzer
// explores the same space the property tests sample.
//
// Its tests check every planner against the plan checker (verify): the
// initializer in both orders, the search under several settings, and every
// arena planner (fuzz_test.go, property_test.go); and fuzz the CSV readers
// of the packages that have one (csv_fuzz_test.go).
package fuzzcheck

import (
	"fmt"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/workload"
)

// Chooser gives the generator its choices. *rand.Rand of math/rand/v2
// is one.
type Chooser interface {
	// IntN returns a number in [0, n); n > 0.
	IntN(n int) int
}

// Bytes is a Chooser that reads fuzz bytes: one byte per choice (two for
// choices among more than 256), taken modulo n; past the end every choice
// is 0, so that any input, even empty, is a problem.
type Bytes struct {
	Data []byte
	i    int
}

// IntN implements Chooser.
func (b *Bytes) IntN(n int) int {
	if n <= 1 {
		return 0
	}
	v := int(b.next())
	if n > 256 {
		v = v<<8 | int(b.next())
	}
	return v % n
}

func (b *Bytes) next() byte {
	if b.i >= len(b.Data) {
		return 0
	}
	b.i++
	return b.Data[b.i-1]
}

// Limits bound a problem's size.
type Limits struct {
	Ops, Blocks, Levels int // at most this many; at least one op and level
	// Huge lets a few capacities be the largest a profile may have
	// (hw.MaxCapacity, 2^60) and block sizes up to 2^62, to probe overflow
	// in footprints, sums and offsets.
	Huge bool
	// ReadOnly makes one level read-only (constants only, FORMATS.md rule
	// 7) in two problems of three: the last level (a flash) more often than
	// not, else any. Without it, no choice is spent on it, so the problems
	// of the other limits are those they always were.
	ReadOnly bool
}

// Small are the limits of the fuzz and property tests: problems small
// enough to plan thousands a second, large enough for reuse, moves between
// levels and fragmentation.
var Small = Limits{Ops: 8, Blocks: 12, Levels: 3, Huge: true}

// Medium are larger problems, for property tests: longer lives, more
// blocks alive together, more segments.
var Medium = Limits{Ops: 20, Blocks: 40, Levels: 4, Huge: true}

// SmallReadOnly are Small problems whose profiles often have a read-only
// level.
var SmallReadOnly = Limits{Ops: 8, Blocks: 12, Levels: 3, Huge: true, ReadOnly: true}

// pick returns one of vs.
func pick[T any](c Chooser, vs ...T) T { return vs[c.IntN(len(vs))] }

// Problem draws a program and a profile. The program and the profile are
// valid (they pass Validate); they may not fit each other (a block larger
// than every level it may use, more live bytes than the levels hold), which
// state.Bind and the planners report.
func Problem(c Chooser, lim Limits) (*workload.Program, *hw.Profile) {
	prof := &hw.Profile{Name: "fuzz", TimeUnit: pick(c, hw.Cycle, hw.NS)}
	nl := 1 + c.IntN(lim.Levels)
	// One problem in eight is huge: a level of hw.MaxCapacity bytes and
	// blocks of up to 2^62 bytes.
	huge, hugeLevel := lim.Huge && c.IntN(8) == 0, c.IntN(nl)
	for l := 0; l < nl; l++ {
		capacity := pick[int64](c, 64, 128, 256, 384, 512, 1000, 1024, 4096)
		if l == nl-1 && c.IntN(2) == 0 {
			capacity = pick[int64](c, 4096, 65536) // a roomy last level, often
		}
		if huge && (l == hugeLevel || c.IntN(4) == 0) {
			capacity = pick[int64](c, 1<<40, hw.MaxCapacity, hw.MaxCapacity)
		}
		align := min(pick[int64](c, 1, 1, 2, 4, 8, 16, 64), capacity)
		prof.Levels = append(prof.Levels, hw.Level{
			Name: fmt.Sprintf("L%d", l), Capacity: capacity, Alignment: align,
			In:  hw.Link{Latency: pick(c, 1, 2, 5, 10, 50, 100.5), Bandwidth: pick(c, 0.5, 1, 4, 8, 32, 64)},
			Out: hw.Link{Latency: pick(c, 1, 2, 5, 10, 50, 100.5), Bandwidth: pick(c, 0.5, 1, 4, 8, 32, 64)},
		})
	}
	if lim.ReadOnly && c.IntN(3) > 0 {
		l := nl - 1
		if c.IntN(3) == 0 {
			l = c.IntN(nl)
		}
		prof.Levels[l].ReadOnly = true
	}

	T := 1 + c.IntN(lim.Ops)
	prog := &workload.Program{Name: "fuzz"}
	for i := 0; i < T; i++ {
		prog.Ops = append(prog.Ops, workload.Op{Name: fmt.Sprintf("op%d", i)})
	}
	nb := 1 + c.IntN(lim.Blocks)
	for i := 0; i < nb; i++ {
		b := workload.Block{Name: fmt.Sprintf("b%d", i), Kind: workload.Kind(c.IntN(5))}
		b.Size = int64(1+c.IntN(64)) * pick[int64](c, 1, 1, 2, 4)
		if huge && c.IntN(4) == 0 {
			b.Size = 1<<(30+c.IntN(33)) - int64(c.IntN(3))
		}
		b.First = c.IntN(T)
		b.Last = b.First + c.IntN(T-b.First)
		switch b.Kind {
		case workload.Output:
			b.Last = T - 1
		case workload.Scratch:
			b.Last = b.First
		}
		// Reads and writes: a random subset of the lifetime, an
		// activation or scratch block written when created.
		b.Writes, b.Reads = []int{}, []int{}
		for t := b.First; t <= b.Last; t++ {
			if b.Kind != workload.Constant && (c.IntN(3) == 0 || t == b.First && b.Kind != workload.Input) {
				b.Writes = append(b.Writes, t)
			}
			if c.IntN(2) == 0 {
				b.Reads = append(b.Reads, t)
			}
		}
		b.Reusable = c.IntN(3) == 0
		if c.IntN(6) == 0 {
			l := c.IntN(nl)
			// Pinned to a read-only level, a block other than a constant
			// makes the problem an input error (state.Bind): one pin in
			// eight there, not to waste most problems on it.
			skip := lim.ReadOnly && prof.Levels[l].ReadOnly && b.Kind != workload.Constant && c.IntN(8) > 0
			if !skip {
				b.Level = prof.Levels[l].Name
			}
		}
		if c.IntN(6) == 0 {
			b.Align = pick[int64](c, 2, 4, 8, 32, 128)
		}
		prog.Blocks = append(prog.Blocks, b)
	}
	if err := prof.Validate("fuzz"); err != nil {
		panic(fmt.Sprintf("fuzzcheck: generated an invalid profile: %v", err))
	}
	if err := prog.Validate("fuzz"); err != nil {
		panic(fmt.Sprintf("fuzzcheck: generated an invalid program: %v", err))
	}
	return prog, prof
}
