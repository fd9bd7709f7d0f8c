package plan_test

import "github.com/hieropt/hieropt/plan"

// handPlan is a plan with one transfer (a0 moves from FAST to SLOW at
// timestep 2) and a block (y) over another's space (a1's): a document to
// write and read. (Whether it is a valid plan of its workload is package
// verify's business; its tests check this plan of the same workload.)
func handPlan() *plan.Plan {
	return &plan.Plan{
		Workload: "test", Hardware: "fast-slow", TimeUnit: "cycle",
		Cost: plan.Cost{Initial: 304, Final: 452},
		Placements: []plan.Placement{
			{Block: "x", From: 0, To: 0, Level: "FAST", Offset: 0},
			{Block: "a0", From: 0, To: 1, Level: "FAST", Offset: 64},
			{Block: "a0", From: 2, To: 2, Level: "SLOW", Offset: 0},
			{Block: "w", From: 1, To: 1, Level: "FAST", Offset: 128},
			{Block: "s", From: 1, To: 1, Level: "FAST", Offset: 256},
			{Block: "a1", From: 1, To: 3, Level: "FAST", Offset: 320},
			{Block: "p", From: 2, To: 3, Level: "SLOW", Offset: 64},
			{Block: "y", From: 3, To: 4, Level: "FAST", Offset: 320},
			{Block: "c", From: 2, To: 4, Level: "FAST", Offset: 512},
		},
		Transfers: []plan.Transfer{
			{Block: "a0", At: 2, Start: 2, FromLevel: "FAST", FromOffset: 64, ToLevel: "SLOW", ToOffset: 0},
		},
	}
}
