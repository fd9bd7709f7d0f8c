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

// A search step: price a candidate on the base, then derive the base of
// the one it keeps, to price that one's candidates in turn.
func ExampleBase_Derive() {
	p := &timeline.Program{
		Compute:  []float64{2, 2, 2, 2},
		Memory:   []float64{1, 1, 1, 1},
		Copies:   []timeline.Copy{{Start: 2, At: 2, Rank: 0, Time: 3}, {Start: 3, At: 3, Rank: 1, Time: 3}},
		Channels: 1,
	}
	base, err := timeline.NewBase(p)
	if err != nil {
		panic(err)
	}
	var s timeline.Scratch
	// Prefetch the first copy at op 1: removed by its key, added anew.
	first := &timeline.Change{Removed: []timeline.CopyKey{{Start: 2, At: 2, Rank: 0}}, Added: []timeline.Copy{{Start: 1, At: 2, Rank: 0, Time: 3}}}
	fmt.Println("base", base.Cost(), "prefetch the first", base.Reprice(first, &s))

	kept, err := base.Derive(first)
	if err != nil {
		panic(err)
	}
	second := &timeline.Change{Removed: []timeline.CopyKey{{Start: 3, At: 3, Rank: 1}}, Added: []timeline.Copy{{Start: 2, At: 3, Rank: 1, Time: 3}}}
	fmt.Println("kept", kept.Cost(), "prefetch the second too", kept.Reprice(second, &s))
	// Output:
	// base 14 prefetch the first 12
	// kept 12 prefetch the second too 10
}
