package state

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
)

// Problem binds a program to a profile, both checked against their rules.
// It precomputes, for every block and level, the effective alignment (the
// larger of the block's and the level's) and the footprint (the size
// rounded up to it), resolves pins to level indexes, and indexes the
// program by timestep (the blocks created, dying and accessed at each) and
// its blocks by name. A Problem is read-only and safe to share between
// goroutines; Prog and HW must not be changed after Bind.
type Problem struct {
	Prog *workload.Program
	HW   *hw.Profile

	nl      int
	foot    []int64 // [b*nl+l]
	align   []int64 // [b*nl+l]
	allowed []bool  // [b*nl+l]: Allowed
	pin     []int32 // level index, or -1

	created, dying, accessed [][]int32 // [t]: block IDs in ID order
	byName                   map[string]int

	// The semantics of the plan's cost model (Semantics), and what only
	// the timeline model needs: per timestep the blocks touched (accessed
	// or created), per block its rank in name order.
	timeline bool
	horizon  int
	touched  [][]int32
	rank     []int32 // made by the first call of Rank
	rankOnce sync.Once

	memoMu sync.Mutex
	memo   map[any]*memoEntry // Memo's values, by key
}

// memoEntry is one value of Memo, computed once.
type memoEntry struct {
	once sync.Once
	v    any
}

// Semantics is what the plan's cost model makes of a layout, bound into a
// Problem by Bind: the planners read it from there.
type Semantics struct {
	// Timeline says the model is the timeline model of FORMATS.md section
	// 6: copies may be issued before their timestep (Seg.Lead), a
	// constant outside its home level is loaded or resident, and a
	// copy's destination is reserved from its start.
	Timeline bool
	// Horizon is the most timesteps a planner issues a copy before the op
	// that needs it (the free-since log of an Occupancy keeps that much
	// history). Default (0): DefaultHorizon. Only under Timeline.
	Horizon int
}

// DefaultHorizon is the default Semantics.Horizon: a copy is issued at
// most 32 ops before it is needed.
const DefaultHorizon = 32

// NoPin is the Pin of a block that may live in any level.
const NoPin = -1

