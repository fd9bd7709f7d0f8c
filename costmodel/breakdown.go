package costmodel

import "github.com/hieropt/hieropt/state"

// LevelTotals sums the charges of one level.
type LevelTotals struct {
	Reads, Writes, TransfersIn, TransfersOut int     // counts
	BytesRead, BytesWritten                  int64   // by ops
	BytesIn, BytesOut                        int64   // by transfers
	Time                                     float64 // all charges of the level
}

// Traffic returns every byte that crossed the level's boundary: read or
// written by ops, or moved in or out by transfers.
func (t LevelTotals) Traffic() int64 { return t.BytesRead + t.BytesWritten + t.BytesIn + t.BytesOut }

// StepTotals sums the charges of one timestep.
type StepTotals struct {
	Time              float64
	Reads, Writes     int
	Transfers         int   // transfers at this timestep
	Bytes, BytesMoved int64 // bytes accessed by the op; bytes transferred
}

// Report is a cost broken down per level and per timestep.
type Report struct {
	Model  string
	Total  float64 // equals Total(model, ...)
	Levels []LevelTotals
	Steps  []StepTotals
	// PeakBytes is, per level, the most bytes (footprints) busy at any
	// timestep.
	PeakBytes []int64
}

// Breakdown prices a complete layout charge by charge.
func Breakdown(m Model, p *state.Problem, lay *state.Layout) *Report {
	r := &Report{
		Model:     m.Name(),
		Total:     Total(m, p, lay),
		Levels:    make([]LevelTotals, p.Levels()),
		Steps:     make([]StepTotals, p.Prog.Timesteps()),
		PeakBytes: PeakBytes(p, lay),
	}
	for b := range lay.Segs {
		m.Charges(p, b, lay.Segs[b], func(c Charge) {
			lt, st := &r.Levels[c.Level], &r.Steps[c.Timestep]
			lt.Time += c.Time
			st.Time += c.Time
			switch c.Kind {
			case Read:
				lt.Reads++
				lt.BytesRead += c.Bytes
				st.Reads++
				st.Bytes += c.Bytes
			case Write:
				lt.Writes++
				lt.BytesWritten += c.Bytes
				st.Writes++
				st.Bytes += c.Bytes
			case TransferOut:
				lt.TransfersOut++
				lt.BytesOut += c.Bytes
				st.Transfers++
				st.BytesMoved += c.Bytes
			case TransferIn:
				lt.TransfersIn++
				lt.BytesIn += c.Bytes
			}
		})
	}
	return r
}

// PeakBytes returns, per level, the largest number of bytes (footprints)
// busy at one timestep (see BusyBytes).
func PeakBytes(p *state.Problem, lay *state.Layout) []int64 {
	busy := BusyBytes(p, lay)
	peak := make([]int64, len(busy))
	for l, row := range busy {
		for _, v := range row {
			peak[l] = max(peak[l], v)
		}
	}
	return peak
}

// BusyBytes returns, per level and timestep, the bytes (footprints) busy.
// A block that another block reuses at its last timestep is counted once
// for the shared space (the larger footprint).
func BusyBytes(p *state.Problem, lay *state.Layout) [][]int64 {
	T, L := p.Prog.Timesteps(), p.Levels()
	out := make([][]int64, L)
	delta := make([][]int64, L)
	for l := range out {
		out[l] = make([]int64, T)
		delta[l] = make([]int64, T+1)
	}
	for b, segs := range lay.Segs {
		blk := p.Block(b)
		for i, s := range segs {
			end := blk.Last + 1
			if i+1 < len(segs) {
				end = int(segs[i+1].From)
			}
			f := p.Foot(b, int(s.Level))
			delta[s.Level][s.From] += f
			delta[s.Level][end] -= f
		}
	}
	for l := range out {
		var cur int64
		for t := 0; t < T; t++ {
			cur += delta[l][t]
			out[l][t] = cur
		}
	}
	// The shared space of a reuse pair is counted twice above at their
	// common timestep: take it off once.
	for t := 0; t < T; t++ {
		dying := p.Dying(t)
		if len(dying) == 0 {
			continue
		}
		for _, bi := range p.Created(t) {
			b := int(bi)
			sb := lay.At(b, t)
			for _, ai := range dying {
				a := int(ai)
				if a == b || !state.ReusePair(p, a, b, t) || len(lay.Segs[a]) == 0 {
					continue
				}
				if sa := lay.At(a, t); sa.Pos() == sb.Pos() {
					l := int(sa.Level)
					out[l][t] -= min(p.Foot(a, l), p.Foot(b, l))
					break
				}
			}
		}
	}
	return out
}
