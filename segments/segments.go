package segments

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hieropt/hieropt/workload"
)

// Strategy splits a program's timesteps into local-optimal segments.
type Strategy interface {
	// Name is the strategy's spec, e.g. "fixed:4"; Parse(Name()) gives it
	// back.
	Name() string
	// Ends returns, for each timestep, whether a segment ends there (a
	// state-update timestep). The final timestep always ends one.
	Ends(prog *workload.Program) []bool
}

// Info describes a strategy kind for listings.
type Info struct {
	Spec string // how to write it
	Doc  string
}

// Kinds lists the strategy kinds Parse accepts.
func Kinds() []Info {
	return []Info{
		{"every", "each timestep is a segment: commit after every timestep (greedy)"},
		{"fixed:N", "segments of N timesteps"},
		{"at:t1,t2,...", "segments end at the given timesteps (and at the last)"},
		{"auto", "segments end where the program's working set (bytes of live non-constant blocks) is at a local minimum: between residual blocks, attention blocks, stages"},
	}
}

// Parse reads a strategy spec (see Kinds).
func Parse(spec string) (Strategy, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(spec), ":")
	switch name {
	case "every":
		if hasArg {
			return nil, fmt.Errorf("segments %q: every takes no argument", spec)
		}
		return Fixed(1), nil
	case "fixed":
		n, err := strconv.Atoi(arg)
		if !hasArg || err != nil || n < 1 {
			return nil, fmt.Errorf("segments %q: want fixed:N with N >= 1", spec)
		}
		return Fixed(n), nil
	case "at":
		if !hasArg || arg == "" {
			return nil, fmt.Errorf("segments %q: want at:t1,t2,... (timesteps that end segments)", spec)
		}
		var ts []int
		for _, f := range strings.Split(arg, ",") {
			t, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || t < 0 {
				return nil, fmt.Errorf("segments %q: %q is not a timestep", spec, f)
			}
			ts = append(ts, t)
		}
		sort.Ints(ts)
		return At(ts), nil
	case "auto":
		if hasArg {
			return nil, fmt.Errorf("segments %q: auto takes no argument", spec)
		}
		return Auto{}, nil
	}
	return nil, fmt.Errorf("segments %q: unknown strategy (want every, fixed:N, at:t1,t2,... or auto)", spec)
}

// Fixed ends a segment every N timesteps; Fixed(1) is "every".
type Fixed int

// Name implements Strategy.
func (f Fixed) Name() string {
	if f == 1 {
		return "every"
	}
	return fmt.Sprintf("fixed:%d", int(f))
}

// Ends implements Strategy.
func (f Fixed) Ends(prog *workload.Program) []bool {
	T := prog.Timesteps()
	ends := make([]bool, T)
	for t := int(f) - 1; t < T; t += int(f) {
		ends[t] = true
	}
	ends[T-1] = true
	return ends
}

// At ends segments at the given timesteps (sorted); timesteps past the
// program's end are ignored.
type At []int

// Name implements Strategy.
func (a At) Name() string {
	parts := make([]string, len(a))
	for i, t := range a {
		parts[i] = strconv.Itoa(t)
	}
	return "at:" + strings.Join(parts, ",")
}

// Ends implements Strategy.
func (a At) Ends(prog *workload.Program) []bool {
	T := prog.Timesteps()
	ends := make([]bool, T)
	for _, t := range a {
		if t < T {
			ends[t] = true
		}
	}
	ends[T-1] = true
	return ends
}

// Auto ends segments at the local minima of the program's working set:
// the bytes of the non-constant blocks alive at each timestep. Segments are
// kept between AutoMinLen and AutoMaxLen timesteps long, except the last,
// which ends at the final timestep wherever the previous one ended.
type Auto struct{}

// Segment length bounds of Auto: a minimum shorter than a typical layer
// group would commit too often to see a pattern; a maximum bounds the
// beam's work.
const (
	AutoMinLen = 2
	AutoMaxLen = 16
)

// Name implements Strategy.
func (Auto) Name() string { return "auto" }

// Ends implements Strategy.
func (Auto) Ends(prog *workload.Program) []bool {
	T := prog.Timesteps()
	live := WorkingSet(prog)
	ends := make([]bool, T)
	last := -1 // the previous end
	for t := 0; t < T; t++ {
		// A local minimum: no lower than its neighbours; on a plateau the
		// last timestep of it.
		min := (t == 0 || live[t] <= live[t-1]) && (t == T-1 || live[t] < live[t+1])
		switch {
		case t-last >= AutoMaxLen:
			ends[t] = true
		case min && t-last >= AutoMinLen:
			ends[t] = true
		}
		if ends[t] {
			last = t
		}
	}
	ends[T-1] = true
	return ends
}

// WorkingSet returns, per timestep, the bytes of the non-constant blocks
// alive there.
func WorkingSet(prog *workload.Program) []int64 {
	T := prog.Timesteps()
	delta := make([]int64, T+1)
	for i := range prog.Blocks {
		b := &prog.Blocks[i]
		if b.Kind == workload.Constant {
			continue
		}
		delta[b.First] += b.Size
		delta[b.Last+1] -= b.Size
	}
	live := make([]int64, T)
	var cur int64
	for t := 0; t < T; t++ {
		cur += delta[t]
		live[t] = cur
	}
	return live
}
