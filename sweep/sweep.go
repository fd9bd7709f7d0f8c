// Package sweep runs the search over a grid of workloads, hardware profiles,
// profile variants and search settings, and summarizes the results. It is
// the library side of `hieropt sweep`: grid expansion, sharding, the CSV rows
// and their merging, and the summary statistics (with gonum/stat). It runs no
// search itself: the caller plans each Point of the grid and records a Row.
//
// # The grid
//
// A grid is the cartesian product, in this order (the first varies slowest,
// like nested loops):
//
//  1. the workloads, in the order given;
//  2. the profiles, in the order given, and within each profile its
//     variants: the unscaled profile first, then for each Scale in the order
//     given each of its factors other than 1, in the order given (one field
//     of one level changed at a time: a one-at-a-time sensitivity design);
//  3. the swept settings (Params), in the order given, the last one varying
//     fastest, each over its values in the order given.
//
// Run k of the grid (0-based) is Grid.Point(k). A Shard i/n (1-based i) owns
// the runs k with k mod n = i-1, so that n machines each run a deterministic,
// interleaved slice (interleaving spreads the large workloads over the
// shards), and Merge joins their CSV files back into grid order.
package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hieropt/hieropt/hw"
)

// Keys are the search settings a sweep can vary, named like the search
// flags of `hieropt optimize`.
var Keys = []string{"segments", "beam", "actions", "max-candidates", "rounds", "horizon", "initial-only", "cost-model", "no-search", "repack"}

// Param is one swept setting: a key of Keys and its values, in order.
type Param struct {
	Key    string
	Values []string
}

// ParseParam reads KEY=V1,V2,... . The values are separated by ';' if the
// list holds one, else by ','. In the values of actions and segments, '+'
// stands for ',': actions=move+swap;move+swap+evict (or
// actions=move,swap;move,swap,evict) sweeps two action sets, and
// segments=auto;at:3,7 (or segments=auto,at:3+7) two segment strategies.
// Values are kept as given (with '+' turned into ','); the caller checks
// them.
func ParseParam(spec string) (Param, error) {
	key, list, ok := strings.Cut(spec, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Param{}, fmt.Errorf("%q: want KEY=V1,V2,... with KEY one of %s", spec, strings.Join(Keys, ", "))
	}
	if !slices.Contains(Keys, key) {
		return Param{}, fmt.Errorf("%q: unknown setting %q (known: %s)", spec, key, strings.Join(Keys, ", "))
	}
	sep := ","
	if strings.Contains(list, ";") {
		sep = ";"
	}
	p := Param{Key: key}
	for _, v := range strings.Split(list, sep) {
		v = strings.TrimSpace(v)
		if key == "actions" || key == "segments" {
			v = strings.ReplaceAll(v, "+", ",")
		}
		if v == "" {
			return Param{}, fmt.Errorf("%q: empty value", spec)
		}
		if slices.Contains(p.Values, v) {
			return Param{}, fmt.Errorf("%q: value %q repeated", spec, v)
		}
		p.Values = append(p.Values, v)
	}
	return p, nil
}

