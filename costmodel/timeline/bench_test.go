package timeline

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// deepPrefetch is the hard case for Reprice: every copy issued 16 to 64
// ops ahead, the channels busy about 90% of the time, so that few ops
// stall and a change of an op's time moves R but not the copies in flight.
var deepPrefetch = regime{name: "deep-prefetch", compute: 5, memory: 5, copy: 24, copiesPerOp: 0.5, maxWindow: 64}

// benchProgram is n ops in the regime with 0.5 copies per op on two
// channels, copies in issue order.
func benchProgram(n int, rg regime) *Program {
	rng := rand.New(rand.NewPCG(uint64(n), 99))
	p := &Program{Compute: make([]float64, n), Memory: make([]float64, n), Channels: 2}
	for t := range n {
		p.Compute[t] = randomTime(rng, rg.compute, false)
		p.Memory[t] = randomTime(rng, rg.memory, false)
	}
	for k := range n / 2 {
		c := randomCopy(rng, n, rg, int64(k))
		if rg.name == deepPrefetch.name {
			c.Start = max(0, c.At-16-rng.IntN(49))
		}
		p.Copies = append(p.Copies, c)
	}
	p.SortCopies()
	return p
}

func BenchmarkSimulate(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		p := benchProgram(n, computeBound)
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			var s Scratch
			for b.Loop() {
				s.Simulate(p)
			}
		})
	}
}

func BenchmarkNewBase(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		p := benchProgram(n, computeBound)
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewBase(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReprice prices changes at random positions: one op's memory
// time, or one copy moved to another start before the same op (a
// prefetch). It reports the mean ops simulated per call (steps/op) and the
// most in one call (max-steps).
func BenchmarkReprice(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		for _, rg := range []regime{computeBound, memoryBound, dmaBound, deepPrefetch} {
			p := benchProgram(n, rg)
			base, err := NewBase(p)
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(7, 7))
			for _, kind := range []string{"op", "move"} {
				changes := make([]*Change, 4096)
				for i := range changes {
					ch := &Change{}
					if kind == "op" {
						t := rng.IntN(n)
						ch.Ops = []OpChange{{T: t, Compute: p.Compute[t], Memory: randomTime(rng, rg.memory, false)}}
					} else {
						k := rng.IntN(len(p.Copies))
						c := p.Copies[k]
						for s := c.Start; s == c.Start && c.At > 0; {
							c.Start = max(0, c.At-rng.IntN(9))
						}
						ch.Removed, ch.Added = []CopyKey{p.Copies[k].Key()}, []Copy{c}
					}
					changes[i] = ch
				}
				b.Run(fmt.Sprintf("ops=%d/%s/%s", n, rg.name, kind), func(b *testing.B) {
					var s Scratch
					most := int64(0)
					i := 0
					for b.Loop() {
						st := s.Steps
						base.Reprice(changes[i%len(changes)], &s)
						most = max(most, s.Steps-st)
						i++
					}
					b.ReportMetric(float64(s.Steps)/float64(s.Calls), "steps/op")
					b.ReportMetric(float64(most), "max-steps")
				})
			}
		}
	}
}

// BenchmarkDerive derives a base from one of n ops for a change at a
// random place: one op's memory time, or one copy moved to another start
// before the same op. It reports the chunks simulated per call.
func BenchmarkDerive(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		for _, rg := range []regime{computeBound, deepPrefetch} {
			p := benchProgram(n, rg)
			base, err := NewBase(p)
			if err != nil {
				b.Fatal(err)
			}
			for _, kind := range []string{"op", "move"} {
				rng := rand.New(rand.NewPCG(7, 7))
				changes := make([]*Change, 4096)
				for i := range changes {
					for changes[i] == nil || (kind == "op") != (len(changes[i].Ops) > 0) {
						changes[i] = smallChange(rng, base, rg)
					}
				}
				simulated := 0
				for _, ch := range changes {
					d, err := base.Derive(ch)
					if err != nil {
						b.Fatal(err)
					}
					for k := range d.nch {
						if ckOf(d, k).ck != ckOf(base, k).ck {
							simulated++
						}
					}
				}
				b.Run(fmt.Sprintf("ops=%d/%s/%s", n, rg.name, kind), func(b *testing.B) {
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						if _, err := base.Derive(changes[i%len(changes)]); err != nil {
							b.Fatal(err)
						}
						i++
					}
					b.ReportMetric(float64(simulated)/float64(len(changes)), "chunks/op")
				})
			}
		}
	}
}

// deriveChain derives steps bases in a chain from NewBase(p), each a
// small change of the one before, and returns the last.
func deriveChain(tb testing.TB, p *Program, steps int) *Base {
	rng := rand.New(rand.NewPCG(25, 26))
	base, err := NewBase(p)
	if err != nil {
		tb.Fatal(err)
	}
	for range steps {
		if base, err = base.Derive(smallChange(rng, base, computeBound)); err != nil {
			tb.Fatal(err)
		}
	}
	return base
}

// liveHeap is the heap in use after a garbage collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC() // and what sync.Pools kept through the first
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// chainHeap returns the heap that the last of a chain of derived bases
// keeps alive, and that of a base built from scratch for its program.
func chainHeap(tb testing.TB, p *Program, steps int) (chain, fresh uint64) {
	base := deriveChain(tb, p, steps)
	q := base.Program()
	h1 := liveHeap()
	runtime.KeepAlive(base)
	h2 := liveHeap() // without base
	f, err := NewBase(q)
	if err != nil {
		tb.Fatal(err)
	}
	h3 := liveHeap()
	runtime.KeepAlive(f)
	runtime.KeepAlive(q)
	return h1 - h2, h3 - h2
}

// BenchmarkDeriveChain derives 10,000 bases in a chain from one of 10,000
// ops, each a small change of the one before (ns/op is the whole chain).
// It reports the heap the last base keeps alive (retained-B) and that of a
// base built from scratch for the same program (fresh-B).
func BenchmarkDeriveChain(b *testing.B) {
	const n, steps = 10_000, 10_000
	p := benchProgram(n, computeBound)
	for b.Loop() {
		deriveChain(b, p, steps)
	}
	b.StopTimer()
	retained, fresh := chainHeap(b, p, steps)
	b.ReportMetric(float64(retained), "retained-B")
	b.ReportMetric(float64(fresh), "fresh-B")
}
