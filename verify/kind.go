package verify

import "github.com/hieropt/hieropt/workload"

// numKinds is the number of block kinds of FORMATS.md section 1.
const numKinds = 5

// takeOver is the kind rule of FORMATS.md section 1, as a table:
// takeOver[a][b] says whether a block of kind b may take over, in place,
// the space of a reusable block of kind a that ends where b starts. The
// text it is written from: "An input/activation block's space may be
// taken by scratch, activation or output blocks of that op; a scratch
// block's space only by activation or output blocks of that op." Nothing
// takes an output's or a constant's space, and a constant takes nobody's.
var takeOver = [numKinds][numKinds]bool{
	workload.Input:      {workload.Scratch: true, workload.Activation: true, workload.Output: true},
	workload.Activation: {workload.Scratch: true, workload.Activation: true, workload.Output: true},
	workload.Scratch:    {workload.Activation: true, workload.Output: true},
	workload.Output:     {},
	workload.Constant:   {},
}

// mayTakeOver reports whether block b may take over block a's space at
// timestep t by the reuse exception of rule 4: a is reusable and ends at t,
// b starts at t, and the kind rule allows it. (That b sits exactly where a
// does, and in the same level, is the caller's business.)
func mayTakeOver(a, b *workload.Block, t int) bool {
	return a.Reusable && a.Last == t && b.First == t && takeOver[a.Kind][b.Kind]
}
