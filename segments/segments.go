package segments

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hieropt/hieropt/internal/registry"
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

// Kind is a registered kind of strategy: a name, how its spec is written,
// a doc line, and how to build one from the spec's argument (what follows
// the colon, with hasArg false when there is no colon).
type Kind struct {
	Spec string // how to write it, e.g. "fixed:N"
	doc  string
	new  func(arg string, hasArg bool) (Strategy, error)
}

// Name is the kind's name: its spec up to the colon.
func (k Kind) Name() string { name, _, _ := strings.Cut(k.Spec, ":"); return name }

// Doc is the kind's one-line description.
func (k Kind) Doc() string { return k.doc }

// kinds is the registry of strategy kinds.
var kinds = registry.New[Kind]("segments: kind")

func init() {
	kinds.MustRegister(
		Kind{"every", "each timestep is a segment: commit after every timestep (greedy)", func(_ string, hasArg bool) (Strategy, error) {
			if hasArg {
				return nil, errors.New("every takes no argument")
			}
			return Fixed(1), nil
		}},
		Kind{"fixed:N", "segments of N timesteps", func(arg string, hasArg bool) (Strategy, error) {
			n, err := strconv.Atoi(arg)
			if !hasArg || err != nil || n < 1 {
				return nil, errors.New("want fixed:N with N >= 1")
			}
			return Fixed(n), nil
		}},
		Kind{"at:t1,t2,...", "segments end at the given timesteps, increasing, each from 0 to the program's last (and at the last)", func(arg string, hasArg bool) (Strategy, error) {
			if !hasArg || arg == "" {
				return nil, errors.New("want at:t1,t2,... (timesteps that end segments)")
			}
			var ts At
			for _, f := range strings.Split(arg, ",") {
				t, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || t < 0 {
					return nil, fmt.Errorf("%q is not a timestep", f)
				}
				ts = append(ts, t)
			}
			if err := ts.Validate(0); err != nil {
				return nil, err
			}
			return ts, nil
		}},
		Kind{"auto", "segments end where the program's working set (bytes of live non-constant blocks) is at a local minimum: between residual blocks, attention blocks, stages", func(_ string, hasArg bool) (Strategy, error) {
			if hasArg {
				return nil, errors.New("auto takes no argument")
			}
			return Auto{}, nil
		}},
	)
}

// Kinds lists the strategy kinds Parse accepts, sorted by name.
func Kinds() []Kind { return kinds.Entries() }

// Parse reads a strategy spec: a kind's name, and after a colon its
// argument (see Kinds).
func Parse(spec string) (Strategy, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(spec), ":")
	k, ok := kinds.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("segments %q: unknown strategy (want every, fixed:N, at:t1,t2,... or auto)", spec)
	}
	s, err := k.new(arg, hasArg)
	if err != nil {
		return nil, fmt.Errorf("segments %q: %w", spec, err)
	}
	return s, nil
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

// At ends segments at the given timesteps, strictly increasing, each a
// timestep of the program (0 to T-1 for T ops; the last always ends a
// segment, named or not): Validate checks them, Parse and hieropt.Plan call
// it.
type At []int

// Validate checks a's timesteps: each >= 0, each larger than the one
// before (no duplicates, none out of order), and, when T > 0, each at most
// T-1, the last timestep of a program of T ops. The error says which
// timestep breaks which rule.
func (a At) Validate(T int) error {
	for i, t := range a {
		switch {
		case t < 0:
			return fmt.Errorf("timestep %d is negative", t)
		case i > 0 && t == a[i-1]:
			return fmt.Errorf("timestep %d is given twice (want each once, in increasing order)", t)
		case i > 0 && t < a[i-1]:
			return fmt.Errorf("timestep %d comes after %d (want increasing order)", t, a[i-1])
		case T > 0 && t >= T:
			return fmt.Errorf("timestep %d is past the program's last timestep, %d (it has %d ops)", t, T-1, T)
		}
	}
	return nil
}

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
