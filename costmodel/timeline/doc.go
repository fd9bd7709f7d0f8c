// Package timeline is the simulation behind the timeline cost model
// (FORMATS.md section 6.3): ops 0..n-1 run in order on one compute unit,
// each for d(t) = max(c(t), m(t)), while copies run on C DMA channels; a
// copy is issued at the beginning of op Start and op At waits for its end.
//
// The package is pure arithmetic: a Program is the ops' compute and memory
// times and the copies' windows and times, and the answers are numbers. It
// knows nothing of workloads, profiles or plans; costmodel builds Programs.
package timeline
