// Package workload is the program hieropt plans: the operators in execution
// order and the data blocks they read and write (FORMATS.md section 1,
// "hieropt.workload/v1").
//
// A Program is plain data that a compiler can build in code or read from a
// JSON file (Parse, ReadFile). Validate checks every rule of the format and
// changes nothing; it has no state to get wrong. The per-timestep indexes the
// planners read (blocks created, dying and accessed at each step, blocks by
// name) are built by state.Bind, which validates the program itself: a
// program that breaks a rule is an error there, never a panic.
package workload

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/hieropt/hieropt/inputerr"
)

// Format is the value of the "format" field of a workload document.
const Format = "hieropt.workload/v1"

// Kind says what role a block plays in the program.
type Kind uint8

// The block kinds of FORMATS.md section 1.
const (
	Input      Kind = iota // a program input
	Output                 // a program result; lives to the final timestep
	Activation             // produced by op First, consumed later
	Scratch                // an op's own workspace (First == Last)
	Constant               // weights: read-only, loaded before the program runs
)

var kindNames = [...]string{"input", "output", "activation", "scratch", "constant"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind returns the Kind named s.
func ParseKind(s string) (Kind, bool) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), true
		}
	}
	return 0, false
}

// Op is one operator; its index in Program.Ops is its timestep.
type Op struct {
	Name string
	Type string // optional
	MACs int64  // optional; 0 when unknown
}

// Block is one data block (tensor) of the program.
type Block struct {
	Name string
	Size int64 // bytes, > 0
	Kind Kind
	// First and Last are the inclusive timesteps of the block's lifetime.
	First, Last int
	// Writes and Reads are the timesteps at which an op writes or reads the
	// whole block: sorted, unique, inside [First, Last].
	Writes, Reads []int
	// Reusable says that at Last the block's space may be taken over by a
	// block created at that timestep, under the kind rule (see CanReuse).
	Reusable bool
	// Level pins the block to the named memory level; "" = free to move.
	Level string
	// Align is an extra alignment in bytes (0 = none).
	Align int64
	// Tensor, if set, is the index of the tensor the block comes from in
	// the model it was imported from (import tflite sets it), so that a
	// plan can be mapped back to the model; the planners ignore it.
	Tensor *int
}

// Program is a workload: ops in execution order and the blocks they touch.
// It is plain data: the zero value and any value built in code are safe to
// pass anywhere; Validate says whether it follows the format.
type Program struct {
	Name   string
	Source string
	Ops    []Op
	Blocks []Block
}

// Timesteps returns the number of timesteps (ops).
func (p *Program) Timesteps() int { return len(p.Ops) }

// CanReuse reports whether block b may take over block a's space at the
// timestep where a ends and b starts, under the kind rule of FORMATS.md
// section 1: a must be reusable and end where b starts; an input or
// activation's space may go to a scratch, activation or output block, a
// scratch block's space only to an activation or output block.
func CanReuse(a, b *Block) bool {
	if !a.Reusable || a.Last != b.First {
		return false
	}
	switch a.Kind {
	case Input, Activation:
		return b.Kind == Scratch || b.Kind == Activation || b.Kind == Output
	case Scratch:
		return b.Kind == Activation || b.Kind == Output
	}
	return false
}

// BlockItem names block i for error messages.
func (p *Program) BlockItem(i int) string {
	if i >= 0 && i < len(p.Blocks) && p.Blocks[i].Name != "" {
		return fmt.Sprintf("block %q", p.Blocks[i].Name)
	}
	return fmt.Sprintf("block %d", i)
}

func opItem(i int, name string) string {
	// strconv rather than fmt: a document names every op (see Parse).
	if name != "" {
		return "op " + strconv.Itoa(i) + " " + strconv.Quote(name)
	}
	return "op " + strconv.Itoa(i)
}

