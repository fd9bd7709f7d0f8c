// Package hieropt is a memory planner for neural-network inference on
// hardware with a hierarchy of software-managed memories.
//
// Given a workload (operators in execution order and the blocks they read
// and write) and a hardware profile (memory levels, fastest first, with
// capacity, alignment, latency and bandwidth), hieropt decides which level
// and which address hold every block at every step, and when to move it, so
// that the program spends the least time moving data.
//
// The pipeline, package by package:
//
//	workload, hw  ->  state.Bind  ->  actions.Initializer  ->  search  ->  plan     ->  verify
//	(documents)       (Problem)       (first layout)          (better)    (document)    (the checker)
//	                                  costmodel prices every layout
//
// Package verify checks a plan against every rule of FORMATS.md with
// nothing of the planner; compilers should check every plan they apply
// with verify.Check (cost.initial through actions.VerifyInitial).
//
// The command line is cmd/hieropt; the formats are in FORMATS.md.
package hieropt
