package timeline_test

import (
	"fmt"

	"github.com/hieropt/hieropt/costmodel/timeline"
)

// Three ops of 2 time units; op 2 needs a copy of 3. Issued with op 2, the
// copy stalls it; issued with op 1 (a prefetch), it hides behind op 1.
func Example() {
	p := &timeline.Program{
		Compute:  []float64{2, 2, 2},
		Memory:   []float64{1, 1, 1},
		Copies:   []timeline.Copy{{Start: 2, At: 2, Rank: 0, Time: 3}},
		Channels: 1,
	}
	tr := timeline.Breakdown(p)
	fmt.Println("cost", tr.Cost, "stall of op 2", tr.Ops[2].Stall)

	base, err := timeline.NewBase(p)
	if err != nil {
		panic(err)
	}
	prefetch := &timeline.Change{Removed: []timeline.CopyKey{{Start: 2, At: 2, Rank: 0}}, Added: []timeline.Copy{{Start: 1, At: 2, Rank: 0, Time: 3}}}
	var s timeline.Scratch
	fmt.Println("prefetched", base.Reprice(prefetch, &s))
	// Output:
	// cost 9 stall of op 2 3
	// prefetched 7
}
