// Package heapgoal keeps the garbage collector from running on a small
// heap for hieropt's command line.
//
// The search allocates a lot of short-lived data (a copy-on-write state
// per candidate: about 700 MB over the 4,000-op benchmark) while what it
// keeps alive is small (5 to 10 MB). With the default GOGC=100 the heap
// goal is twice the live heap, so the collector ran about 200 times per
// run, and with two cores each cycle also stops and synchronizes both. Start raises the heap goal to a floor while the live
// heap is small and leaves GOGC's rule alone once the live heap is large:
// the same trade the Go compiler makes for itself (cmd/compile raises its
// starting heap the same way). The cost is memory: up to the floor more
// than the live heap, never more than GOGC=100 would use on a large heap.
//
// It is for programs, not libraries: the GC settings belong to the whole
// process. The search package does not call it; a compiler embedding
// hieropt keeps its own GC settings.
package heapgoal

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultFloor is the heap goal hieropt's command line keeps while the
// live heap is small.
const DefaultFloor = 64 << 20

// Start makes the heap goal at least floor bytes from the next GC cycle
// on: after each cycle it sets the GC percentage so that the next goal is
// the floor, or 100 (GOGC's default) once twice the live heap exceeds the
// floor. It does nothing if the GOGC environment variable is set: the
// user's choice stands. Calling it again changes the floor.
func Start(floor uint64) {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	mu.Lock()
	target = floor
	first := !started
	started = true
	mu.Unlock()
	if first {
		adjust()
		arm()
	}
}

var (
	mu      sync.Mutex
	target  uint64
	started bool
)

// Percent returns the GC percentage that makes the goal floor for a live
// heap of live bytes: at least 100, at most 10,000 (a live heap of a few
// kilobytes should not make the goal unbounded).
func Percent(live, floor uint64) int {
	if live == 0 || 2*live >= floor {
		return 100
	}
	return min(int(100*(floor-live)/live), 10000)
}

// adjust sets the GC percentage from the live heap the last cycle marked.
func adjust() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	live := uint64(0)
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = s[0].Value.Uint64()
	}
	mu.Lock()
	floor := target
	mu.Unlock()
	if live == 0 {
		live = 4 << 20 // before the first cycle: the runtime's minimum heap
	}
	debug.SetGCPercent(Percent(live, floor))
}

// arm runs adjust after the next GC cycle, and again after each one: a
// cleanup runs once the cycle has found its object unreachable.
func arm() {
	sentinel := new([16]byte)
	runtime.AddCleanup(sentinel, func(struct{}) {
		adjust()
		arm()
	}, struct{}{})
}