// ParseParams reads every spec with ParseParam and rejects a key swept
// twice.
func ParseParams(specs []string) ([]Param, error) {
	var out []Param
	for _, s := range specs {
		p, err := ParseParam(s)
		if err != nil {
			return nil, err
		}
		for _, q := range out {
			if q.Key == p.Key {
				return nil, fmt.Errorf("%q: %s is already swept by an earlier --set", s, p.Key)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// Fields are the profile fields a Scale can change: bandwidth and latency
// change both sides (in and out) of the level; capacity is rounded to the
// nearest byte.
var Fields = []string{"bandwidth", "latency", "in.bandwidth", "out.bandwidth", "in.latency", "out.latency", "capacity"}

// Scale is a profile-sensitivity axis: one field of one level, multiplied by
// each factor in turn.
type Scale struct {
	Level, Field string
	Factors      []float64
}

// ParseScale reads LEVEL.FIELD=F1,F2,... (FIELD one of Fields; LEVEL may
// itself contain dots).
func ParseScale(spec string) (Scale, error) {
	lhs, list, ok := strings.Cut(spec, "=")
	var sc Scale
	if ok {
		// Longest field first: "in.bandwidth" before "bandwidth".
		for _, f := range []string{"in.bandwidth", "out.bandwidth", "in.latency", "out.latency", "bandwidth", "latency", "capacity"} {
			if lvl, found := strings.CutSuffix(strings.TrimSpace(lhs), "."+f); found && lvl != "" {
				sc.Level, sc.Field = lvl, f
				break
			}
		}
	}
	if sc.Field == "" {
		return Scale{}, fmt.Errorf("%q: want LEVEL.FIELD=F1,F2,... with FIELD one of %s", spec, strings.Join(Fields, ", "))
	}
	for _, v := range strings.Split(list, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			return Scale{}, fmt.Errorf("%q: factor %q: want a number > 0", spec, strings.TrimSpace(v))
		}
		if slices.Contains(sc.Factors, f) {
			return Scale{}, fmt.Errorf("%q: factor %v repeated", spec, f)
		}
		sc.Factors = append(sc.Factors, f)
	}
	return sc, nil
}

// Label names the variant of factor f, e.g. "SRAM.bandwidth*0.5".
func (s Scale) Label(f float64) string {
	return s.Level + "." + s.Field + "*" + strconv.FormatFloat(f, 'g', -1, 64)
}

// Apply returns a copy of p with the scale's field of its level multiplied
// by f, named p.Name[label]; ok is false if p has no such level. The copy is
// validated (a capacity scaled below the level's alignment is an error).
func (s Scale) Apply(p *hw.Profile, f float64) (out *hw.Profile, ok bool, err error) {
	i, ok := p.LevelIndex(s.Level)
	if !ok {
		return nil, false, nil
	}
	c := *p
	c.Levels = slices.Clone(p.Levels)
	c.Name = VariantName(p.Name, s.Label(f))
	l := &c.Levels[i]
	switch s.Field {
	case "bandwidth":
		l.In.Bandwidth *= f
		l.Out.Bandwidth *= f
	case "latency":
		l.In.Latency *= f
		l.Out.Latency *= f
	case "in.bandwidth":
		l.In.Bandwidth *= f
	case "out.bandwidth":
		l.Out.Bandwidth *= f
	case "in.latency":
		l.In.Latency *= f
	case "out.latency":
		l.Out.Latency *= f
	case "capacity":
		l.Capacity = int64(math.Round(float64(l.Capacity) * f))
	}
	if err := c.Validate(hw.DocName(c.Name)); err != nil {
		return nil, true, err
	}
	return &c, true, nil
}

// VariantName is the name of a profile variant: base[label], or base for
// the unscaled profile (label "").
func VariantName(base, label string) string {
	if label == "" {
		return base
	}
	return base + "[" + label + "]"
}

// Variant is one profile of the grid: a profile as given, or a scaled copy.
type Variant struct {
	Profile *hw.Profile // named VariantName(Base, Scale)
	Base    string      // the unscaled profile's name
	Scale   string      // the Scale's label, "" for the unscaled profile
}

// Grid is the cartesian product of workloads, profile variants and swept
// settings, in the order of the package documentation.
type Grid struct {
	Workloads []string // names, for the rows
	Variants  []Variant
	Params    []Param
	// Notes say which variants were left out: a Scale whose level a
	// profile lacks is skipped for that profile.
	Notes []string
}

// NewGrid expands a grid. A workload or profile name given twice, or a
// Scale whose level is in none of the profiles, is an error; a Scale whose
// level some profiles lack is skipped for those, with a note.
func NewGrid(workloads []string, profiles []*hw.Profile, scales []Scale, params []Param) (*Grid, error) {
	if len(workloads) == 0 || len(profiles) == 0 {
		return nil, fmt.Errorf("a sweep needs at least one workload and one profile")
	}
	for i, w := range workloads {
		if slices.Contains(workloads[:i], w) {
			return nil, fmt.Errorf("workload %q is listed twice", w)
		}
	}
	g := &Grid{Workloads: workloads, Params: params}
	used := make([]bool, len(scales))
	for i, p := range profiles {
		for _, q := range profiles[:i] {
			if q.Name == p.Name {
				return nil, fmt.Errorf("profile %q is listed twice", p.Name)
			}
		}
		g.Variants = append(g.Variants, Variant{Profile: p, Base: p.Name})
		for si, sc := range scales {
			for _, f := range sc.Factors {
				if f == 1 {
					continue
				}
				v, ok, err := sc.Apply(p, f)
				if err != nil {
					return nil, err
				}
				if !ok {
					g.Notes = append(g.Notes, fmt.Sprintf("profile %s has no level %q: %s.%s skipped for it", p.Name, sc.Level, sc.Level, sc.Field))
					break
				}
				used[si] = true
				g.Variants = append(g.Variants, Variant{Profile: v, Base: p.Name, Scale: sc.Label(f)})
			}
			if _, ok := p.LevelIndex(sc.Level); ok {
				used[si] = true
			}
		}
	}
	for si, sc := range scales {
		if !used[si] {
			var levels []string
			for _, p := range profiles {
				for _, n := range p.LevelNames() {
					if !slices.Contains(levels, n) {
						levels = append(levels, n)
					}
				}
			}
			return nil, fmt.Errorf("%s.%s: no profile has a level %q (levels: %s)", sc.Level, sc.Field, sc.Level, strings.Join(levels, ", "))
		}
	}
	return g, nil
}

// Keys returns the swept settings' keys, in order.
func (g *Grid) Keys() []string {
	keys := make([]string, len(g.Params))
	for i, p := range g.Params {
		keys[i] = p.Key
	}
	return keys
}

// Len is the number of runs.
func (g *Grid) Len() int {
	n := len(g.Workloads) * len(g.Variants)
	for _, p := range g.Params {
		n *= len(p.Values)
	}
	return n
}

// Point is one run of the grid.
type Point struct {
	Run      int      // its index in the grid, from 0
	Workload int      // index into Grid.Workloads
	Variant  int      // index into Grid.Variants
	Values   []string // one per Grid.Params
}

// Point returns run k (0 <= k < Len()).
func (g *Grid) Point(k int) Point {
	pt := Point{Run: k, Values: make([]string, len(g.Params))}
	r := k
	for i := len(g.Params) - 1; i >= 0; i-- {
		n := len(g.Params[i].Values)
		pt.Values[i] = g.Params[i].Values[r%n]
		r /= n
	}
	pt.Variant = r % len(g.Variants)
	pt.Workload = r / len(g.Variants)
	return pt
}

// Row returns the row of point pt with its identifying fields filled in
// (run, workload, profile, scale, setting values); the caller adds the
// outcome.
func (g *Grid) Row(pt Point) Row {
	v := g.Variants[pt.Variant]
	return Row{
		Run:      pt.Run,
		Workload: g.Workloads[pt.Workload],
		Profile:  v.Profile.Name,
		Scale:    v.Scale,
		Values:   slices.Clone(pt.Values),
	}
}

// Shard is the slice i/n of a grid: the runs k with k mod n = i-1.
type Shard struct {
	Index int // 1-based
	Count int
}

// All is the whole grid, shard 1/1.
var All = Shard{1, 1}

// ParseShard reads "i/n" with 1 <= i <= n; "" is All.
func ParseShard(s string) (Shard, error) {
	if strings.TrimSpace(s) == "" {
		return All, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("%q: want i/n with 1 <= i <= n (i is 1-based: JOB_COMPLETION_INDEX+1)", s)
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Has reports whether run k belongs to the shard.
func (s Shard) Has(k int) bool { return k%s.Count == s.Index-1 }

// Runs returns the shard's runs of a grid of n runs, in order.
func (s Shard) Runs(n int) []int {
	var out []int
	for k := s.Index - 1; k < n; k += s.Count {
		out = append(out, k)
	}
	return out
}
