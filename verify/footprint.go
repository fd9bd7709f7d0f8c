package verify

import (
	"math"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/workload"
)

// alignment returns the effective alignment of blk in lv (FORMATS.md
// section 1, "align"): the larger of the level's alignment and the block's
// own.
func alignment(blk *workload.Block, lv *hw.Level) int64 {
	return max(lv.Alignment, blk.Align)
}

// footprint returns the bytes a block of size bytes takes in a level where
// its effective alignment is align (FORMATS.md section 3, rule 3): size
// rounded up to a multiple of align. ok is false when that does not fit in
// an int64; foot is then math.MaxInt64.
func footprint(size, align int64) (foot int64, ok bool) {
	units := size / align
	if size%align != 0 {
		units++
	}
	if units > math.MaxInt64/align {
		return math.MaxInt64, false
	}
	return units * align, true
}
