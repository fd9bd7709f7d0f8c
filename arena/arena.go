// Package arena holds single-level planners: they give every block an
// offset in one arena (one memory level) for its whole life, and the
// arena's peak is the plan's memory need. They are the planners of the
// seed documents other than seed 003 and TFLite Micro's, kept as named
// strategies for comparison and as baselines:
//
//   - seed000: lifetime best-fit (seed 000). Walk the ops; blocks whose life
//     ended are freed (free space merged, sorted by offset); each new block
//     takes the smallest free space that holds it; if none does, the free
//     space at the arena's end grows by the shortfall (or the block goes at
//     the end).
//   - seed001: shared block identifiers (seed 001). Each new block takes an
//     idle identifier (the smallest that is large enough, else the largest,
//     which grows) or a new one; a block's identifier goes idle when it
//     dies. An identifier's slot is as large as the largest block it ever
//     holds; slots are laid out one after another.
//   - seed004: greedy by size (seed 004, as TFLite's planner). Blocks,
//     largest first, each go into the smallest gap between the already
//     placed blocks whose lifetimes overlap it, or on top of them (best
//     fit: not TFLite Micro's rule, which is tflm's).
//   - tflm: TensorFlow Lite Micro's runtime planner (GreedyMemoryPlanner,
//     pack.TFLM), the arena a TFLM user gets without an offline plan.
//     Blocks by decreasing size, ties in decreasing block order, each at
//     the first gap from offset 0 up between the placed blocks alive with
//     it (first fit), or on top of them; sizes rounded up to a multiple of
//     every block's alignment, as TFLM rounds them to its 16 bytes. On a
//     workload imported from a .tflite (blocks in tensor order), in a level
//     aligned to 16 bytes, it is the runtime's plan.
//   - pack: hieropt's exact packer (package pack) minimizing the peak:
//     a portfolio of greedy orders (seed 004's first), then branch and
//     bound under a fixed node budget (PackNodeLimit), so that the arena is
//     the same on any machine. It reaches the max-live bound whenever the
//     budget lets it find and prove a packing there. Where that peak is
//     above a level's capacity, Place packs to the capacity instead
//     (PackWithin: any packing that fits, under its own node budget).
//
// A planner works on intervals (inclusive first/last timesteps and a
// footprint); Place turns an arena into a plan in the fastest level of a
// profile that holds it.
package arena

