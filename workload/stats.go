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

// ComputeStats returns the program's statistics. They are the figures of a
// program that passes Validate; ComputeStats reads any Program without
// failing (a block whose lifetime lies partly outside the program's
// timesteps counts where it lies inside, a block of an unknown kind in no
// BlocksByKind entry), so that it never panics on data it was not meant for.
func (p *Program) ComputeStats() Stats {
	s := Stats{Ops: len(p.Ops), Blocks: len(p.Blocks), Largest: -1}
	T := len(p.Ops)
	live := make([]int64, T+1)
	noConst := make([]int64, T+1)
	// ending[t]: bytes of the reusable blocks ending at t; created[t]:
	// bytes of the blocks created at t.
	ending := make([]int64, T)
	created := make([]int64, T)
	for i := range p.Blocks {
		b := &p.Blocks[i]
		if int(b.Kind) < len(s.BlocksByKind) {
			s.BlocksByKind[b.Kind]++
		}
		s.TotalBytes += b.Size
		if s.Largest < 0 || b.Size > p.Blocks[s.Largest].Size {
			s.Largest = i
		}
		if b.Kind == Constant {
			s.ConstBytes += b.Size
		}
		first, last := max(b.First, 0), min(b.Last, T-1)
		if first > last {
			continue
		}
		if b.Kind != Constant {
			noConst[first] += b.Size
			noConst[last+1] -= b.Size
		}
		live[first] += b.Size
		live[last+1] -= b.Size
		if first == b.First {
			created[first] += b.Size
		}
		if last == b.Last && b.Reusable {
			ending[last] += b.Size
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
		e, c := ending[t], created[t]
		s.MaxLiveInPlace = max(s.MaxLiveInPlace, cur-e-c+max(e, c))
	}
	return s
}
