package pack

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"testing"
	"time"
)

// idealloc is where the idealloc benchmarks (Y_1 and others) are, if this
// machine has them ($HIEROPT_IDEALLOC overrides it).
func idealloc() string {
	if d := os.Getenv("HIEROPT_IDEALLOC"); d != "" {
		return d
	}
	return "/work/shared/benchmarks/idealloc"
}

// BenchmarkPackScaling: Solve with Minimize (and a node limit of 2000, so
// that the run is deterministic and the branch and bound's share bounded)
// on compiler traces of 1k to 64k buffers: the first n rows of idealloc's
// Y_1 (when the file is there), compilerTrace(1, n) (about 10% of the
// buffers long-lived, like Y_1) and, issue 17's fragmented family, copies
// of idealloc's SOMAS resnet50 overlapping by half (somasCopies, shift 515:
// 1 to 61 copies, 1,042 to 63,562 buffers; when the file is there). Each size reports s/op, the process's peak
// RSS during the run (peak-MB: VmHWM, reset before it; Linux only) and the
// peak above max-live (gap-%); a last sub-benchmark "fit" reports the
// exponents k of time ~ n^k and peak RSS ~ n^k fitted by least squares
// over the sizes (time-exp, rss-exp), from each size's fastest run and
// largest peak RSS: with -benchtime 3x a load spike in one run does not
// bend the fit. Run one at a time:
//
//	go test ./pack -run '^$' -bench PackScaling -benchtime 3x
func BenchmarkPackScaling(b *testing.B) {
	sizes := []int{1000, 2000, 4000, 8000, 16000, 32000, 64000}
	type input struct {
		name string
		make func(n int) *Problem
		max  int // largest n it has (0: any)
	}
	inputs := []input{{name: "trace", make: func(n int) *Problem { return compilerTrace(1, n) }}}
	if y, err := os.ReadFile(idealloc() + "/Y_1.csv"); err == nil {
		all, err := ReadCSV("Y_1.csv", bytes.NewReader(y))
		if err != nil {
			b.Fatal(err)
		}
		inputs = append([]input{{name: "Y_1", max: len(all.Buffers), make: func(n int) *Problem {
			return &Problem{Buffers: all.Buffers[:n]}
		}}}, inputs...)
	}
	if data, err := os.ReadFile(idealloc() + "/resnet50.csv"); err == nil {
		base, err := ReadCSV("resnet50.csv", bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, input{name: "somas-half", make: func(n int) *Problem {
			return somasCopies(base, max(1, (n+len(base.Buffers)/2)/len(base.Buffers)), 515)
		}})
	}
	for _, in := range inputs {
		var ns, secs, rss []float64
		for _, n := range sizes {
			if in.max > 0 && n > in.max {
				n = in.max
			}
			p := in.make(n)
			ns = append(ns, float64(n))
			secs = append(secs, math.Inf(1))
			rss = append(rss, 0)
			k := len(ns) - 1
			b.Run(fmt.Sprintf("%s/%d", in.name, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					debug.FreeOSMemory()
					resetPeakRSS()
					before := peakRSS()
					start := time.Now()
					sol, err := Solve(context.Background(), p, &Options{Minimize: true, NodeLimit: 2000})
					d := time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
					if err := Check(p, sol); err != nil {
						b.Fatal(err)
					}
					mb := float64(max(peakRSS(), before)) / (1 << 20)
					lb := MaxLive(p)
					b.ReportMetric(d.Seconds(), "s/run")
					b.ReportMetric(mb, "peak-MB")
					b.ReportMetric(100*float64(sol.Peak-lb)/float64(lb), "gap-%")
					secs[k], rss[k] = min(secs[k], d.Seconds()), max(rss[k], mb)
				}
			})
		}
		b.Run(in.name+"/fit", func(b *testing.B) {
			b.ReportMetric(fitExponent(ns, secs), "time-exp")
			b.ReportMetric(fitExponent(ns, rss), "rss-exp")
		})
	}
}

