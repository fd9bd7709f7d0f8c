package tflm

import (
	"cmp"
	"fmt"
	"slices"
)

// Report is what Check finds of an offline plan.
type Report struct {
	// N is the number of offsets; Tensors the model's tensor count.
	N, Tensors int
	// Offline counts the tensors TFLM places at their offline offset,
	// Online those it plans itself (offset -1), Ignored the offsets
	// given to tensors TFLM never places (constants, zero bytes), which
	// it ignores.
	Offline, Online, Ignored int
	// OfflineArena is the bytes the offline tensors span:
	// max(offset + size).
	OfflineArena int64
	// Head is the non-persistent section TFLM makes of the plan: the
	// offline tensors where they are and the online ones and the
	// kernels' known scratch buffers around them by its greedy planner.
	// Greedy is the head of TFLM's own plan, with no offline plan. -1
	// when the plan cannot be laid out (N wrong).
	Head, Greedy int64
	// Scratch is the bytes of the kernels' known scratch buffers, in
	// both heads; Unknown the operators whose scratch buffers are not
	// known (Model.UnknownScratch), in neither.
	Scratch int64
	Unknown []string
	// Problems are the rules the plan breaks, one line each; none for a
	// valid plan.
	Problems []string
	// Notes are overlaps the plan may mean: between operands of one
	// custom operator, whose kernel TFLM cannot see into (Arm Vela, for
	// one, places an Ethos-U operator's inputs and outputs inside its
	// scratch tensor, and the NPU's command stream knows where).
	Notes []string
}

// Valid reports whether the plan breaks no rule.
func (r *Report) Valid() bool { return len(r.Problems) == 0 }

// maxProblems bounds the overlaps listed (the count is still given).
const maxProblems = 20

// Check checks offline offsets against the model the way TFLM uses them,
// and what TFLM itself does not check:
//
//   - N equals the model's tensor count (TFLM refuses the model otherwise);
//   - every offset is -1 or non-negative;
//   - every offline tensor's offset is a multiple of 16 (TFLM's buffer
//     alignment, which its kernels assume);
//   - no two offline tensors alive at a common scope overlap in the arena
//     (at their sizes rounded up to 16), except an in-place pair: an input
//     whose life ends at an op that runs in place and that op's output, at
//     the same offset with the same size. A variable tensor placed
//     offline is taken as alive for the whole run: it keeps its state
//     from one invocation to the next. Overlaps between operands of one
//     custom operator are Notes, not problems.
func (m *Model) Check(offsets []int32) *Report {
	r := &Report{N: len(offsets), Tensors: len(m.Tensors), Head: -1, Scratch: m.ScratchBytes(), Unknown: m.UnknownScratch()}
	_, r.Greedy = m.Greedy()
	if len(offsets) != len(m.Tensors) {
		r.Problems = append(r.Problems, fmt.Sprintf("%d offsets for %d tensors: TFLM refuses the model (AllocateTensors fails)", len(offsets), len(m.Tensors)))
		return r
	}
	var off []int
	for i, t := range m.Tensors {
		o := offsets[i]
		switch {
		case o < Online:
			r.Problems = append(r.Problems, fmt.Sprintf("%s: offset %d is negative (only -1, plan at run time, is)", m.item(i), o))
		case !t.Planned(o):
			if o != Online {
				r.Ignored++
			}
		case o == Online:
			r.Online++
		default:
			r.Offline++
			off = append(off, i)
			r.OfflineArena = max(r.OfflineArena, int64(o)+t.Size())
			if o%Alignment != 0 {
				r.Problems = append(r.Problems, fmt.Sprintf("%s: offset %d is not a multiple of %d (TFLM's buffer alignment)", m.item(i), o, Alignment))
			}
		}
	}
	if !r.Valid() {
		return r
	}
	problems, notes := m.overlaps(offsets, off)
	r.Problems, r.Notes = append(r.Problems, problems...), notes
	_, r.Head = m.Head(offsets)
	return r
}

// overlaps lists the pairs of offline tensors (off) alive at a common
// scope whose bytes overlap, in-place pairs excepted; those between
// operands of one custom operator as notes.
func (m *Model) overlaps(offsets []int32, off []int) (problems, notes []string) {
	life := m.lifeFunc()
	slices.SortFunc(off, func(a, b int) int {
		return cmp.Or(cmp.Compare(offsets[a], offsets[b]), cmp.Compare(a, b))
	})
	n := 0
	for x, a := range off {
		ea := int64(offsets[a]) + m.Tensors[a].Size()
		fa, la := life(a)
		for _, b := range off[x+1:] {
			if int64(offsets[b]) >= ea {
				break // sorted by offset: no later one meets a
			}
			fb, lb := life(b)
			if fa > lb || fb > la || m.inPlace(a, b, int64(offsets[a]), int64(offsets[b])) {
				continue
			}
			msg := fmt.Sprintf("%s [%d, %d) and %s [%d, %d) overlap while both are alive (scopes %d-%d and %d-%d)",
				m.item(a), offsets[a], ea, m.item(b), offsets[b], int64(offsets[b])+m.Tensors[b].Size(), fa, la, fb, lb)
			if op := m.customOperands(a, b); op >= 0 {
				notes = append(notes, fmt.Sprintf("%s, both operands of operator %d (custom %s)", msg, op, m.Graph.Ops[op].Type))
				continue
			}
			n++
			if len(problems) < maxProblems {
				problems = append(problems, msg)
			}
		}
	}
	if n > len(problems) {
		problems = append(problems, fmt.Sprintf("... and %d more overlapping pairs", n-len(problems)))
	}
	return problems, notes
}

// customOperands returns an operator with a custom code (not a builtin)
// that has both tensors as inputs or outputs, -1 if none.
func (m *Model) customOperands(a, b int) int {
	for k, op := range m.Graph.Ops {
		if !op.Custom {
			continue
		}
		has := func(i int) bool { return slices.Contains(op.Inputs, i) || slices.Contains(op.Outputs, i) }
		if has(a) && has(b) {
			return k
		}
	}
	return -1
}

// item names tensor i in messages.
func (m *Model) item(i int) string {
	if n := m.Tensors[i].Name; n != "" {
		return fmt.Sprintf("tensor %d %q", i, n)
	}
	return fmt.Sprintf("tensor %d", i)
}

// lifeFunc returns the scopes over which an offline tensor must keep its
// bytes: its lifetime, the whole run for a variable (it keeps its state
// from one invocation to the next).
func (m *Model) lifeFunc() func(i int) (first, last int) {
	last := 0
	for _, t := range m.Tensors {
		last = max(last, t.Last)
	}
	return func(i int) (int, int) {
		t := m.Tensors[i]
		if t.Variable {
			return -1, last
		}
		return t.First, t.Last
	}
}
