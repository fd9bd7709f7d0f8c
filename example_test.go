package hieropt_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/segments"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
	"github.com/hieropt/hieropt/workloads"
)

// A compiler builds the program in code (or reads a workload document
// with workload.ReadFile), describes its memories (or takes a built-in
// profile with profiles.Get, or reads one with hw.ReadFile), plans, and
// reads the placements back: which level and offset hold each block
// during which timesteps.
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
	prof := &hw.Profile{Name: "npu", TimeUnit: hw.Cycle, Levels: []hw.Level{
		{Name: "SRAM", Capacity: 4096, Alignment: 64, In: hw.Link{Latency: 2, Bandwidth: 16}, Out: hw.Link{Latency: 2, Bandwidth: 16}},
		{Name: "DRAM", Capacity: 1 << 20, Alignment: 64, In: hw.Link{Latency: 100, Bandwidth: 4}, Out: hw.Link{Latency: 100, Bandwidth: 4}},
	}}
	// nil settings are the defaults; a time limit bounds the whole call.
	res, err := hieropt.Plan(context.Background(), prog, prof, &hieropt.Settings{TimeLimit: 10 * time.Second})
	if err != nil {
		fmt.Println(err) // an *inputerr.Error, a *state.CapacityError, ...
		return
	}
	for _, pl := range res.Plan.Placements {
		fmt.Printf("%s: %s@%d during [%d,%d]\n", pl.Block, pl.Level, pl.Offset, pl.From, pl.To)
	}
	fmt.Printf("cost %.0f cycles (initializer %.0f); %s\n", res.Plan.Cost.Final, res.Plan.Cost.Initial, res.Status)
	// Output:
	// w: DRAM@0 during [0,0]
	// x: SRAM@0 during [0,0]
	// a: SRAM@2048 during [0,1]
	// b: SRAM@2048 during [1,2]
	// y: SRAM@0 during [2,2]
	// cost 1788 cycles (initializer 2466); converged
}

// The plan document is what `hieropt optimize -o` writes, byte for byte
// for the same documents and settings. Here a built-in workload on a
// built-in profile, priced by the model the profile names (the timeline
// model: cost_model), with the seed's own search: every timestep a
// segment, a beam of one, no repacking.
func ExamplePlan() {
	prog, err := workloads.Get("seed000-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	prof, err := profiles.Get("ethos-u55")
	if err != nil {
		fmt.Println(err)
		return
	}
	s := &hieropt.Settings{Search: search.Settings{Segments: segments.Fixed(1), Beam: 1}, Repack: new(0)}
	res, err := hieropt.Plan(context.Background(), prog, prof, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = res.Plan.Write(os.Stdout)
	// Output:
	// {
	//   "format": "hieropt.plan/v1",
	//   "workload": "seed000-example",
	//   "hardware": "ethos-u55",
	//   "time_unit": "cycle",
	//   "cost_model": "timeline",
	//   "planner": "search: segments=every beam=1 actions=move,swap,reuse,evict,prefetch max-candidates=4 repack=off",
	//   "cost": {"initial": 4060, "final": 4060},
	//   "placements": [
	//     {"block":"op0.out","from":0,"to":2,"level":"SRAM","offset":0},
	//     {"block":"op1.out","from":1,"to":4,"level":"SRAM","offset":4192256},
	//     {"block":"op2.out","from":2,"to":3,"level":"SRAM","offset":4191232},
	//     {"block":"op3.out","from":3,"to":4,"level":"SRAM","offset":0},
	//     {"block":"op4.out","from":4,"to":5,"level":"SRAM","offset":2048},
	//     {"block":"op5.out","from":5,"to":5,"level":"SRAM","offset":4190208}
	//   ],
	//   "transfers": []
	// }
}

// A plan from anywhere else (a file, a cache, another tool) is checked
// as Plan checks its own, before it is applied: verify.Check, every rule
// of FORMATS.md, with nothing of the planner. Only cost.initial needs the
// planner: actions.VerifyInitial computes it.
func Example_verify() {
	prog, _ := workloads.Get("seed000-example")
	prof, _ := profiles.Get("ethos-u55")
	res, err := hieropt.Plan(context.Background(), prog, prof, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var cache bytes.Buffer
	_ = res.Plan.Write(&cache)

	// Later, the plan read back from the cache.
	pl, err := plan.Parse("cached.json", cache.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	// Bound for the plan's model: a timeline plan's copy starts and loads
	// read only in a problem bound with the timeline's semantics.
	p, err := state.Bind(prog, prof, "workload", state.Semantics{Timeline: res.Model.Timeline()})
	if err != nil {
		fmt.Println(err)
		return
	}
	check := &verify.Options{Doc: plan.DocName("cached.json"), Initial: actions.VerifyInitial(context.Background(), p, res.Model)}
	rep, err := verify.Check(prog, prof, pl, check)
	if err != nil {
		fmt.Println(err) // the plan is not even a plan of this program
		return
	}
	fmt.Println("valid:", rep.Valid())

	pl.Placements[1].Offset = 0 // op1.out over op0.out
	rep, _ = verify.Check(prog, prof, pl, check)
	fmt.Println(rep.Violations[0])
	// Output:
	// valid: true
	// rule 4: blocks "op0.out" and "op1.out" overlap in level SRAM at timesteps [1,2], bytes [0,2048)
}

// Each bad field is an error of its own, naming the field.
func ExampleSettings_Validate() {
	s := &hieropt.Settings{Planner: "greedy", Search: search.Settings{Beam: -2}, Repack: new(-1)}
	fmt.Println(s.Validate())
	// Output:
	// Settings.Planner "greedy": not a registered planner (registered: initializer, none, pack, resident-all, search, seed000, seed001, seed004, seed004-pipeline, tflm, xla-msa)
	// Settings.Search.Beam -2: want a positive number, or -1 for unbounded
	// Settings.Repack -1: want a number >= 0 (0 = off)
}
