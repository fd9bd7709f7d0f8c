// Package calibrate makes a hardware profile of the machine it runs on:
// it measures the caches and memory, and fits the cost model of seed 003
// (a read or a write of b bytes in a level takes latency + b/bandwidth)
// to what it measured, per level and direction.
//
// The steps, each usable alone:
//
//   - Measure times the levels this machine has (L1, L2, L3 and DRAM, in
//     LevelOrder; cache sizes from ReadCaches, the buffer sizes from Plan):
//     streaming reads (out) and writes (in) of buffers resident in each
//     level, a pointer chase for the latency of one access, and copies
//     within a level. Its kernels are vector loads and stores on amd64
//     (Kernel names them), plain Go elsewhere.
//   - WriteSamples and ReadSamples keep the in and out samples as a CSV
//     file (Header, then level,direction,bytes,ns), so that measuring and
//     fitting can run apart: `hieropt calibrate` writes the file,
//     `hieropt tune` reads it.
//   - Fit fits the line time = latency + bytes/bandwidth to the samples of
//     each level and direction (weighted least squares, with R² and
//     confidence intervals; a poor fit is flagged, not hidden).
//   - Profile builds a profile (time unit ns) from the fits, on the levels
//     of a base profile or of this machine, and WriteProfile writes it as
//     FORMATS.md section 2 describes.
//   - CheckCopies compares the copies measured with what the fitted model
//     predicts for them (PredictCopy: a read out of the level plus a write
//     into it). Copies are not fitted: they check the model.
//
// Timings are noisy: every sample is the fastest of several runs taken in
// sweeps far apart in time, on a locked OS thread with the garbage
// collector off, and the machine should be otherwise idle.
package calibrate
