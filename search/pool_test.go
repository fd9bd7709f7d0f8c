package search

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPool checks that a task runs on the caller and on exactly as many
// helpers as it asks for (no fewer: the work would wait; no more: a
// helper would run a finished task), that the participants share the
// work, and that parked helpers wake for the next task.
func TestPool(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		p := newPool(workers)
		for i := 0; i < 2000; i++ {
			n := i%10 - 1 // -1..8 participants asked for
			if i%500 == 499 {
				time.Sleep(3 * spinFor) // the helpers park
			}
			var calls, done atomic.Int64
			const work = 100
			var next atomic.Int64
			p.run(n, func() {
				calls.Add(1)
				for next.Add(1) <= work {
					done.Add(1)
				}
			})
			want := max(1, min(n, workers))
			require.Equal(t, int64(want), calls.Load(), "workers %d, task %d asking for %d", workers, i, n)
			require.Equal(t, int64(work), done.Load())
		}
		closed := make(chan struct{})
		go func() { p.close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatalf("workers %d: close did not return", workers)
		}
	}
}

// TestPoolEach checks that each calls f once for every index.
func TestPoolEach(t *testing.T) {
	p := newPool(3)
	defer p.close()
	for n := 0; n < 50; n++ {
		seen := make([]atomic.Int32, n)
		p.each(n, func(i int) { seen[i].Add(1) })
		for i := range seen {
			require.Equal(t, int32(1), seen[i].Load(), "n %d, index %d", n, i)
		}
	}
}