// Bind checks prog against the rules of FORMATS.md section 1
// (Program.Validate) and prof against those of section 2 (Profile.Validate),
// checks that prog can be planned on prof at all (pins name existing
// levels, no block other than a constant is pinned to a read-only level,
// every block fits some level it may use, no footprint overflows), and
// returns the Problem with its indexes. A level is one a block may use
// (Allowed) if the block is not pinned elsewhere, its footprint fits the
// level's capacity, and the level is writable or the block a constant
// (FORMATS.md rule 7, under every cost model). doc names the workload document
// in errors (e.g. `workload "net.json"`). Every failure is an error, never a
// panic, whatever prog and prof hold: an *inputerr.Error naming the
// document, the item and the rule when a document is malformed; a
// *CapacityError (its TooLarge set) when both are valid but a block fits
// no level it may use, so that no plan exists, like CheckCapacity's.
//
// sem, at most one, is the semantics of the plan's cost model (the
// caller knows the model; costmodel.Model.Timeline says which): without
// it, the seed model's.
func Bind(prog *workload.Program, prof *hw.Profile, doc string, sem ...Semantics) (*Problem, error) {
	if prog == nil || prof == nil {
		return nil, errors.New("state.Bind: nil program or profile")
	}
	if err := prog.Validate(doc); err != nil {
		return nil, err
	}
	if err := prof.Validate(hw.DocName(prof.Name)); err != nil {
		return nil, err
	}
	nl := len(prof.Levels)
	nb := len(prog.Blocks)
	p := &Problem{Prog: prog, HW: prof, nl: nl,
		foot: make([]int64, nb*nl), align: make([]int64, nb*nl), allowed: make([]bool, nb*nl), pin: make([]int32, nb)}
	for b := range prog.Blocks {
		blk := &prog.Blocks[b]
		p.pin[b] = NoPin
		if blk.Level != "" {
			l, ok := prof.LevelIndex(blk.Level)
			if !ok {
				return nil, inputerr.New(doc, prog.BlockItem(b), "pinned to level %q, which hardware profile %q does not have (levels: %s)",
					blk.Level, prof.Name, strings.Join(prof.LevelNames(), ", "))
			}
			if prof.Levels[l].ReadOnly && blk.Kind != workload.Constant {
				return nil, inputerr.New(doc, prog.BlockItem(b), "%s block pinned to level %q, which is read-only: only constants may be placed there (FORMATS.md rule 7)",
					blk.Kind, blk.Level)
			}
			p.pin[b] = int32(l)
		}
		fits := false
		for l := range prof.Levels {
			lv := &prof.Levels[l]
			a := max(lv.Alignment, blk.Align)
			f, ok := roundUp(blk.Size, a)
			if !ok {
				// Past 2^63 bytes: no level holds it (capacities are at
				// most hw.MaxCapacity), so the pair is infeasible.
				return nil, &CapacityError{Workload: prog.Name, Hardware: prof.Name,
					TooLarge: &TooLargeError{Block: blk.Name, Size: blk.Size, Doc: doc, Item: prog.BlockItem(b),
						Reason: fmt.Sprintf("size %d overflows when rounded up to the alignment %d of level %q", blk.Size, a, lv.Name)}}
			}
			p.align[b*nl+l] = a
			p.foot[b*nl+l] = f
			if f <= lv.Capacity && (p.pin[b] == NoPin || int(p.pin[b]) == l) && (!lv.ReadOnly || blk.Kind == workload.Constant) {
				p.allowed[b*nl+l] = true
				fits = true
			}
		}
		if !fits {
			// The documents are valid: they cannot be planned together, as
			// when the live blocks overflow the levels (CheckCapacity).
			return nil, &CapacityError{Workload: prog.Name, Hardware: prof.Name,
				TooLarge: &TooLargeError{Block: blk.Name, Size: blk.Size, Doc: doc, Item: prog.BlockItem(b), Reason: tooLarge(p, b)}}
		}
	}
	p.index()
	if len(sem) > 0 && sem[0].Timeline {
		p.bindTimeline(sem[0])
	}
	return p, nil
}

// bindTimeline records the timeline model's semantics and builds what only
// it needs.
func (p *Problem) bindTimeline(sem Semantics) {
	p.timeline = true
	p.horizon = sem.Horizon
	if p.horizon <= 0 {
		p.horizon = DefaultHorizon
	}
	T := len(p.Prog.Ops)
	p.touched = make([][]int32, T)
	for t := range T {
		merged := make([]int32, 0, len(p.accessed[t])+len(p.created[t]))
		merged = append(merged, p.accessed[t]...)
		merged = append(merged, p.created[t]...)
		slices.Sort(merged)
		p.touched[t] = slices.Compact(merged)
	}
}

// Timeline reports whether the problem has the timeline model's semantics
// (Semantics.Timeline).
func (p *Problem) Timeline() bool { return p.timeline }

// Horizon returns the most timesteps a copy is issued before the op that
// needs it (Semantics.Horizon); 0 unless Timeline.
func (p *Problem) Horizon() int { return p.horizon }

// Home returns the home level of block b (FORMATS.md 6.1): the level it is
// pinned to, else the last (slowest) level. A constant's bytes are stored
// there before the program runs.
func (p *Problem) Home(b int) int {
	if pl := p.pin[b]; pl != NoPin {
		return int(pl)
	}
	return p.nl - 1
}

// Touched returns, under Timeline, the IDs of the blocks timestep t
// accesses or creates, in ID order: the only blocks a planner copies at t
// (see Occupancy's walk; the search's evict of an idle activation aside).
// The slice must not be modified.
func (p *Problem) Touched(t int) []int32 { return p.touched[t] }

// Rank returns block b's index in name order (names compared byte by
// byte): the order in which FORMATS.md 6.3 issues copies with the same
// start and at. The first call sorts the names.
func (p *Problem) Rank(b int) int {
	p.rankOnce.Do(func() {
		order := make([]int32, len(p.Prog.Blocks))
		for b := range order {
			order[b] = int32(b)
		}
		slices.SortFunc(order, func(a, b int32) int { return strings.Compare(p.Prog.Blocks[a].Name, p.Prog.Blocks[b].Name) })
		p.rank = make([]int32, len(order))
		for r, b := range order {
			p.rank[b] = int32(r)
		}
	})
	return int(p.rank[b])
}

