package search

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// spinFor is how long an idle helper of a pool keeps polling for the next
// task before it parks. The search hands out a task per timestep (and per
// round), a few hundred microseconds of work apart from a few
// microseconds of serial work; waking a parked goroutine on an idle core
// costs tens of microseconds (more in a virtual machine, where the core
// may have to be woken too), which on the 4,000-op benchmark was 11% of
// the second core's time. Polling between tasks keeps it busy instead.
const spinFor = 500 * time.Microsecond

// pool runs tasks on the calling goroutine and helper goroutines that
// live as long as the pool: one start per helper per search, not one per
// task. Tasks run one at a time; a task is a function that every
// participant calls, and that takes its share of the work from shared
// state (see searcher.pipeline).
type pool struct {
	helpers int
	left    atomic.Int64 // helpers still working on the current task
	gen     atomic.Int64 // the current task's number, written under mu

	mu     sync.Mutex
	wake   *sync.Cond // signalled when gen changes
	task   func()     // the current task
	seats  int        // helpers the current task still takes
	closed bool
	exited sync.WaitGroup
}

// newPool starts workers-1 helpers.
func newPool(workers int) *pool {
	p := &pool{helpers: max(workers-1, 0)}
	p.wake = sync.NewCond(&p.mu)
	for range p.helpers {
		p.exited.Add(1)
		go p.helper()
	}
	return p
}

// run calls f on the calling goroutine and on up to n-1 helpers at once,
// and returns when every call has returned.
func (p *pool) run(n int, f func()) {
	h := min(n-1, p.helpers)
	if h <= 0 {
		f()
		return
	}
	p.mu.Lock()
	p.task, p.seats = f, h
	p.left.Store(int64(h))
	p.gen.Add(1)
	p.wake.Broadcast()
	p.mu.Unlock()
	f()
	// The helpers are on other cores finishing their last piece of work,
	// which is short: poll rather than park.
	for p.left.Load() > 0 {
		runtime.Gosched()
	}
	p.mu.Lock()
	p.task = nil // let the task's data go
	p.mu.Unlock()
}

// each calls f(i) for every i in [0, n), on the caller and up to n-1
// helpers, and returns when all calls have returned.
func (p *pool) each(n int, f func(i int)) {
	if n <= 0 {
		return
	}
	if n == 1 {
		f(0)
		return
	}
	var next atomic.Int64
	p.run(n, func() {
		for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
			f(i)
		}
	})
}

// close stops the helpers and waits for them to exit.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	p.gen.Add(1)
	p.wake.Broadcast()
	p.mu.Unlock()
	p.exited.Wait()
}

func (p *pool) helper() {
	defer p.exited.Done()
	var seen int64
	for {
		p.await(seen)
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		seen = p.gen.Load()
		f, take := p.task, p.seats > 0
		if take {
			p.seats--
		}
		p.mu.Unlock()
		if take {
			f()
			p.left.Add(-1)
		}
	}
}

// await returns when the task number is no longer seen: it polls for
// spinFor, then parks.
func (p *pool) await(seen int64) {
	start := time.Now()
	for i := 1; p.gen.Load() == seen; i++ {
		if i%64 == 0 && time.Since(start) > spinFor {
			p.mu.Lock()
			for p.gen.Load() == seen {
				p.wake.Wait()
			}
			p.mu.Unlock()
			return
		}
		runtime.Gosched()
	}
}
