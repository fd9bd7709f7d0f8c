package timeline

// OpTrace is one op on the compute unit.
type OpTrace struct {
	Begin   float64 // T: when the op starts, after its stall
	End     float64 // R after the op: Begin + max(Compute, Memory)
	Compute float64 // c(t)
	Memory  float64 // m(t)
	Stall   float64 // T - R before the op: the wait for copies it needs
}

// CopyTrace is one copy on its DMA channel.
type CopyTrace struct {
	Issue   float64 // R before op Start: when the copy is handed to the DMA
	Begin   float64 // max(Issue, the channel's previous end)
	End     float64 // Begin + Time
	Channel int     // 0-based: the channel with the least finish time, the lowest index on ties
}

// Trace is a program's timeline, op by op and copy by copy.
type Trace struct {
	Cost   float64     // the end of the last op; equals Simulate
	Ops    []OpTrace   // per op, in op order
	Copies []CopyTrace // per copy, in the order of Program.Copies
}

// Stall is the total stall time: Cost = Stall() + the sum of the ops'
// durations.
func (tr *Trace) Stall() float64 {
	s := 0.0
	for i := range tr.Ops {
		s += tr.Ops[i].Stall
	}
	return s
}

// Breakdown simulates a valid program as Simulate does and records every
// op and every copy. Channels follow FORMATS.md 6.3 to the letter: the
// channel with the least finish time, lowest index on ties, even where
// another channel idle by the issue time would give the same begin.
func Breakdown(p *Program) *Trace {
	n := len(p.Compute)
	tr := &Trace{Ops: make([]OpTrace, n), Copies: make([]CopyTrace, len(p.Copies))}
	var s Scratch
	order := s.issueOrder(p.Copies)
	ready := make([]float64, n)
	f := make([]float64, p.Channels)
	r := 0.0
	k := 0
	for t := range n {
		for ; k < len(order) && p.Copies[order[k]].Start == t; k++ {
			c := &p.Copies[order[k]]
			j := argmin(f)
			b := max(r, f[j])
			e := b + c.Time
			f[j] = e
			ready[c.At] = max(ready[c.At], e)
			tr.Copies[order[k]] = CopyTrace{Issue: r, Begin: b, End: e, Channel: j}
		}
		begin := max(r, ready[t])
		end := begin + max(p.Compute[t], p.Memory[t])
		tr.Ops[t] = OpTrace{Begin: begin, End: end, Compute: p.Compute[t], Memory: p.Memory[t], Stall: begin - r}
		r = end
	}
	tr.Cost = r
	return tr
}
