package arena_test

import (
	"fmt"
	"sort"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/state"
)

func actionsRun(p *state.Problem, lay *state.Layout) (*state.Occupancy, error) {
	return actions.NewInitializer(p).Run(lay, 0)
}

// check reports the first pair of intervals alive at a common timestep
// whose ranges overlap, or a misaligned offset.
func check(iv []arena.Interval, off []int64) error {
	idx := make([]int, len(iv))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return iv[idx[a]].First < iv[idx[b]].First })
	for x, i := range idx {
		if iv[i].Align > 0 && off[i]%iv[i].Align != 0 {
			return fmt.Errorf("interval %d at %d is not aligned to %d", i, off[i], iv[i].Align)
		}
		for _, j := range idx[x+1:] {
			if iv[j].First > iv[i].Last {
				break
			}
			if off[i] < off[j]+iv[j].Size && off[j] < off[i]+iv[i].Size {
				return fmt.Errorf("intervals %d [%d,%d] at [%d,%d) and %d [%d,%d] at [%d,%d) overlap",
					i, iv[i].First, iv[i].Last, off[i], off[i]+iv[i].Size, j, iv[j].First, iv[j].Last, off[j], off[j]+iv[j].Size)
			}
		}
	}
	return nil
}
