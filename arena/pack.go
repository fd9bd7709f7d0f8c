package arena

import (
	"fmt"

	"github.com/hieropt/hieropt/pack"
)

// PackNodeLimit is the branch-and-bound budget of the pack planner: nodes
// over all of Minimize's probes. A node budget, unlike a deadline, gives
// the same arena on any machine.
const PackNodeLimit = 20000

// Pack is the exact packer (package pack) as a single-arena planner: the
// least peak it can find and prove within PackNodeLimit nodes, after its
// greedy portfolio (six orders, greedy by size first, each with best fit
// and first fit).
type Pack struct{}

var _ Planner = Pack{}

// Name implements Planner.
func (Pack) Name() string { return "pack" }

// Doc implements Planner.
func (Pack) Doc() string {
	return fmt.Sprintf("package pack: greedy portfolio, then branch and bound on canonical packings for the least peak (%d nodes at most)", PackNodeLimit)
}

// Offsets implements Planner.
func (Pack) Offsets(iv []Interval) []int64 {
	if len(iv) == 0 {
		return nil
	}
	pp := &pack.Problem{Buffers: make([]pack.Buffer, len(iv))}
	for i, x := range iv {
		// An interval's last timestep is inclusive; a buffer's upper
		// bound is not: blocks that end and start at one timestep conflict.
		pp.Buffers[i] = pack.Buffer{Lower: int64(x.First), Upper: int64(x.Last) + 1, Size: x.Size, Align: x.Align}
	}
	s, err := pack.Solve(pp, &pack.Options{Minimize: true, NodeLimit: PackNodeLimit})
	if err != nil {
		// Intervals come from bound problems: positive sizes, First <=
		// Last. Anything else is a bug.
		panic(fmt.Sprintf("arena: pack: %v", err))
	}
	return s.Offsets
}
