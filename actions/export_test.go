package actions

import (
	"slices"

	"github.com/hieropt/hieropt/state"
)

// Copy is a copy as decide's lateness estimate sees it.
type Copy = pending

// Lookback returns the copies walk w holds for its last Step's timestep t
// (collecting them first, as a decision would, if they are not held) and
// those v has at timesteps [max(0, t - 2*Horizon), t-1], collected afresh,
// both sorted.
func Lookback(w *Walk, v state.View) (held, fresh []Copy) {
	in, t := w.in, w.win.t
	held = append([]Copy{}, w.win.before(in, v)...)
	fresh = []Copy{}
	for u := max(0, t-2*in.p.Horizon()); u < t; u++ {
		fresh = in.appendCopies(fresh, v, u)
	}
	ord := pendingOrder(0)
	slices.SortFunc(held, ord)
	slices.SortFunc(fresh, ord)
	return held, fresh
}
