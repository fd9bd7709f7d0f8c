package calibrate

import (
	"fmt"
	"slices"
)

// CopyCheck compares the copies measured at one level and size with the
// cost model fitted to the in and out samples.
type CopyCheck struct {
	Level string
	Bytes int64 // bytes copied
	N     int   // copy samples at this level and size

	Measured  float64 // ns: the median of the samples
	Predicted float64 // ns: PredictCopy
	// Error is the model's relative error, Predicted/Measured - 1: +0.5
	// is a prediction 50% slower than the copy measured, -0.2 one 20%
	// faster.
	Error float64
}

// PredictCopy returns the time, in ns, the cost model gives a copy of
// bytes bytes within a level: reading them out of the level, then writing
// them into it, from the level's fits (their Latency and Bandwidth, as a
// profile has them):
//
//	out.Latency + bytes/out.Bandwidth + in.Latency + bytes/in.Bandwidth
//
// ok is false when fits lack the level's In or Out fit.
func PredictCopy(fits []LinkFit, level string, bytes int64) (ns float64, ok bool) {
	var in, out *LinkFit
	for i := range fits {
		if fits[i].Level != level {
			continue
		}
		switch fits[i].Direction {
		case In:
			in = &fits[i]
		case Out:
			out = &fits[i]
		}
	}
	if in == nil || out == nil {
		return 0, false
	}
	b := float64(bytes)
	return out.Latency + b/out.Bandwidth + in.Latency + b/in.Bandwidth, true
}

// CheckCopies compares copies with the predictions of fits (PredictCopy):
// one CopyCheck per level and size, the levels in LevelOrder (others after,
// in order of first appearance), the sizes ascending. It fails when a level
// of the copies has no In or Out fit.
func CheckCopies(fits []LinkFit, copies []CopySample) ([]CopyCheck, error) {
	type key struct {
		level string
		bytes int64
	}
	groups := map[key][]float64{}
	var levels []string
	for _, c := range copies {
		if !slices.Contains(levels, c.Level) {
			levels = append(levels, c.Level)
		}
		k := key{c.Level, c.Bytes}
		groups[k] = append(groups[k], c.NS)
	}
	var out []CopyCheck
	for _, l := range orderLevels(levels) {
		var sizes []int64
		for k := range groups {
			if k.level == l {
				sizes = append(sizes, k.bytes)
			}
		}
		slices.Sort(sizes)
		for _, b := range sizes {
			pred, ok := PredictCopy(fits, l, b)
			if !ok {
				return nil, fmt.Errorf("level %q: the copy check needs the level's in and out fits", l)
			}
			ns := groups[key{l, b}]
			med := median(ns)
			out = append(out, CopyCheck{Level: l, Bytes: b, N: len(ns), Measured: med, Predicted: pred, Error: pred/med - 1})
		}
	}
	return out, nil
}

// median returns the median of v (not empty), the mean of the middle two
// for an even length.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