// CopyInto reports whether a planner may copy a block into level l: l is
// not read-only. Only a constant may be in a read-only level (rule 7), and
// even a constant gets there only as its home, as a resident, or, under
// the seed model, as its free first placement: a copy is a write, which
// the level cannot take.
func (p *Problem) CopyInto(l int) bool { return !p.HW.Levels[l].ReadOnly }

// index builds the per-timestep indexes and the name index of a program
// that passed Validate.
func (p *Problem) index() {
	prog := p.Prog
	T := len(prog.Ops)
	p.created = make([][]int32, T)
	p.dying = make([][]int32, T)
	p.accessed = make([][]int32, T)
	p.byName = make(map[string]int, len(prog.Blocks))
	for i := range prog.Blocks {
		b := &prog.Blocks[i]
		id := int32(i)
		p.byName[b.Name] = i
		p.created[b.First] = append(p.created[b.First], id)
		p.dying[b.Last] = append(p.dying[b.Last], id)
		steps := mergeSteps(b.Reads, b.Writes)
		if b.Kind == workload.Scratch && !containsStep(steps, b.First) {
			steps = mergeSteps(steps, []int{b.First})
		}
		for _, t := range steps {
			p.accessed[t] = append(p.accessed[t], id)
		}
	}
}

// mergeSteps returns the sorted union of two sorted step lists.
func mergeSteps(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i >= len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func containsStep(steps []int, t int) bool {
	i := sort.SearchInts(steps, t)
	return i < len(steps) && steps[i] == t
}

// Created returns the IDs of the blocks whose lifetime starts at t, in ID
// order. The slice must not be modified.
func (p *Problem) Created(t int) []int32 { return p.created[t] }

// Dying returns the IDs of the blocks whose lifetime ends at t, in ID
// order. The slice must not be modified.
func (p *Problem) Dying(t int) []int32 { return p.dying[t] }

// Accessed returns the IDs of the blocks timestep t touches (reads, writes,
// and scratch created at t), in ID order. The slice must not be modified.
func (p *Problem) Accessed(t int) []int32 { return p.accessed[t] }

// BlockID returns the ID of the block named name.
func (p *Problem) BlockID(name string) (int, bool) {
	id, ok := p.byName[name]
	return id, ok
}

// TooLargeError is the cause of Bind's *CapacityError when a block fits
// no level it may use, whatever else is placed: it is larger than every
// level (with its alignment), than its pinned level, or than every
// writable level when it is not a constant (FORMATS.md rule 7).
type TooLargeError struct {
	Block string
	Size  int64
	// Doc and Item name the workload document and the block in it, as
	// an *inputerr.Error would; Reason says why the block fits nowhere.
	Doc, Item, Reason string
}

func (e *TooLargeError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("block %q (%d B) is larger than every level it may use", e.Block, e.Size)
	}
	return e.Doc + ": " + e.Item + ": " + e.Reason
}

func tooLarge(p *Problem, b int) string {
	if pl := p.pin[b]; pl != NoPin {
		lv := &p.HW.Levels[pl]
		return fmt.Sprintf("needs %d B (size %d aligned to %d) but its pinned level %q holds only %d B",
			p.Foot(b, int(pl)), p.Prog.Blocks[b].Size, p.Align(b, int(pl)), lv.Name, lv.Capacity)
	}
	var parts, readOnly []string
	aligned := false
	constant := p.Prog.Blocks[b].Kind == workload.Constant
	for l := range p.HW.Levels {
		lv := &p.HW.Levels[l]
		if lv.ReadOnly && !constant {
			readOnly = append(readOnly, lv.Name)
			continue
		}
		if f := p.Foot(b, l); f != p.Prog.Blocks[b].Size {
			aligned = true
			parts = append(parts, fmt.Sprintf("%s %d B, needs %d B aligned to %d", lv.Name, lv.Capacity, f, p.Align(b, l)))
		} else {
			parts = append(parts, fmt.Sprintf("%s %d B", lv.Name, lv.Capacity))
		}
	}
	what := "size"
	if aligned {
		what = "with its alignment, size"
	}
	if len(readOnly) > 0 {
		if len(parts) == 0 {
			return fmt.Sprintf("a%s %s needs a writable level, and every level of hardware profile %q is read-only (%s): only constants may be placed there (FORMATS.md rule 7)",
				anVowel(p.Prog.Blocks[b].Kind.String()), p.Prog.Blocks[b].Kind, p.HW.Name, strings.Join(readOnly, ", "))
		}
		return fmt.Sprintf("%s %d B is larger than every writable level of hardware profile %q (%s); read-only %s holds constants only (FORMATS.md rule 7)",
			what, p.Prog.Blocks[b].Size, p.HW.Name, strings.Join(parts, ", "), strings.Join(readOnly, ", "))
	}
	return fmt.Sprintf("%s %d B is larger than every level of hardware profile %q (%s)",
		what, p.Prog.Blocks[b].Size, p.HW.Name, strings.Join(parts, ", "))
}

