package render

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
)

// PlanDiff is what changed between two plans of one problem, A (say the
// initial plan) and B (the final one): each block placed differently, what
// the change saved under the cost model, and for each of B's segments in a
// slower level than one the block may use, why it is not in the faster one.
type PlanDiff struct {
	Model string
	// CostA and CostB are the plans' costs (costmodel.Total).
	CostA, CostB float64
	// Separable says whether the model prices each block on its own: the
	// changes' savings then add up to CostA - CostB.
	Separable bool
	// Changes are the blocks placed differently, the largest saving
	// first (ties: block ID).
	Changes []BlockChange
	// Unchanged counts the blocks placed alike in both plans.
	Unchanged int
}

// Change kinds of a BlockChange.
const (
	ChangeLevel  = "level"  // at some timestep the block is in another level
	ChangeOffset = "offset" // the same levels throughout, another offset somewhere
	ChangeCopy   = "copy"   // the same places, a copy issued at another timestep
)

// BlockChange is one block placed differently in the two plans.
type BlockChange struct {
	Block int
	Name  string
	Kind  string // ChangeLevel, ChangeOffset or ChangeCopy
	// A and B say where the block is in each plan: its segments, "SRAM @
	// 4096 [3,9]" each.
	A, B string
	// CostA and CostB are the block's cost under the model in each plan
	// (BlockCost); Saved is CostA - CostB.
	CostA, CostB, Saved float64
	// Slow says why B's segments in a slow level are not in a faster one.
	Slow []SlowReason
}

// SlowReason is why one of B's segments of a block, in level Level over
// timesteps [From, To], is not in the faster level Faster (one the block
// may use): at timestep T the largest free gap of Faster was Gap bytes,
// less than the Need bytes the block takes there; T is -1 when Faster had
// a gap of Need bytes at every timestep of the segment (then no one range
// was free throughout, or the planner judged the move not worth its
// cost).
type SlowReason struct {
	Level, Faster int
	From, To      int
	T             int
	Need, Gap     int64
}

// DiffPlans compares plans a and b of p under model m.
func DiffPlans(p *state.Problem, m costmodel.Model, a, b *state.Layout) (*PlanDiff, error) {
	if m == nil || a == nil || b == nil {
		return nil, errors.New("render: a diff needs a cost model and two plans")
	}
	if err := a.CheckComplete(p); err != nil {
		return nil, fmt.Errorf("render: plan A: %w", err)
	}
	if err := b.CheckComplete(p); err != nil {
		return nil, fmt.Errorf("render: plan B: %w", err)
	}
	_, sep := m.(costmodel.Separable)
	d := &PlanDiff{Model: m.Name(), CostA: costmodel.Total(m, p, a), CostB: costmodel.Total(m, p, b), Separable: sep}
	gaps := newGapIndex(p, b)
	for blk := range p.Blocks() {
		kind := changeKind(p, blk, a, b)
		if kind == "" {
			d.Unchanged++
			continue
		}
		ca, cb := m.BlockCost(p, blk, a.Segs[blk]), m.BlockCost(p, blk, b.Segs[blk])
		d.Changes = append(d.Changes, BlockChange{
			Block: blk, Name: p.Block(blk).Name, Kind: kind,
			A: places(p, blk, a), B: places(p, blk, b),
			CostA: ca, CostB: cb, Saved: ca - cb,
			Slow: gaps.why(p, blk, b),
		})
	}
	slices.SortStableFunc(d.Changes, func(x, y BlockChange) int {
		if c := cmp.Compare(y.Saved, x.Saved); c != 0 {
			return c
		}
		return cmp.Compare(x.Block, y.Block)
	})
	return d, nil
}

// changeKind says how block b differs between a and b ("" alike).
func changeKind(p *state.Problem, blk int, a, b *state.Layout) string {
	if slices.Equal(a.Segs[blk], b.Segs[blk]) {
		return ""
	}
	info := p.Block(blk)
	offset := false
	for t := info.First; t <= info.Last; t++ {
		sa, sb := a.At(blk, t), b.At(blk, t)
		if sa.Level != sb.Level {
			return ChangeLevel
		}
		offset = offset || sa.Offset != sb.Offset
	}
	if offset {
		return ChangeOffset
	}
	return ChangeCopy
}

// places lists block b's segments in lay: "SRAM @ 4096 [3,9]; DRAM @ 0
// [10,12]".
func places(p *state.Problem, blk int, lay *state.Layout) string {
	segs := lay.Segs[blk]
	parts := make([]string, len(segs))
	for i, s := range segs {
		from, to := segSpan(p, blk, segs, i)
		parts[i] = fmt.Sprintf("%s @ %d [%d,%d]", p.HW.Levels[s.Level].Name, s.Offset, from, to)
		if s.Lead > 0 {
			parts[i] += fmt.Sprintf(" (copy from %d)", s.Start())
		}
	}
	return strings.Join(parts, "; ")
}

// gapIndex finds the largest free gap of a level at a timestep in one
// plan: the ranges its placements (and copies in flight) take there.
type gapIndex struct {
	live  [][]span // [t]: ranges taken at t, by level and offset
	cache map[[2]int]int64
}

type span struct {
	level    int
	off, end int64
	block    int
}

