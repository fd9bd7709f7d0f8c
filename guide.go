package hieropt

import (
	"context"
	"errors"

	"github.com/hieropt/hieropt/bounds"
)

// errGuideCut: the bound's work budget allowed it fewer than
// minGuideSteps steps (a long program): its prices, far from converged,
// would make a poor guide, and the walk from the bound start and its
// repacking would cost several times the search (a 1,000-op generated
// program on the H100 copy: 21 steps, 12.8 s instead of 1.9 s, for 0.5%
// less).
var errGuideCut = errors.New("the bound's steps were cut by its work budget")

// minGuideSteps is the fewest steps of the bound that make a guide: a
// third of the default. The shipped networks get 182 or more on every
// built-in profile's seed-model copy, 1,000-op generated programs 9 to
// 40.
const minGuideSteps = bounds.DefaultIterations / 3

// guides returns the bound start's guides (actions.BoundOrder) from the
// whole-program bound: one per ascent of the bound (bounds.Whole), each
// block's level where its cheapest path at that ascent's best prices
// starts (the initializer places a block once, at its first timestep).
// It fails where the bound does not exist (a model other than the seed's,
// a program too long), and where its steps were cut short (errGuideCut).
//
// The paths at the best prices are a relaxation's and may take far more
// room than a level has (up to 1.9 times the K210's SRAM on
// resnet18-int8); the initializer's guided placement (actions.guide)
// copes with that. Making the levels fit first (sending the blocks that
// lose least per byte and timestep to slower levels) was tried: on the
// 82 shipped seed-model pairs it ended 2.39% above the bound on average,
// worst 23.9%, against 2.19% and 14.6% without.
func (r *run) guides(ctx context.Context) ([][]int8, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The bound's steps, estimated before compiling it: on a 5,000-op
	// generated program the compilation alone takes seconds, the whole of
	// a 3 s time limit.
	if bounds.EstimatedSteps(r.p) < minGuideSteps {
		return nil, errGuideCut
	}
	wb, err := bounds.Whole(ctx, r.p, r.model, bounds.WholeOptions{Paths: true})
	if err != nil {
		return nil, err
	}
	r.res.Bound = wb
	if wb.Limit < bounds.Ascents*minGuideSteps {
		return nil, errGuideCut
	}
	var guides [][]int8
	for _, paths := range wb.Paths {
		level := make([]int8, r.p.Blocks())
		for b, path := range paths {
			level[b] = path[0].Level
		}
		guides = append(guides, level)
	}
	return guides, nil
}
