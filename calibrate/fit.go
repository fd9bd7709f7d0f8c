package calibrate

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hieropt/hieropt/inputerr"
)

// LinkFit is the least-squares line time = Latency + bytes/Bandwidth through
// the samples of one level and direction.
type LinkFit struct {
	Level     string
	Direction string // In or Out
	N         int    // samples

	// Intercept (ns) and Slope (ns per byte) as fitted, before clamping.
	Intercept, Slope float64

	Latency   float64 // ns: the intercept, clamped to at least MinLatency
	Bandwidth float64 // bytes per ns (= GB/s): 1/slope, clamped to at most 1/MinSlope

	// R2 is the coefficient of determination of the weighted fit (see
	// Fit); ResidualStd the standard deviation of the relative residuals,
	// (time - fitted) / fitted, with N-2 degrees of freedom: 0.02 is 2%.
	R2          float64
	ResidualStd float64

	// 95% confidence intervals, from the standard errors of the intercept
	// and the slope and the t distribution with N-2 degrees of freedom. The
	// bandwidth interval is the slope interval inverted; its upper end is
	// +Inf when the slope interval reaches 0.
	LatencyCI, BandwidthCI [2]float64

	// Poor is set when R2 < MinR2 or the intercept or slope was not
	// positive (and was clamped); Warnings say which.
	Poor     bool
	Warnings []string
}

// Thresholds of Fit.
const (
	MinR2      = 0.9
	Confidence = 0.95
	MinLatency = 1e-3 // ns: a non-positive intercept is clamped to this
	MinSlope   = 1e-6 // ns per byte: a non-positive slope is clamped to this (1e6 GB/s)
)

// LevelOrder is the order of the levels calibrate measures, fastest first.
var LevelOrder = []string{"L1", "L2", "L3", "DRAM"}

// Fit fits time = latency + bytes/bandwidth by least squares to the
// samples of each level and direction, weighted by 1/time² (relative
// errors: timing noise grows with the time measured; the weights come from
// the fitted line, refined a few times), with gonum's stat.LinearRegression.
// Standard errors of the intercept and slope come from the weighted
// residuals, the confidence intervals from the t distribution with N-2
// degrees of freedom. The fits come in LevelOrder
// (other level names after, in order of first appearance), In before Out.
// Each group needs at least 3 samples at 2 or more sizes; an error is an
// *inputerr.Error whose Doc is "samples".
func Fit(samples []Sample) ([]LinkFit, error) {
	type key struct{ level, dir string }
	groups := map[key][]Sample{}
	var levels []string
	for _, s := range samples {
		k := key{s.Level, s.Direction}
		if s.Direction != In && s.Direction != Out {
			return nil, inputerr.New("samples", fmt.Sprintf("level %q", s.Level), "unknown direction %q: want %q or %q", s.Direction, In, Out)
		}
		if !slices.Contains(levels, s.Level) {
			levels = append(levels, s.Level)
		}
		groups[k] = append(groups[k], s)
	}
	if len(samples) == 0 {
		return nil, inputerr.New("samples", "", "no samples")
	}
	levels = orderLevels(levels)
	var fits []LinkFit
	for _, l := range levels {
		for _, d := range []string{In, Out} {
			g, ok := groups[key{l, d}]
			if !ok {
				continue
			}
			f, err := fitGroup(l, d, g)
			if err != nil {
				return nil, err
			}
			fits = append(fits, f)
		}
	}
	return fits, nil
}

// orderLevels puts the names of LevelOrder first, in that order.
func orderLevels(levels []string) []string {
	var out []string
	for _, l := range LevelOrder {
		if slices.Contains(levels, l) {
			out = append(out, l)
		}
	}
	for _, l := range levels {
		if !slices.Contains(LevelOrder, l) {
			out = append(out, l)
		}
	}
	return out
}

// reweightings is the number of times the weights are recomputed from
// the fitted line.
const reweightings = 3

func sq(v float64) float64 { return v * v }

func fitGroup(level, dir string, g []Sample) (LinkFit, error) {
	f := LinkFit{Level: level, Direction: dir, N: len(g)}
	item := fmt.Sprintf("level %q direction %q", level, dir)
	x := make([]float64, len(g))
	y := make([]float64, len(g))
	distinct := map[int64]bool{}
	for i, s := range g {
		x[i], y[i] = float64(s.Bytes), s.NS
		distinct[s.Bytes] = true
	}
	if len(g) < 3 || len(distinct) < 2 {
		return f, inputerr.New("samples", item, "%d samples at %d sizes: a fit needs at least 3 samples at 2 or more sizes", len(g), len(distinct))
	}
	// Weighted least squares, weights 1/time²: timing noise is
	// proportional to the time measured, so every sample counts by its
	// relative error and the latency samples (a few ns) are not drowned
	// by the noise of the large transfers. The weights start from the
	// measured times and are then refined from the fitted line (iterated
	// reweighting), which removes the bias of weighting by noisy values.
	w := make([]float64, len(g))
	floor := 1e-9 * slices.Max(y)
	for i := range y {
		w[i] = 1 / sq(max(y[i], floor, math.SmallestNonzeroFloat64))
	}
	var a, b float64
	for iter := 0; ; iter++ {
		a, b = stat.LinearRegression(x, y, w, false)
		if iter == reweightings {
			break
		}
		for i := range x {
			if yh := a + b*x[i]; yh > floor {
				w[i] = 1 / sq(yh)
			}
		}
	}
	f.Intercept, f.Slope = a, b
	f.R2 = stat.RSquared(x, y, w, a, b)

	n := float64(len(g))
	var sw, swx float64
	for i := range x {
		sw += w[i]
		swx += w[i] * x[i]
	}
	xm := swx / sw
	var sxx, ssr float64
	for i := range x {
		sxx += w[i] * (x[i] - xm) * (x[i] - xm)
		r := y[i] - (a + b*x[i])
		ssr += w[i] * r * r
	}
	s := math.Sqrt(ssr / (n - 2))
	f.ResidualStd = s
	seB := s / math.Sqrt(sxx)
	seA := s * math.Sqrt(1/sw+xm*xm/sxx)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 2}.Quantile(1 - (1-Confidence)/2)
	f.LatencyCI = [2]float64{a - t*seA, a + t*seA}
	lo, hi := b-t*seB, b+t*seB
	f.BandwidthCI = [2]float64{math.Inf(1), math.Inf(1)}
	if hi > 0 {
		f.BandwidthCI[0] = 1 / hi
	}
	if lo > 0 {
		f.BandwidthCI[1] = 1 / lo
	}

	f.Latency, f.Bandwidth = a, 1/b
	if math.IsNaN(f.R2) || f.R2 < MinR2 {
		f.Poor = true
		f.Warnings = append(f.Warnings, fmt.Sprintf("R² %.3g < %g", f.R2, MinR2))
	}
	if !(a > 0) {
		f.Poor = true
		f.Latency = MinLatency
		f.Warnings = append(f.Warnings, fmt.Sprintf("intercept %.3g ns <= 0, latency clamped to %g ns", a, MinLatency))
	}
	if !(b > 0) {
		f.Poor = true
		f.Bandwidth = 1 / MinSlope
		f.Warnings = append(f.Warnings, fmt.Sprintf("slope %.3g ns/B <= 0, bandwidth clamped to %g B/ns", b, 1/MinSlope))
	} else if b < MinSlope {
		f.Bandwidth = 1 / MinSlope
	}
	return f, nil
}
