package sweep

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// Stats describe the reductions of a set of valid runs. A statistic that
// is not defined (no run; a standard deviation of one run) is NaN.
type Stats struct {
	N      int     // valid runs
	Mean   float64 // mean reduction, %
	StdDev float64 // sample standard deviation of the reduction (n-1), %
	// Empirical quantiles of the reduction (stat.Quantile, stat.Empirical:
	// the smallest value whose empirical CDF reaches p), %.
	P10, P50, P90 float64
	// GeoReduction is 100*(1 - the geometric mean of final/initial): the
	// typical cost reduction as a ratio, over the runs whose initial cost
	// is positive.
	GeoReduction float64
}

// Group is the statistics of the runs sharing one setting value ("beam",
// "4"), one scale variant ("scale", "SRAM.bandwidth*0.5" or "none"), or
// all runs ("all", "").
type Group struct {
	Key, Value string
	Runs       int // runs of the group, valid or not
	Stats
}

// Label is how the summary names the group: "all", "beam=4".
func (g *Group) Label() string {
	if g.Key == "all" {
		return "all"
	}
	return g.Key + "=" + g.Value
}

// Correlation compares the final costs of a profile variant with those of
// its unscaled profile, over the pairs of valid runs with the same
// workload and settings.
type Correlation struct {
	Variant  string // ethos-u55[SRAM.bandwidth*0.5]
	Profile  string // ethos-u55
	Pairs    int
	Pearson  float64 // stat.Correlation; NaN with fewer than 2 pairs or a constant side
	Spearman float64 // Pearson of the ranks (ties get their mean rank)
}

// Summary is what a sweep found.
type Summary struct {
	Runs, Valid  int
	Groups       []Group // "all" first, then each setting's values, then the scale variants
	Correlations []Correlation
	Seconds      float64 // the runs' seconds, summed
}

