package workload

import (
	"math"
	"strconv"
	"strings"
)

// Times returns the time of each timestep 0..T of a validated program of T
// ops (T+1 values, strictly increasing), for packers whose heuristics
// weigh lifetimes by their length in time. When every op is named
// "t<integer>" with the integers increasing (as `hieropt import
// minimalloc` names them, after MiniMalloc's time points), op k's time is
// its integer; otherwise it is k. Time T, the end of the last op, is the
// last op's time plus one.
func Times(prog *Program) []int64 {
	T := len(prog.Ops)
	times := make([]int64, T+1)
	named := T > 0
	for k, op := range prog.Ops {
		v, err := strconv.ParseInt(strings.TrimPrefix(op.Name, "t"), 10, 64)
		if !strings.HasPrefix(op.Name, "t") || err != nil || v < 0 || (k > 0 && v <= times[k-1]) ||
			"t"+strconv.FormatInt(v, 10) != op.Name {
			named = false
			break
		}
		times[k] = v
	}
	if !named || times[T-1] == math.MaxInt64 {
		// Not named by time, or no room after the last time: timesteps.
		for k := range times {
			times[k] = int64(k)
		}
		return times
	}
	times[T] = times[T-1] + 1
	return times
}