import (
	"fmt"
	"strings"

	"github.com/hieropt/hieropt/internal/registry"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Interval is one block to place: alive during [First, Last] (inclusive),
// Size bytes (its footprint), at offsets that are multiples of Align.
type Interval struct {
	First, Last int
	Size, Align int64
}

// Planner gives each interval an offset; intervals alive at a common
// timestep never overlap.
type Planner interface {
	Name() string
	Doc() string
	// Offsets returns one offset per interval, in input order, or nil
	// where the planner has no arena for them (tflm: alignments too large
	// to round sizes to), which fits no level.
	Offsets(iv []Interval) []int64
}

// planners is the registry of single-arena planners.
var planners = registry.New[Planner]("arena: planner")

// Register adds a planner; a duplicate or empty name is an error.
func Register(p Planner) error { return planners.Register(p) }

// Lookup returns the planner registered under name.
func Lookup(name string) (Planner, bool) { return planners.Lookup(name) }

// Names returns the registered planners, sorted.
func Names() []string { return planners.Names() }

func init() {
	for _, p := range []Planner{Seed000{}, Seed001{}, Seed004{}, TFLM{}, Pack{}} {
		if err := Register(p); err != nil {
			panic(err)
		}
	}
}

// Peak returns the arena size the offsets need.
func Peak(iv []Interval, off []int64) int64 {
	var peak int64
	for i := range iv {
		peak = max(peak, off[i]+iv[i].Size)
	}
	return peak
}

// MaxLive returns the largest total size of the intervals alive at one
// timestep: no planner's peak is below it.
func MaxLive(iv []Interval) int64 {
	last := 0
	for _, x := range iv {
		last = max(last, x.Last)
	}
	d := make([]int64, last+2)
	for _, x := range iv {
		d[x.First] += x.Size
		d[x.Last+1] -= x.Size
	}
	var cur, best int64
	for _, v := range d {
		cur += v
		best = max(best, cur)
	}
	return best
}

// Intervals returns the blocks of p as intervals with their footprints and
// alignments in level l.
func Intervals(p *state.Problem, l int) []Interval {
	out := make([]Interval, p.Blocks())
	for b := range out {
		blk := p.Block(b)
		out[b] = Interval{First: blk.First, Last: blk.Last, Size: p.Foot(b, l), Align: p.Align(b, l)}
	}
	return out
}

// Place plans p with a single-level planner: it puts the whole arena in
// the fastest level that holds it (the arena is planned with that level's
// footprints and alignments), and reports the level and the peak. Where
// the planner's arena is larger than a level but the planner is a
// CapacityPlanner (pack), it packs to the level's capacity instead. An
// arena that holds a block other than a constant never goes to a
// read-only level (FORMATS.md rule 7). It fails if no level holds the
// arena, or if a block is pinned to a level other than the chosen one.
func Place(p *state.Problem, pl Planner) (*state.Layout, int, int64, error) {
	var sizes, readOnly []string
	nonConstant := false
	for b := 0; b < p.Blocks(); b++ {
		nonConstant = nonConstant || p.Block(b).Kind != workload.Constant
	}
	for l := 0; l < p.Levels(); l++ {
		if p.HW.Levels[l].ReadOnly && nonConstant {
			readOnly = append(readOnly, p.HW.Levels[l].Name)
			continue
		}
		iv := Intervals(p, l)
		if MaxLive(iv) > p.HW.Levels[l].Capacity {
			// No arena of these intervals fits: skip the planner's work.
			sizes = append(sizes, fmt.Sprintf("%s %d B", p.HW.Levels[l].Name, p.HW.Levels[l].Capacity))
			continue
		}
		off := pl.Offsets(iv)
		if off == nil && len(iv) > 0 {
			sizes = append(sizes, fmt.Sprintf("%s %d B", p.HW.Levels[l].Name, p.HW.Levels[l].Capacity))
			continue
		}
		peak := Peak(iv, off)
		if c := p.HW.Levels[l].Capacity; peak > c {
			// The planner's least peak is above the capacity: a planner
			// that can pack to a given size tries the capacity itself.
			cp, ok := pl.(CapacityPlanner)
			if ok {
				off, ok = cp.Within(iv, c, workload.Times(p.Prog))
			}
			if !ok {
				sizes = append(sizes, fmt.Sprintf("%s %d B", p.HW.Levels[l].Name, c))
				continue
			}
			peak = Peak(iv, off)
		}
		for b := 0; b < p.Blocks(); b++ {
			if pin := p.Pin(b); pin != state.NoPin && pin != l {
				return nil, 0, 0, fmt.Errorf("planner %s puts every block in level %s, but block %q is pinned to %s",
					pl.Name(), p.HW.Levels[l].Name, p.Block(b).Name, p.HW.Levels[pin].Name)
			}
		}
		lay := state.NewLayout(p.Blocks())
		for b := range off {
			lay.SetFirst(b, state.Seg{From: int32(p.Block(b).First), Level: int32(l), Offset: off[b]})
		}
		return lay, l, peak, nil
	}
	if len(readOnly) > 0 {
		return nil, 0, 0, fmt.Errorf("planner %s needs an arena larger than every writable level (%s); read-only %s holds constants only",
			pl.Name(), strings.Join(sizes, ", "), strings.Join(readOnly, ", "))
	}
	return nil, 0, 0, fmt.Errorf("planner %s needs an arena larger than every level (%s)", pl.Name(), strings.Join(sizes, ", "))
}