// Summarize computes the summary of a table (in grid order: the groups'
// values come in the order they first appear).
func Summarize(t *Table) *Summary {
	s := &Summary{Runs: len(t.Rows)}
	for i := range t.Rows {
		r := &t.Rows[i]
		s.Seconds += r.Seconds
		if r.Valid() {
			s.Valid++
		}
	}
	s.Groups = append(s.Groups, group("all", "", t.Rows, func(*Row) bool { return true }))
	for ki, key := range t.Keys {
		var values []string
		for _, r := range t.Rows {
			if !slices.Contains(values, r.Values[ki]) {
				values = append(values, r.Values[ki])
			}
		}
		for _, v := range values {
			s.Groups = append(s.Groups, group(key, v, t.Rows, func(r *Row) bool { return r.Values[ki] == v }))
		}
	}
	var scales []string
	for _, r := range t.Rows {
		if !slices.Contains(scales, r.Scale) {
			scales = append(scales, r.Scale)
		}
	}
	if len(scales) > 1 || len(scales) == 1 && scales[0] != "" {
		slices.SortStableFunc(scales, func(a, b string) int { // "none" first
			return boolInt(a != "") - boolInt(b != "")
		})
		for _, sc := range scales {
			name := sc
			if sc == "" {
				name = "none"
			}
			s.Groups = append(s.Groups, group("scale", name, t.Rows, func(r *Row) bool { return r.Scale == sc }))
		}
		s.Correlations = correlations(t)
	}
	return s
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func group(key, value string, rows []Row, in func(*Row) bool) Group {
	g := Group{Key: key, Value: value}
	var red, ratio []float64
	for i := range rows {
		r := &rows[i]
		if !in(r) {
			continue
		}
		g.Runs++
		if !r.Valid() {
			continue
		}
		red = append(red, r.Reduction())
		if r.Initial > 0 {
			ratio = append(ratio, r.Final/r.Initial)
		}
	}
	g.Stats = describe(red, ratio)
	return g
}

// describe computes Stats from reductions (%) and cost ratios final/initial.
func describe(red, ratio []float64) Stats {
	nan := math.NaN()
	st := Stats{N: len(red), Mean: nan, StdDev: nan, P10: nan, P50: nan, P90: nan, GeoReduction: nan}
	if len(red) > 0 {
		sorted := slices.Clone(red)
		slices.Sort(sorted)
		st.Mean = stat.Mean(red, nil)
		if len(red) > 1 {
			st.StdDev = stat.StdDev(red, nil)
		}
		st.P10 = stat.Quantile(0.1, stat.Empirical, sorted, nil)
		st.P50 = stat.Quantile(0.5, stat.Empirical, sorted, nil)
		st.P90 = stat.Quantile(0.9, stat.Empirical, sorted, nil)
	}
	if len(ratio) > 0 {
		st.GeoReduction = 100 * (1 - stat.GeometricMean(ratio, nil))
	}
	return st
}

// correlations pairs each scaled row with the unscaled row of the same
// workload, base profile and settings.
func correlations(t *Table) []Correlation {
	type key struct{ workload, profile, values string }
	keyOf := func(r *Row) key {
		return key{r.Workload, r.BaseProfile(), strings.Join(r.Values, "\x00")}
	}
	base := map[key]*Row{}
	for i := range t.Rows {
		if r := &t.Rows[i]; r.Scale == "" {
			base[keyOf(r)] = r
		}
	}
	var order []string
	pairs := map[string]*[2][]float64{}
	profile := map[string]string{}
	for i := range t.Rows {
		r := &t.Rows[i]
		if r.Scale == "" {
			continue
		}
		if _, ok := pairs[r.Profile]; !ok {
			order = append(order, r.Profile)
			pairs[r.Profile] = &[2][]float64{}
			profile[r.Profile] = r.BaseProfile()
		}
		b := base[keyOf(r)]
		if b == nil || !b.Valid() || !r.Valid() {
			continue
		}
		p := pairs[r.Profile]
		p[0] = append(p[0], b.Final)
		p[1] = append(p[1], r.Final)
	}
	var out []Correlation
	for _, v := range order {
		x, y := pairs[v][0], pairs[v][1]
		c := Correlation{Variant: v, Profile: profile[v], Pairs: len(x), Pearson: math.NaN(), Spearman: math.NaN()}
		if len(x) >= 2 {
			c.Pearson = stat.Correlation(x, y, nil)
			c.Spearman = stat.Correlation(ranks(x), ranks(y), nil)
		}
		out = append(out, c)
	}
	return out
}

// ranks returns the rank of each value of x (1 = smallest); tied values
// get the mean of their ranks.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

// Write prints the summary as text.
func (s *Summary) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s, %d valid, %d without a plan; planning time %.2f s (the runs' seconds summed)\n",
		s.Runs, runsWord(s.Runs), s.Valid, s.Runs-s.Valid, s.Seconds)
	width := len("group")
	for i := range s.Groups {
		width = max(width, len(s.Groups[i].Label()))
	}
	b.WriteString("\nreduction of the final cost against the initializer's, %, over the valid runs:\n")
	fmt.Fprintf(&b, "  %-*s %5s %5s %8s %8s %8s %8s %8s %8s\n", width, "group", "runs", "valid", "mean", "sd", "p10", "p50", "p90", "geomean")
	for i := range s.Groups {
		g := &s.Groups[i]
		fmt.Fprintf(&b, "  %-*s %5d %5d %8s %8s %8s %8s %8s %8s\n", width, g.Label(), g.Runs, g.N,
			num(g.Mean, 2), num(g.StdDev, 2), num(g.P10, 2), num(g.P50, 2), num(g.P90, 2), num(g.GeoReduction, 2))
	}
	b.WriteString("  (sd: sample standard deviation; p10/p50/p90: empirical quantiles; geomean: 100*(1 - geometric mean of final/initial))\n")
	if len(s.Correlations) > 0 {
		width := len("variant")
		for _, c := range s.Correlations {
			width = max(width, len(c.Variant))
		}
		b.WriteString("\nscale sensitivity: correlation of each variant's final costs with its unscaled profile's,\npaired by workload and settings:\n")
		fmt.Fprintf(&b, "  %-*s %5s %8s %8s\n", width, "variant", "pairs", "pearson", "spearman")
		for _, c := range s.Correlations {
			fmt.Fprintf(&b, "  %-*s %5d %8s %8s\n", width, c.Variant, c.Pairs, num(c.Pearson, 4), num(c.Spearman, 4))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func num(x float64, prec int) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, x)
}

// runsWord is "run" for one, else "runs".
func runsWord(n int) string {
	if n == 1 {
		return "run"
	}
	return "runs"
}