// fitExponent returns k of y ~ c*x^k, least squares on the logarithms
// (NaN with fewer than two points).
func fitExponent(x, y []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	var sx, sy, sxx, sxy float64
	for i := range x {
		lx, ly := math.Log(x[i]), math.Log(y[i])
		sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
	}
	m := float64(len(x))
	return (m*sxy - sx*sy) / (m*sxx - sx*sx)
}

// resetPeakRSS resets the process's peak RSS (VmHWM) to its current RSS
// (Linux: 5 to /proc/self/clear_refs); elsewhere it does nothing.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS returns the process's peak RSS in bytes (VmHWM), 0 where
// unknown.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(rest)
			if len(f) == 2 {
				kb, err := strconv.ParseInt(string(f[0]), 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}

// BenchmarkSolveFile solves the MiniMalloc CSV named by $HIEROPT_PACK_FILE
// with Minimize and a node limit of 200,000 (a profiling aid: add
// -cpuprofile or -memprofile).
func BenchmarkSolveFile(b *testing.B) {
	path := os.Getenv("HIEROPT_PACK_FILE")
	if path == "" {
		b.Skip("HIEROPT_PACK_FILE not set")
	}
	p := loadCSV(b, path)
	for i := 0; i < b.N; i++ {
		sol, err := Solve(context.Background(), p, &Options{Minimize: true, NodeLimit: 200000})
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("peak %d (max-live %d) optimal %v, %d nodes; phases %+v", sol.Peak, MaxLive(p), sol.Optimal, sol.Stats.Nodes, sol.Stats.Phases)
	}
}

// somasCopies is k copies of base, copy c shifted by c*shift in time (ids
// prefixed with the copy's number): with shift at least base's span the
// copies do not meet and max-live is base's; with less, copies overlap
// and the packing must fit their buffers into each other's gaps.
func somasCopies(base *Problem, k int, shift int64) *Problem {
	p := &Problem{}
	for c := 0; c < k; c++ {
		for _, b := range base.Buffers {
			b.ID = fmt.Sprintf("%d.%s", c, b.ID)
			b.Lower += int64(c) * shift
			b.Upper += int64(c) * shift
			p.Buffers = append(p.Buffers, b)
		}
	}
	return p
}

// BenchmarkPackSOMAS: issue 17's "20,000-buffer problem with
// fragmentation": 20 time-shifted copies of idealloc's MindSpore SOMAS
// trace of ResNet-50 (resnet50.csv, 1,042 buffers spanning times 0-1029;
// 20,840 buffers), packed with Minimize under a 10 s deadline. "apart":
// each copy starts where the previous ends (shift 1029), so the copies do
// not meet; "half": each starts halfway through the previous (shift 515),
// so two copies are alive at a time and their buffers interleave. Each
// reports s/run, peak-MB (as BenchmarkPackScaling) and gap-% (the peak
// above max-live; 0 with optimal 1 when proven). Skipped without the file.
//
//	go test ./pack -run '^$' -bench PackSOMAS -benchtime 1x
func BenchmarkPackSOMAS(b *testing.B) {
	data, err := os.ReadFile(idealloc() + "/resnet50.csv")
	if err != nil {
		b.Skip("no resnet50.csv:", err)
	}
	base, err := ReadCSV("resnet50.csv", bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		shift int64
	}{{"apart", 1029}, {"half", 515}} {
		p := somasCopies(base, 20, c.shift)
		b.Run(fmt.Sprintf("%s/%d", c.name, len(p.Buffers)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				debug.FreeOSMemory()
				resetPeakRSS()
				before := peakRSS()
				start := time.Now()
				sol, err := Solve(context.Background(), p, &Options{Minimize: true, Deadline: start.Add(10 * time.Second)})
				d := time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if err := Check(p, sol); err != nil {
					b.Fatal(err)
				}
				lb := MaxLive(p)
				optimal := 0.0
				if sol.Optimal {
					optimal = 1
				}
				b.ReportMetric(d.Seconds(), "s/run")
				b.ReportMetric(float64(max(peakRSS(), before))/(1<<20), "peak-MB")
				b.ReportMetric(100*float64(sol.Peak-lb)/float64(lb), "gap-%")
				b.ReportMetric(optimal, "optimal")
			}
		})
	}
}
