package workload

// Stats are the figures `hieropt inspect` reports about a program. Live
// bytes are sums of block sizes (no alignment): the lower bound of any
// single-level plan.
type Stats struct {
	Ops, Blocks  int
	BlocksByKind [5]int // indexed by Kind
	TotalBytes   int64  // sum of all block sizes
	ConstBytes   int64  // sum of constant block sizes
	// MaxLive is the maximum over timesteps of the summed sizes of the
	// blocks alive there; MaxLiveAt is the first timestep that reaches it.
	MaxLive   int64
	MaxLiveAt int
	// MaxLiveInPlace lowers MaxLive where the format allows in-place
	// reuse: at t, the reusable blocks ending at t and the blocks created
	// at t count max(sum of those ending, sum of those created) instead of
	// both.
	MaxLiveInPlace int64
	// MaxLiveNoConst leaves constants out.
	MaxLiveNoConst int64
	Largest        int // ID of the largest block (first in ID order), -1 if none
	MACs           int64
}

// ComputeStats returns the program's statistics. p must be validated.
func (p *Program) ComputeStats() Stats {
	p.mustBeValid()
	s := Stats{Ops: len(p.Ops), Blocks: len(p.Blocks), Largest: -1}
	T := len(p.Ops)
	live := make([]int64, T+1)
	noConst := make([]int64, T+1)
	for i := range p.Blocks {
		b := &p.Blocks[i]
		s.BlocksByKind[b.Kind]++
		s.TotalBytes += b.Size
		if b.Kind == Constant {
			s.ConstBytes += b.Size
		} else {
			noConst[b.First] += b.Size
			noConst[b.Last+1] -= b.Size
		}
		live[b.First] += b.Size
		live[b.Last+1] -= b.Size
		if s.Largest < 0 || b.Size > p.Blocks[s.Largest].Size {
			s.Largest = i
		}
	}
	for _, op := range p.Ops {
		s.MACs += op.MACs
	}
	var cur, curNC int64
	for t := 0; t < T; t++ {
		cur += live[t]
		curNC += noConst[t]
		if cur > s.MaxLive {
			s.MaxLive, s.MaxLiveAt = cur, t
		}
		s.MaxLiveNoConst = max(s.MaxLiveNoConst, curNC)
		var ending, created int64
		for _, id := range p.dying[t] {
			if p.Blocks[id].Reusable {
				ending += p.Blocks[id].Size
			}
		}
		for _, id := range p.created[t] {
			created += p.Blocks[id].Size
		}
		s.MaxLiveInPlace = max(s.MaxLiveInPlace, cur-ending-created+max(ending, created))
	}
	return s
}
