package hieropt_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/workload"
	"github.com/hieropt/hieropt/workloads"
)

// A compiler builds the program in code, plans it and reads the
// placements back.
func Example() {
	prog := &workload.Program{
		Name: "tiny",
		Ops:  []workload.Op{{Name: "conv"}, {Name: "relu"}, {Name: "fc"}},
		Blocks: []workload.Block{
			{Name: "w", Size: 4096, Kind: workload.Constant, First: 0, Last: 0, Reads: []int{0}},
			{Name: "x", Size: 1024, Kind: workload.Input, First: 0, Last: 0, Writes: []int{0}, Reads: []int{0}},
			{Name: "a", Size: 2048, Kind: workload.Activation, First: 0, Last: 1, Writes: []int{0}, Reads: []int{1}, Reusable: true},
			{Name: "b", Size: 2048, Kind: workload.Activation, First: 1, Last: 2, Writes: []int{1}, Reads: []int{2}},
			{Name: "y", Size: 64, Kind: workload.Output, First: 2, Last: 2, Writes: []int{2}, Reads: []int{2}},
		},
	}
	if err := prog.Validate("tiny"); err != nil {
		fmt.Println(err)
		return
	}
	prof := &hw.Profile{Name: "npu", TimeUnit: hw.Cycle, Levels: []hw.Level{
		{Name: "SRAM", Capacity: 4096, Alignment: 64, In: hw.Link{Latency: 2, Bandwidth: 16}, Out: hw.Link{Latency: 2, Bandwidth: 16}},
		{Name: "DRAM", Capacity: 1 << 20, Alignment: 64, In: hw.Link{Latency: 100, Bandwidth: 4}, Out: hw.Link{Latency: 100, Bandwidth: 4}},
	}}
	if err := prof.Validate("npu"); err != nil {
		fmt.Println(err)
		return
	}
	res, err := hieropt.Optimize(context.Background(), prog, prof, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pl := range res.Plan.Placements {
		fmt.Printf("%s: %s@%d during [%d,%d]\n", pl.Block, pl.Level, pl.Offset, pl.From, pl.To)
	}
	fmt.Printf("cost %.0f cycles (initializer %.0f)\n", res.Plan.Cost.Final, res.Plan.Cost.Initial)
	// Output:
	// w: DRAM@0 during [0,0]
	// x: SRAM@0 during [0,0]
	// a: SRAM@2048 during [0,1]
	// b: SRAM@2048 during [1,2]
	// y: SRAM@0 during [2,2]
	// cost 1788 cycles (initializer 2466)
}

// The plan document is what `hieropt optimize -o` writes.
func ExampleResult_Plan() {
	prog, err := workloads.Get("seed000-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	prof := &hw.Profile{Name: "one", TimeUnit: hw.Cycle, Levels: []hw.Level{
		{Name: "MEM", Capacity: 8192, Alignment: 1, In: hw.Link{Latency: 1, Bandwidth: 8}, Out: hw.Link{Latency: 1, Bandwidth: 8}},
	}}
	if err := prof.Validate("one"); err != nil {
		fmt.Println(err)
		return
	}
	res, err := hieropt.Optimize(context.Background(), prog, prof, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = res.Plan.Write(os.Stdout)
	// Output:
	// {
	//   "format": "hieropt.plan/v1",
	//   "workload": "seed000-example",
	//   "hardware": "one",
	//   "time_unit": "cycle",
	//   "planner": "search",
	//   "cost": {"initial": 3341, "final": 3341},
	//   "placements": [
	//     {"block":"op0.out","from":0,"to":2,"level":"MEM","offset":0},
	//     {"block":"op1.out","from":1,"to":4,"level":"MEM","offset":6144},
	//     {"block":"op2.out","from":2,"to":3,"level":"MEM","offset":5120},
	//     {"block":"op3.out","from":3,"to":4,"level":"MEM","offset":0},
	//     {"block":"op4.out","from":4,"to":5,"level":"MEM","offset":2048},
	//     {"block":"op5.out","from":5,"to":5,"level":"MEM","offset":4096}
	//   ],
	//   "transfers": []
	// }
}