func newGapIndex(p *state.Problem, lay *state.Layout) *gapIndex {
	T := p.Prog.Timesteps()
	g := &gapIndex{live: make([][]span, T), cache: map[[2]int]int64{}}
	for blk, segs := range lay.Segs {
		for i, s := range segs {
			from, to := segSpan(p, blk, segs, i)
			from = min(from, max(int(s.OccStart()), 0))
			l := int(s.Level)
			for t := from; t <= to; t++ {
				g.live[t] = append(g.live[t], span{level: l, off: s.Offset, end: s.Offset + p.Foot(blk, l), block: blk})
			}
		}
	}
	for t := range g.live {
		slices.SortFunc(g.live[t], func(x, y span) int {
			return cmp.Or(cmp.Compare(x.level, y.level), cmp.Compare(x.off, y.off), cmp.Compare(x.end, y.end))
		})
	}
	return g
}

// largest returns the largest free gap of level l at t.
func (g *gapIndex) largest(p *state.Problem, l, t int) int64 {
	if v, ok := g.cache[[2]int{l, t}]; ok {
		return v
	}
	var best, at int64
	for _, s := range g.live[t] {
		if s.level != l {
			continue
		}
		best = max(best, s.off-at)
		at = max(at, s.end)
	}
	best = max(best, p.HW.Levels[l].Capacity-at)
	g.cache[[2]int{l, t}] = best
	return best
}

// why explains each of lay's segments of block b that is in a slower level
// than one the block may use.
func (g *gapIndex) why(p *state.Problem, blk int, lay *state.Layout) []SlowReason {
	var out []SlowReason
	segs := lay.Segs[blk]
	for i, s := range segs {
		l := int(s.Level)
		from, to := segSpan(p, blk, segs, i)
		for f := range l {
			if !p.Allowed(blk, f) {
				continue
			}
			r := SlowReason{Level: l, Faster: f, From: from, To: to, T: -1, Need: p.Foot(blk, f), Gap: math.MaxInt64}
			for t := from; t <= to; t++ {
				if gap := g.largest(p, f, t); gap < r.Need {
					r.T, r.Gap = t, gap
					break
				}
			}
			if r.T < 0 {
				r.Gap = r.Need
			}
			out = append(out, r)
		}
	}
	return out
}

// WriteText writes the diff as text: a summary, then a table of the
// changed blocks (at most top rows, 0 for all), each followed by its slow
// segments' reasons.
func (d *PlanDiff) WriteText(w io.Writer, p *state.Problem, nameA, nameB string, top int) error {
	bw := bufio.NewWriter(w)
	unit := hw.Units(p.HW.TimeUnit)
	var levels, offsets, copies int
	var saved float64
	for _, c := range d.Changes {
		switch c.Kind {
		case ChangeLevel:
			levels++
		case ChangeOffset:
			offsets++
		default:
			copies++
		}
		saved += c.Saved
	}
	fmt.Fprintf(bw, "A: %s, cost %s %s\nB: %s, cost %s %s\n", nameA, repCost(d.CostA), unit, nameB, repCost(d.CostB), unit)
	fmt.Fprintf(bw, "B saves %s %s (%.2f%% of A) under the %s model\n", repCost(d.CostA-d.CostB), unit, repPct(d.CostA-d.CostB, d.CostA), d.Model)
	fmt.Fprintf(bw, "%d %s placed differently (%d in another level at some timestep, %d at another offset only, %d with a copy issued at another timestep), %d alike\n",
		len(d.Changes), blocksWord(len(d.Changes)), levels, offsets, copies, d.Unchanged)
	if d.Separable {
		fmt.Fprintf(bw, "each block's cost is its own (the model is separable): the savings below add up to %s %s\n", repCost(saved), unit)
	} else {
		fmt.Fprintf(bw, "the model is not separable: a block's cost below is its own work, not its share of the plan's time\n")
	}
	if len(d.Changes) == 0 {
		return bw.Flush()
	}
	shown := d.Changes
	if top > 0 && len(shown) > top {
		shown = shown[:top]
	}
	fmt.Fprintln(bw)
	// A table, each row followed by its block's reasons (not in columns).
	rows := [][]string{{"block", "change", "cost A", "cost B", "saved", "in A", "in B"}}
	for _, c := range shown {
		rows = append(rows, []string{c.Name, c.Kind, repCost(c.CostA), repCost(c.CostB), repCost(c.Saved), c.A, c.B})
	}
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, v := range r {
			width[i] = max(width[i], utf8.RuneCountInString(v))
		}
	}
	for i, r := range rows {
		for j, v := range r {
			if j == len(r)-1 {
				bw.WriteString(v + "\n")
				break
			}
			bw.WriteString(v + strings.Repeat(" ", width[j]-utf8.RuneCountInString(v)+2))
		}
		if i == 0 {
			continue
		}
		for _, sr := range shown[i-1].Slow {
			fmt.Fprintf(bw, "    why %s, not %s, [%d,%d]: %s\n", p.HW.Levels[sr.Level].Name, p.HW.Levels[sr.Faster].Name, sr.From, sr.To, sr.text(p))
		}
	}
	if len(shown) < len(d.Changes) {
		fmt.Fprintf(bw, "(%d more changed blocks; --top 0 lists them all)\n", len(d.Changes)-len(shown))
	}
	return bw.Flush()
}

// text says why the segment is not in the faster level.
func (r SlowReason) text(p *state.Problem) string {
	f := p.HW.Levels[r.Faster].Name
	if r.T >= 0 {
		return fmt.Sprintf("did not fit in %s at timestep %d: needs %s, the largest free gap there was %s", f, r.T, Bytes(r.Need), Bytes(r.Gap))
	}
	return fmt.Sprintf("%s had a gap of %s at every timestep of it: no one range free throughout, or not worth the move", f, Bytes(r.Need))
}

// blocksWord is "block" for one, else "blocks".
func blocksWord(n int) string {
	if n == 1 {
		return "block"
	}
	return "blocks"
}