// Validate checks every rule of FORMATS.md section 1; it does not change p.
// doc names the document in errors (e.g. `workload "net.json"`); an error
// names the op or block and the rule it breaks.
func (p *Program) Validate(doc string) error {
	if p.Name == "" {
		return inputerr.New(doc, "", "missing required field \"name\"")
	}
	if len(p.Ops) == 0 {
		return inputerr.New(doc, "", "\"ops\" is empty: a workload needs at least one op")
	}
	T := len(p.Ops)
	opNames := make(map[string]int, T)
	for i, op := range p.Ops {
		if op.Name == "" {
			return inputerr.New(doc, opItem(i, ""), "missing required field \"name\"")
		}
		if j, dup := opNames[op.Name]; dup {
			return inputerr.New(doc, opItem(i, op.Name), "duplicate op name (also op %d)", j)
		}
		opNames[op.Name] = i
		if op.MACs < 0 {
			return inputerr.New(doc, opItem(i, op.Name), "macs %d is negative", op.MACs)
		}
	}
	blockNames := make(map[string]int, len(p.Blocks))
	for i := range p.Blocks {
		b := &p.Blocks[i]
		if b.Name == "" {
			return inputerr.New(doc, p.BlockItem(i), "missing required field \"name\"")
		}
		if j, dup := blockNames[b.Name]; dup {
			return inputerr.New(doc, p.BlockItem(i), "duplicate block name (also block %d)", j)
		}
		blockNames[b.Name] = i
		if err := checkBlock(b, T); err != nil {
			return inputerr.New(doc, p.BlockItem(i), "%s", err.Error())
		}
	}
	return nil
}

// checkBlock returns the first rule b breaks in a program of T timesteps.
func checkBlock(b *Block, T int) error {
	if b.Size <= 0 {
		return fmt.Errorf("size %d: must be > 0 bytes", b.Size)
	}
	if int(b.Kind) >= len(kindNames) {
		return fmt.Errorf("unknown kind %d", b.Kind)
	}
	if b.First < 0 || b.Last < b.First || b.Last >= T {
		return errors.New(lifetimeRule(int64(b.First), int64(b.Last), T))
	}
	switch b.Kind {
	case Output:
		if b.Last != T-1 {
			return fmt.Errorf("kind output: last is %d, must be the final timestep %d", b.Last, T-1)
		}
	case Scratch:
		if b.First != b.Last {
			return fmt.Errorf("kind scratch: lifetime [%d,%d] must be a single timestep (first == last)", b.First, b.Last)
		}
	case Constant:
		if len(b.Writes) > 0 {
			return fmt.Errorf("kind constant: writes %v must be empty (constants are read-only)", b.Writes)
		}
	}
	if err := checkSteps("writes", b.Writes, b.First, b.Last); err != nil {
		return err
	}
	if err := checkSteps("reads", b.Reads, b.First, b.Last); err != nil {
		return err
	}
	if b.Align < 0 {
		return fmt.Errorf("align %d: must be > 0 bytes when given", b.Align)
	}
	return nil
}

func checkSteps(field string, steps []int, first, last int) error {
	for i, t := range steps {
		if t < first || t > last {
			return errors.New(outsideRule(field, int64(t), int64(first), int64(last)))
		}
		if i > 0 && t <= steps[i-1] {
			if t == steps[i-1] {
				return fmt.Errorf("%s: timestep %d listed twice", field, t)
			}
			return fmt.Errorf("%s: not sorted (%d after %d)", field, t, steps[i-1])
		}
	}
	return nil
}

// lifetimeRule is the broken rule of a block whose lifetime is not inside a
// program of T timesteps.
func lifetimeRule(first, last int64, T int) string {
	return fmt.Sprintf("lifetime [%d,%d]: want 0 <= first <= last < %d (the number of ops)", first, last, T)
}

// outsideRule is the broken rule of a read or write (field) at timestep t
// outside the lifetime [first, last].
func outsideRule(field string, t, first, last int64) string {
	return fmt.Sprintf("%s [%d] outside lifetime [%d,%d]", field, t, first, last)
}
