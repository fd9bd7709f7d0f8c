package render

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTLCols: the per-column sums of tlCols equal the overlaps computed
// column by column, for intervals of every length, on and off column
// boundaries, up to the right edge.
func TestTLCols(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 300 {
		cols := 1 + rng.IntN(40)
		g := &tlGeom{cols: cols, tmax: float64(1 + rng.IntN(100))}
		c := newTLCols(g)
		want := make([]float64, cols)
		for range rng.IntN(30) {
			var a, b float64
			if rng.IntN(3) == 0 { // on boundaries
				a = float64(rng.IntN(cols+1)) * c.dt
				b = float64(rng.IntN(cols+1)) * c.dt
			} else {
				a, b = rng.Float64()*g.tmax, rng.Float64()*g.tmax
			}
			a, b = min(a, b), max(a, b)
			c.add(a, b)
			for k := range want {
				lo, hi := float64(k)*c.dt, float64(k+1)*c.dt
				want[k] += max(0, min(b, hi)-max(a, lo))
			}
		}
		got := c.sums()
		for k := range want {
			assert.InDelta(t, want[k], got[k], 1e-9*g.tmax, "round %d column %d", round, k)
		}
	}
}

// TestTLColsLast: an interval ending on a boundary does not reach the
// next column; one ending inside a column does.
func TestTLColsLast(t *testing.T) {
	c := newTLCols(&tlGeom{cols: 10, tmax: 10})
	assert.Equal(t, 2, c.last(1.5, 3))
	assert.Equal(t, 3, c.last(1.5, 3.5))
	assert.Equal(t, 1, c.last(1.5, 1.7))
	assert.Equal(t, 9, c.last(0, 10))
	assert.Equal(t, 3, c.last(3, 3), "an empty interval stays in its column")
	assert.Equal(t, 9, c.col(math.Nextafter(10, 11)), "past the edge: the last column")
}
