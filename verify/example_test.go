package verify_test

import (
	"fmt"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// A compiler checks a plan before it applies it. Here op1 writes its
// output b over a's space in place (a is reusable, and an activation's
// space may go to an output). Then c is moved to offset 32: inside a's
// footprint (a is 40 bytes, 64 in a level of alignment 64), and not
// aligned.
func ExampleCheck() {
	prog := &workload.Program{Name: "tiny",
		Ops: []workload.Op{{Name: "op0"}, {Name: "op1"}},
		Blocks: []workload.Block{
			{Name: "a", Size: 40, Kind: workload.Activation, First: 0, Last: 1, Writes: []int{0}, Reads: []int{1}, Reusable: true},
			{Name: "b", Size: 40, Kind: workload.Output, First: 1, Last: 1, Writes: []int{1}},
			{Name: "c", Size: 8, Kind: workload.Scratch, First: 0, Last: 0, Writes: []int{0}},
		}}
	prof := &hw.Profile{Name: "sram", TimeUnit: hw.Cycle, Levels: []hw.Level{{Name: "SRAM", Capacity: 1024, Alignment: 64,
		In: hw.Link{Latency: 1, Bandwidth: 8}, Out: hw.Link{Latency: 1, Bandwidth: 8}}}}
	pl := &plan.Plan{Workload: "tiny", Hardware: "sram", TimeUnit: "cycle",
		// a, b: three accesses of 40 bytes, (1+40/8)*3; c: one of 8, 1+8/8. 20 in all.
		Cost: plan.Cost{Final: 20},
		Placements: []plan.Placement{
			{Block: "a", From: 0, To: 1, Level: "SRAM", Offset: 0},
			{Block: "b", From: 1, To: 1, Level: "SRAM", Offset: 0},
			{Block: "c", From: 0, To: 0, Level: "SRAM", Offset: 64},
		}}
	rep, err := verify.Check(prog, prof, pl, &verify.Options{Doc: plan.DocName("tiny.plan.json")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("valid:", rep.Valid(), "cost:", rep.Cost)

	pl.Placements[2].Offset = 32
	rep, _ = verify.Check(prog, prof, pl, nil)
	for _, v := range rep.Violations {
		fmt.Println(v)
	}
	// Output:
	// valid: true cost: 20
	// rule 3: block "c": offset 32 in level SRAM during timestep 0 is not a multiple of its alignment 64
	// rule 4: blocks "a" and "c" overlap in level SRAM at timesteps [0,0], bytes [32,64)
}
