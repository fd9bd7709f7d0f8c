package costmodel

import (
	"cmp"
	"slices"

	"github.com/hieropt/hieropt/costmodel/timeline"
	"github.com/hieropt/hieropt/state"
)

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
	// Timeline is the timeline of a model with Timeline(): per op its
	// compute, memory and stall, per copy its issue, begin, end and
	// channel. Nil under the other models. Levels and Steps then count the
	// work (each access and copy priced as section 4 prices it), which
	// the timeline overlaps: their times do not add up to Total.
	Timeline *TimelineReport
}

// TimelineReport is the timeline of a layout under the timeline model.
type TimelineReport struct {
	Ops    []timeline.OpTrace // per op, in op order
	Copies []CopyReport       // per copy (transfer or load), in issue order
	Stall  float64            // the ops' stalls in all
}

// CopyReport is one copy on the timeline.
type CopyReport struct {
	Block     int
	Start, At int
	// From and To are the copy's levels: for a load, From is the block's
	// home level.
	From, To int
	Load     bool
	timeline.CopyTrace
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
	if m.Timeline() {
		r.Timeline = timelineReport(p, lay)
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

// timelineReport simulates lay's timeline program op by op and copy by
// copy.
func timelineReport(p *state.Problem, lay *state.Layout) *TimelineReport {
	var blocks []int
	prog := program(p, lay, &blocks)
	idx := make([]int, len(prog.Copies))
	for k := range idx {
		idx[k] = k
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		x, y := &prog.Copies[a], &prog.Copies[b]
		return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.At, y.At), cmp.Compare(x.Rank, y.Rank))
	})
	tr := timeline.Breakdown(prog)
	out := &TimelineReport{Ops: tr.Ops, Stall: tr.Stall(), Copies: make([]CopyReport, len(idx))}
	for i, k := range idx {
		c, b := &prog.Copies[k], blocks[k]
		segs := lay.Segs[b]
		cr := CopyReport{Block: b, Start: c.Start, At: c.At, CopyTrace: tr.Copies[k]}
		j := len(segs) - 1
		for j > 0 && int(segs[j].From) > c.At {
			j--
		}
		cr.To = int(segs[j].Level)
		if j == 0 {
			cr.From, cr.Load = p.Home(b), true
		} else {
			cr.From = int(segs[j-1].Level)
		}
		out.Copies[i] = cr
	}
	return out
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

// BusyBytes returns, per level and timestep, the bytes (footprints) busy:
// under the timeline model, the ranges reserved for copies in flight and
// resident constants too.
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
		for i, s := range segs {
			// A segment occupies its range from its copy's start under
			// the timeline model (OccStart; From otherwise) until its
			// OccEnd.
			end := state.OccEnd(p, b, segs, i) + 1
			f := p.Foot(b, int(s.Level))
			delta[s.Level][s.OccStart()] += f
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
