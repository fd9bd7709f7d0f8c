package state

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hieropt/hieropt/workload"
)

// CapacityError says that a program cannot fit a profile at all: one of
// its blocks fits no level it may use (TooLarge, from Bind), or at some
// timestep its live blocks need more bytes than the levels hold together
// (or its live blocks other than constants more than the writable levels
// hold, or than a level holds the blocks pinned to it), however they are
// placed.
type CapacityError struct {
	Workload, Hardware string
	Timestep           int
	Level              string // the overflowing level for pinned blocks; "" for all levels together
	// Writable says the blocks are those other than constants, against the
	// levels that are not read-only (FORMATS.md rule 7); ReadOnly lists the
	// others.
	Writable   bool
	ReadOnly   string
	Need, Have int64  // bytes
	Capacities string // "SRAM 4194304 B + DRAM ..." for messages
	Largest    []string
	// TooLarge, when not nil, is Bind's finding that one block alone fits
	// no level it may use; the fields above but Workload and Hardware are
	// then zero, and the message is TooLarge's.
	TooLarge *TooLargeError
}

// Unwrap returns TooLarge, if any.
func (e *CapacityError) Unwrap() error {
	if e.TooLarge == nil {
		return nil
	}
	return e.TooLarge
}

func (e *CapacityError) Error() string {
	if e.TooLarge != nil {
		return e.TooLarge.Error()
	}
	where := "the levels hold " + fmt.Sprint(e.Have) + " B in total (" + e.Capacities + ")"
	what := "its live blocks need"
	if e.Writable {
		where = fmt.Sprintf("the writable levels hold %d B in total (%s; read-only %s holds constants only)", e.Have, e.Capacities, e.ReadOnly)
		what = "its live blocks other than constants need"
	}
	if e.Level != "" {
		where = fmt.Sprintf("level %q holds %d B", e.Level, e.Have)
		what = "its live blocks pinned to " + e.Level + " need"
	}
	return fmt.Sprintf("workload %q cannot fit hardware profile %q: at timestep %d %s at least %d B but %s; largest live blocks: %s",
		e.Workload, e.Hardware, e.Timestep, what, e.Need, where, strings.Join(e.Largest, ", "))
}

// CheckCapacity returns a *CapacityError if some timestep's live blocks
// cannot fit the levels together whatever the plan: their smallest
// footprints, less what in-place reuse could save at most, exceed the total
// capacity; or those of the blocks other than constants exceed the
// capacity of the writable levels (FORMATS.md rule 7: only constants in a
// read-only level); or the blocks pinned to one level exceed its capacity. A nil
// result does not promise that a plan exists (fragmentation may still
// defeat one), only that capacity alone does not forbid it.
func (p *Problem) CheckCapacity() error {
	T := p.Prog.Timesteps()
	nl := p.Levels()
	var total, writable int64
	var caps, wcaps, readOnly []string
	for l := range p.HW.Levels {
		lv := &p.HW.Levels[l]
		total = addSat(total, lv.Capacity)
		caps = append(caps, fmt.Sprintf("%s %d B", lv.Name, lv.Capacity))
		if lv.ReadOnly {
			readOnly = append(readOnly, lv.Name)
		} else {
			writable = addSat(writable, lv.Capacity)
			wcaps = append(wcaps, fmt.Sprintf("%s %d B", lv.Name, lv.Capacity))
		}
	}
	minFoot := make([]int64, p.Blocks())
	need := make([]int64, T+1)
	needW := make([]int64, T+1) // the blocks other than constants
	pinned := make([]int64, (T+1)*nl)
	for b := range minFoot {
		blk := p.Block(b)
		mf := int64(-1)
		for l := 0; l < nl; l++ {
			if p.Allowed(b, l) && (mf < 0 || p.Foot(b, l) < mf) {
				mf = p.Foot(b, l)
			}
		}
		minFoot[b] = mf
		need[blk.First] += mf
		need[blk.Last+1] -= mf
		if blk.Kind != workload.Constant {
			needW[blk.First] += mf
			needW[blk.Last+1] -= mf
		}
		if pin := p.Pin(b); pin != NoPin {
			pinned[blk.First*nl+pin] += mf
			pinned[(blk.Last+1)*nl+pin] -= mf
		}
	}
	var cur, curW int64
	curPin := make([]int64, nl)
	pinEnding, pinCreated := make([]int64, nl), make([]int64, nl)
	for t := 0; t < T; t++ {
		cur += need[t]
		curW += needW[t]
		var ending, created, createdW int64
		for l := range pinEnding {
			pinEnding[l], pinCreated[l] = 0, 0
		}
		for _, b := range p.Dying(t) {
			if p.Block(int(b)).Reusable {
				ending += minFoot[b]
				if pin := p.Pin(int(b)); pin != NoPin {
					pinEnding[pin] += minFoot[b]
				}
			}
		}
		for _, b := range p.Created(t) {
			created += minFoot[b]
			if p.Block(int(b)).Kind != workload.Constant {
				createdW += minFoot[b]
			}
			if pin := p.Pin(int(b)); pin != NoPin {
				pinCreated[pin] += minFoot[b]
			}
		}
		lower := cur - min(ending, created)
		if lower > total {
			return &CapacityError{Workload: p.Prog.Name, Hardware: p.HW.Name, Timestep: t, Need: lower, Have: total,
				Capacities: strings.Join(caps, " + "), Largest: p.largestLive(t, -1)}
		}
		// Only blocks other than constants take over space in place (the
		// kind rule), so ending counts toward both bounds.
		if lowerW := curW - min(ending, createdW); len(readOnly) > 0 && lowerW > writable {
			return &CapacityError{Workload: p.Prog.Name, Hardware: p.HW.Name, Timestep: t, Writable: true, Need: lowerW, Have: writable,
				Capacities: strings.Join(wcaps, " + "), ReadOnly: strings.Join(readOnly, ", "), Largest: p.largestLive(t, -2)}
		}
		for l := 0; l < nl; l++ {
			curPin[l] += pinned[t*nl+l]
			// A pinned block created at t may take over the space of a
			// reusable pinned block that ends at t, as in the total.
			pinLower := curPin[l] - min(pinEnding[l], pinCreated[l])
			if c := p.HW.Levels[l].Capacity; pinLower > c {
				return &CapacityError{Workload: p.Prog.Name, Hardware: p.HW.Name, Timestep: t, Level: p.HW.Levels[l].Name,
					Need: pinLower, Have: c, Largest: p.largestLive(t, l)}
			}
		}
	}
	return nil
}

// largestLive names the three largest blocks alive at t (pinned to level
// pin, unless pin is -1; other than constants if pin is -2).
func (p *Problem) largestLive(t, pin int) []string {
	var ids []int
	for b := range p.Prog.Blocks {
		blk := p.Block(b)
		if blk.First <= t && t <= blk.Last && (pin == -1 || p.Pin(b) == pin || pin == -2 && blk.Kind != workload.Constant) {
			ids = append(ids, b)
		}
	}
	sort.SliceStable(ids, func(i, j int) bool { return p.Block(ids[i]).Size > p.Block(ids[j]).Size })
	var out []string
	for _, b := range ids[:min(3, len(ids))] {
		out = append(out, fmt.Sprintf("%q (%d B)", p.Block(b).Name, p.Block(b).Size))
	}
	return out
}

func addSat(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return 1<<63 - 1
}
