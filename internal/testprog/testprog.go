// Package testprog builds small programs and profiles for tests: a tiny
// builder language in the spirit of the Go compiler's SSA test helpers, so
// that a test states a problem in a few lines.
//
//	prog := testprog.New("p", 4).
//		Block("a", 100, "activation", 0, 2).
//		Block("w", 64, "constant", 0, 1, testprog.Reads(1)).
//		Program()
//
// Blocks get writes [first] and reads [last] unless options say otherwise
// (constants get no writes).
package testprog

import (
	"fmt"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Builder accumulates a program.
type Builder struct {
	p workload.Program
}

// New starts a program with n ops named op0..op(n-1).
func New(name string, n int) *Builder {
	b := &Builder{p: workload.Program{Name: name}}
	for i := 0; i < n; i++ {
		b.p.Ops = append(b.p.Ops, workload.Op{Name: fmt.Sprintf("op%d", i)})
	}
	return b
}

// Option changes a block being added.
type Option func(*workload.Block)

// Reads sets the block's read timesteps.
func Reads(ts ...int) Option { return func(b *workload.Block) { b.Reads = ts } }

// Writes sets the block's write timesteps.
func Writes(ts ...int) Option { return func(b *workload.Block) { b.Writes = ts } }

// Reusable marks the block reusable.
func Reusable() Option { return func(b *workload.Block) { b.Reusable = true } }

// Pin pins the block to a level.
func Pin(level string) Option { return func(b *workload.Block) { b.Level = level } }

// Align gives the block an extra alignment.
func Align(a int64) Option { return func(b *workload.Block) { b.Align = a } }

// Block adds a block of the given kind and lifetime.
func (b *Builder) Block(name string, size int64, kind string, first, last int, opts ...Option) *Builder {
	k, ok := workload.ParseKind(kind)
	if !ok {
		panic("testprog: unknown kind " + kind)
	}
	blk := workload.Block{Name: name, Size: size, Kind: k, First: first, Last: last,
		Writes: []int{first}, Reads: []int{last}}
	if k == workload.Constant {
		blk.Writes = nil
	}
	for _, o := range opts {
		o(&blk)
	}
	b.p.Blocks = append(b.p.Blocks, blk)
	return b
}

// Program validates and returns the program; it panics on a rule broken,
// since a test's own program must be right.
func (b *Builder) Program() *workload.Program {
	p := b.p
	p.Ops = append([]workload.Op(nil), b.p.Ops...)
	p.Blocks = append([]workload.Block(nil), b.p.Blocks...)
	if err := p.Validate("test"); err != nil {
		panic(err)
	}
	return &p
}

// Level describes one level for Profile: name, capacity, alignment, one
// latency and bandwidth used for both directions, and whether it is
// read-only (constants only).
type Level struct {
	Name               string
	Capacity, Align    int64
	Latency, Bandwidth float64
	ReadOnly           bool
}

// Profile builds and validates a profile.
func Profile(name string, levels ...Level) *hw.Profile {
	prof := &hw.Profile{Name: name, TimeUnit: hw.Cycle}
	for _, l := range levels {
		prof.Levels = append(prof.Levels, hw.Level{Name: l.Name, Capacity: l.Capacity, Alignment: l.Align,
			In: hw.Link{Latency: l.Latency, Bandwidth: l.Bandwidth}, Out: hw.Link{Latency: l.Latency, Bandwidth: l.Bandwidth}, ReadOnly: l.ReadOnly})
	}
	if err := prof.Validate("test"); err != nil {
		panic(err)
	}
	return prof
}

// Bind binds a program to a profile, panicking on error.
func Bind(prog *workload.Program, prof *hw.Profile) *state.Problem {
	p, err := state.Bind(prog, prof, "test")
	if err != nil {
		panic(err)
	}
	return p
}

// BindTimeline binds a program to a profile with the timeline model's
// semantics (state.Semantics{Timeline: true}, the default horizon),
// panicking on error.
func BindTimeline(prog *workload.Program, prof *hw.Profile) *state.Problem {
	p, err := state.Bind(prog, prof, "test", state.Semantics{Timeline: true})
	if err != nil {
		panic(err)
	}
	return p
}