// anVowel returns "n" before a word that starts with a vowel ("an
// activation"), else "".
func anVowel(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "n"
	}
	return ""
}

// roundUp rounds v up to a multiple of a, reporting overflow.
func roundUp(v, a int64) (int64, bool) {
	r := v % a
	if r == 0 {
		return v, true
	}
	if v > math.MaxInt64-(a-r) {
		return 0, false
	}
	return v + a - r, true
}

// AlignUp rounds v up to a multiple of a (v >= 0, no overflow checking:
// offsets inside a level are below its capacity).
func AlignUp(v, a int64) int64 {
	if r := v % a; r != 0 {
		return v + a - r
	}
	return v
}

// AlignDown rounds v down to a multiple of a (a > 0), toward minus
// infinity: a negative v gives a negative multiple, so that a caller
// packing down from a level's top sees that a block does not fit below
// offset 0 (Go's % keeps the sign of v: -48 - (-48 % 128) would be 0).
func AlignDown(v, a int64) int64 {
	r := v % a
	if r < 0 {
		r += a
	}
	return v - r
}

// Levels returns the number of levels.
func (p *Problem) Levels() int { return p.nl }

// Blocks returns the number of blocks.
func (p *Problem) Blocks() int { return len(p.Prog.Blocks) }

// Foot returns the footprint of block b in level l: its size rounded up to
// the effective alignment.
func (p *Problem) Foot(b, l int) int64 { return p.foot[b*p.nl+l] }

// Align returns the effective alignment of block b in level l.
func (p *Problem) Align(b, l int) int64 { return p.align[b*p.nl+l] }

// Pin returns the level block b is pinned to, or NoPin.
func (p *Problem) Pin(b int) int { return int(p.pin[b]) }

// Allowed reports whether block b may live in level l: it is not pinned
// to another level, its footprint fits the level, and the level is
// writable or b is a constant (FORMATS.md rule 7).
func (p *Problem) Allowed(b, l int) bool { return p.allowed[b*p.nl+l] }

// Writable reports whether block b may be placed in level l as far as
// FORMATS.md rule 7 goes: l is not read-only, or b is a constant.
func (p *Problem) Writable(b, l int) bool {
	return !p.HW.Levels[l].ReadOnly || p.Prog.Blocks[b].Kind == workload.Constant
}

// Block returns block b of the program.
func (p *Problem) Block(b int) *workload.Block { return &p.Prog.Blocks[b] }

// Memo returns the value f computes for p, computed once per key: the
// first call with key runs f, later ones (on any goroutine) wait for it
// and get the same value. It is for what packages above state derive
// from the problem alone and would otherwise compute again for each
// planner or initializer (package actions keeps the timeline's dmin so).
// f must depend on p only, and the value must not be modified.
func (p *Problem) Memo(key any, f func() any) any {
	p.memoMu.Lock()
	if p.memo == nil {
		p.memo = map[any]*memoEntry{}
	}
	e := p.memo[key]
	if e == nil {
		e = &memoEntry{}
		p.memo[key] = e
	}
	p.memoMu.Unlock()
	e.once.Do(func() { e.v = f() })
	return e.v
}
