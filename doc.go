// Package hieropt is a memory planner for neural-network inference on
// hardware with a hierarchy of software-managed memories.
//
// Given a workload (operators in execution order and the blocks they read
// and write) and a hardware profile (memory levels, fastest first, with
// capacity, alignment, latency and bandwidth), hieropt decides which level
// and which address hold every block at every step, and when to move it, so
// that the program spends the least time moving data. The documents are
// specified in FORMATS.md; the command line is cmd/hieropt.
//
// # Planning a program
//
// Plan is the entry point for a compiler: the documents in, a checked plan
// out. It does what `hieropt optimize` does, and for the same documents
// and settings writes the same plan, byte for byte.
//
//	prog, err := workload.ReadFile("net.json") // or a workload.Program built in code
//	prof, err := profiles.Get("ethos-u55")     // a built-in; or hw.ReadFile("npu.yaml"), or an hw.Profile in code
//	res, err := hieropt.Plan(ctx, prog, prof, nil)
//	for _, pl := range res.Plan.Placements {   // block, from, to, level, offset
//		...
//	}
//	err = res.Plan.Write(w) // the plan document
//
// The documents are plain data: Plan checks them itself (state.Bind), and a
// broken one is an error naming the item and the rule, never a panic.
//
// # Settings
//
// A nil *Settings is the defaults, and so is every zero field: the search
// (the initializer in two orders, the walk, repacking), priced by the cost
// model the profile names or seed003, on all cores, without a time limit.
// Settings.Planner picks another planner (PlannerNames: the initializer
// alone, no planning, the single-arena planners); Settings.Search tunes the
// walk (segments, beam, actions, candidates, workers, a progress callback);
// Settings.Starts, Settings.Repack and Settings.TimeLimit bound the rest.
// A budget's 0 is its default and -1 unbounded, except Repack, whose 0
// turns repacking off, and TimeLimit, whose 0 is no limit. Settings.Validate
// names every bad field; Plan calls it first.
//
// # The result
//
// Result.Plan is the plan document, which verify.Check has passed.
// Result.Layout and Result.Problem give the same plan by dense IDs.
// Result.Initial is cost.initial's plan (the initializer's, or the
// fallback plan where it cannot place a block) and where the search
// started; Result.Search and Result.Repack are the walk's and repacking's
// statistics; Result.Status says whether the planner ran to its end, and
// Result.Cut where a time limit fell; Result.Times is where the time went.
// A cancelled context stops the search early with the best plan so far,
// checked; a time limit is not an error.
//
// # Errors
//
// Plan's errors are typed, for errors.As: a *SettingError for a bad
// setting; an *inputerr.Error for a document that breaks FORMATS.md (the
// document, the item, the rule); a *state.CapacityError when the blocks
// cannot fit the profile at all; an *actions.InfeasibleError when neither
// the initializer nor the fallback plan finds a plan; a *PlannerError when
// another planner finds none; the context's error if it was cancelled
// before a plan existed; and an *InternalError for a plan that breaks a
// rule, which is a bug.
//
// # Checking plans
//
// Package verify checks a plan against every rule of FORMATS.md with
// nothing of the planner: its own footprints, kind rule and cost code.
// Plan runs it on every plan it returns; a compiler should run it on every
// plan it applies that comes from anywhere else (a file, a cache). Only
// cost.initial needs the planner: actions.VerifyInitial computes it.
//
//	p, err := state.Bind(prog, prof, "workload")
//	rep, err := verify.Check(prog, prof, pl, &verify.Options{Initial: actions.VerifyInitial(ctx, p, model)})
//	for _, v := range rep.Violations { ... } // v.Rule, v.Block, v.Timesteps; v.String() is one line
//
// # The pipeline, package by package
//
//	workload, hw  ->  state.Bind  ->  actions (the starts:  ->  search.Walk  ->  repack  ->  plan        ->  verify
//	(documents)       (Problem)       initializer, fallback)    (better)         (faster)    (document)      (the checker)
//	                                  costmodel prices every layout
//
// Each step is usable alone: search.Walk from any complete layout,
// repack.Run on any layout, the arena planners, the bounds of package
// bounds.
package hieropt
