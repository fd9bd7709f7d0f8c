package bounds

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/state"
)

// # The whole-program bound
//
// Whole bounds the cost of every plan of the whole program at once, with
// blocks that persist between timesteps and pay for their moves. It is a
// Lagrangian relaxation of this model (R):
//
//   - each block sits in one level it may use (state.Problem.Allowed) at
//     each timestep of its life; its reads and writes at t are priced by
//     that level (the seed model, FORMATS.md section 4); when its level
//     changes between two timesteps it pays out(old) + in(new) for its
//     size; its first placement is free;
//   - at each timestep the footprints in each level fit its capacity,
//     except that a reusable block counts no bytes at its last timestep
//     (a block created there may share its space, FORMATS.md rule 4).
//
// Every valid plan is a solution of R: offsets are dropped (placements in
// a level at one timestep are disjoint ranges of it, so their footprints
// sum to at most its capacity), moves inside a level are free in R, and
// in-place sharing is allowed more freely than rule 4 allows it. So R's
// optimum is at most any plan's cost.
//
// Prices y[l][t] >= 0 on each level's bytes at each timestep turn R's
// capacity rows into costs: L(y) = sum over blocks of the cheapest path
// of the block through levels over its life, each placement also paying
// y[l][t] times its footprint, minus sum of y[l][t] * capacity(l). For
// any y >= 0, L(y) <= R's optimum (a plan of R pays at least its path's
// priced cost, and its footprints in (l, t) cost at most y*capacity). The
// cheapest path is a shortest path over (timestep, level), computed
// exactly by dynamic programming. Whole improves y by projected
// subgradient steps (deflected, Polyak's step toward an upper bound,
// halved when the bound stalls) and reports the best L(y) it found: every iterate is
// a valid bound, so stopping early only makes it looser. The best it can
// reach is the optimum of R's linear relaxation.

// WholeOptions steer Whole.
type WholeOptions struct {
	// Iterations bounds the subgradient steps. Default: 300, fewer on
	// long programs, so that the steps visit at most DefaultWork states
	// in all (each step visits every block's states once: its timesteps
	// that matter times the levels).
	Iterations int
	// Upper is a known cost of a valid plan (say the plan being judged),
	// the target of the steps; 0: the cost of planning nothing.
	Upper float64
	// Paths asks for the blocks' cheapest paths at the best prices found
	// (WholeBound.Paths): where the relaxation puts each block, a guide
	// for a planner.
	Paths bool
}

// WholeBound is what Whole finds.
type WholeBound struct {
	// Cost is the best bound found: no plan of the problem costs less.
	Cost float64
	// Free is L(0): every block on its cheapest path with no capacity.
	Free float64
	// Rows counts the (level, timestep) capacity rows that can bind;
	// Iterations the steps taken, of at most Limit (WholeOptions.
	// Iterations, or the default: DefaultIterations, fewer on long
	// programs).
	Rows, Iterations, Limit int
	// Paths, with WholeOptions.Paths, holds per block its cheapest path
	// through the levels at the prices of the best bound: the stays in
	// order of time, the first at the block's first timestep. The paths
	// need not fit the capacities together (the prices only make them
	// pay for the bytes they take).
	Paths [][]Stay
}

// Stay is a part of a block's path: from timestep From on (until the next
// stay, or the block's last timestep) it sits in level Level.
type Stay struct {
	From  int32
	Level int8
}

// DefaultIterations is the default number of steps, on programs short
// enough for DefaultWork.
const DefaultIterations = 300

// DefaultWork is the most states the default number of steps visits in
// all (about a third of a second on the project's 2-core VM), one step at
// least: 300 steps on the shipped networks, a few on a 2,000-op generated
// program with capacities binding at most timesteps (a looser bound,
// still valid).
const DefaultWork = 3e7

// MaxStates bounds the problems Whole takes on: the sum over blocks of
// their lifetimes times the levels. Above it (a 20,000-op generated
// program is 10 times above) even one step takes seconds and compiling the
// problem longer: Whole returns ErrTooLarge, and the per-timestep bound is
// what remains.
const MaxStates = 6e7

// ErrTooLarge is Whole's answer for a problem above MaxStates.
var ErrTooLarge = errors.New("the program is too long for the whole-program bound (its blocks' lifetimes times the levels exceed bounds.MaxStates)")

// ErrNotSeparable is Whole's answer for a cost model it cannot bound:
// only the seed model's prices (reads, writes, out + in per move) are
// modelled.
var ErrNotSeparable = errors.New("the whole-program bound models the seed model's prices only (seed003)")

// Whole computes the whole-program bound of p under m (seed003).
func Whole(ctx context.Context, p *state.Problem, m costmodel.Model, o WholeOptions) (*WholeBound, error) {
	if m.Name() != "seed003" {
		return nil, ErrNotSeparable
	}
	var states int64
	for b := 0; b < p.Blocks(); b++ {
		states += int64(p.Block(b).Last-p.Block(b).First+1) * int64(p.Levels())
	}
	if states > MaxStates {
		return nil, ErrTooLarge
	}
	w := newWhole(p, m)
	if o.Iterations <= 0 {
		o.Iterations = max(1, min(DefaultIterations, int(DefaultWork/max(w.states, 1))))
	}
	res := &WholeBound{Rows: len(w.rows), Limit: o.Iterations}
	y := make([]float64, len(w.rows))
	val, g := w.eval(y, nil)
	res.Free, res.Cost = val, val
	var best []float64 // the prices of the best bound, with o.Paths
	if o.Paths {
		best = slices.Clone(y)
		defer func() { res.Paths = w.paths(best) }()
	}
	if len(w.rows) == 0 {
		return res, nil // no capacity can bind: L(0) is R's optimum
	}
	upper := o.Upper
	if upper <= 0 {
		upper = NoPlanning(p, m)
	}
	theta, stall := 1.0, 0
	d := make([]float64, len(g)) // the direction: g deflected by the last one
	for it := 0; it < o.Iterations; it++ {
		if ctx.Err() != nil {
			break
		}
		res.Iterations = it + 1
		for k, gk := range g {
			if y[k] == 0 && gk < 0 {
				gk = 0 // the projection keeps it at 0
			}
			d[k] = gk + deflection*d[k]
		}
		var norm float64
		for _, dk := range d {
			norm += dk * dk
		}
		if norm == 0 {
			break // the paths fit every capacity: y is optimal
		}
		step := theta * math.Max(upper-val, 1e-9*math.Abs(upper)) / norm
		for k := range y {
			y[k] = math.Max(0, y[k]+step*d[k])
		}
		val, g = w.eval(y, nil)
		if val > res.Cost*(1+1e-9) {
			res.Cost, stall = val, 0
			if best != nil {
				copy(best, y)
			}
		} else if stall++; stall >= 10 {
			theta, stall = theta/2, 0
			if theta < 1e-6 {
				break
			}
		}
	}
	return res, nil
}

// deflection is the share of the last direction kept in the next (a
// deflected subgradient: it damps the zig-zag of plain steps between
// capacity rows that bind in turns). Any direction keeps every iterate a
// valid bound; 0.7 converged best on the shipped pairs (resnet50-int8 on
// the U55 seed copy: 33.9 M with plain steps, 38.2 M with it, in 300
// steps).
const deflection = 0.7

// whole is the problem compiled for the subgradient method.
type whole struct {
	p      *state.Problem
	L      int
	access [][]map[int]float64 // per block and level: timestep -> cost
	rows   []row               // capacity rows that can bind
	rowAt  []int32             // at l*T+t: the row of level l at timestep t, -1 if none
	move   [][][]float64       // per block: move[b][a][c], out(a) + in(c)
	// Per block, for each timestep i of its life that matters (see
	// newWhole) and level l (at i*L+l): the access cost there, the bytes
	// it takes from the capacity, and the capacity row (-1 if none can
	// bind).
	cost   [][]float64
	bytes  [][]float64
	rowOf  [][]int32
	step   [][]int32 // per block, the timestep of each of its steps that matter
	choice []int8    // scratch: the level each state came from
	states int       // the states one step visits: sum of len(cost)
}

type row struct {
	l, t int
	cap  float64
}

func newWhole(p *state.Problem, m costmodel.Model) *whole {
	L := p.Levels()
	T := p.Prog.Timesteps()
	w := &whole{p: p, L: L, access: accessCosts(p, m), rowAt: make([]int32, L*T)}
	for i := range w.rowAt {
		w.rowAt[i] = -1
	}
	// A row can bind where the blocks that may sit in l at t, at their
	// footprints there, exceed its capacity.
	could := make([][]int64, L)
	for l := range could {
		could[l] = make([]int64, T+1)
	}
	for b := 0; b < p.Blocks(); b++ {
		blk := p.Block(b)
		for l := 0; l < L; l++ {
			if !p.Allowed(b, l) {
				continue
			}
			could[l][blk.First] += p.Foot(b, l)
			could[l][blk.Last+1] -= p.Foot(b, l)
		}
	}
	for l := 0; l < L; l++ {
		var cur int64
		for t := 0; t < T; t++ {
			cur += could[l][t]
			if c := p.HW.Levels[l].Capacity; cur > c {
				w.rowAt[l*T+t] = int32(len(w.rows))
				w.rows = append(w.rows, row{l, t, float64(c)})
			}
		}
	}
	w.cost, w.bytes, w.rowOf = make([][]float64, p.Blocks()), make([][]float64, p.Blocks()), make([][]int32, p.Blocks())
	w.step = make([][]int32, p.Blocks())
	longest := 0
	for b := 0; b < p.Blocks(); b++ {
		blk := p.Block(b)
		// Only the timesteps where the block is accessed or a row can
		// bind matter (and its first): between two of them every level
		// costs nothing, and a move made anywhere between them costs the
		// same as one made at the later.
		var cost, bytes []float64
		var rowOf []int32
		for t := blk.First; t <= blk.Last; t++ {
			event := t == blk.First
			for l := 0; l < L && !event; l++ {
				if p.Allowed(b, l) {
					event = w.rowAt[l*T+t] >= 0 || w.access[b][l][t] != 0
				}
			}
			if !event {
				continue
			}
			w.step[b] = append(w.step[b], int32(t))
			for l := 0; l < L; l++ {
				c, by, r := 0.0, 0.0, int32(-1)
				if p.Allowed(b, l) {
					c = w.access[b][l][t]
					if !blk.Reusable || t != blk.Last {
						by = float64(p.Foot(b, l))
					}
					r = w.rowAt[l*T+t]
				}
				cost, bytes, rowOf = append(cost, c), append(bytes, by), append(rowOf, r)
			}
		}
		w.cost[b], w.bytes[b], w.rowOf[b] = cost, bytes, rowOf
		longest = max(longest, len(cost)/L)
		w.states += len(cost)
	}
	w.choice = make([]int8, longest*L)
	w.move = make([][][]float64, p.Blocks())
	for b := range w.move {
		d := p.Block(b).Size
		w.move[b] = make([][]float64, L)
		for a := 0; a < L; a++ {
			w.move[b][a] = make([]float64, L)
			for c := 0; c < L; c++ {
				if a != c {
					w.move[b][a][c] = p.HW.Levels[a].Out.Time(d) + p.HW.Levels[c].In.Time(d)
				}
			}
		}
	}
	return w
}

// eval returns L(y), less a margin for the rounding of its sums, and its
// subgradient: per row, the footprints the blocks' cheapest paths put
// there minus the capacity. L(y) is a difference of sums that grow with y;
// where they are large its rounding error could lift it above the true
// value, so eval subtracts roundMargin times the sum of the magnitudes
// (far above the error of the few thousand roundings of each sum): what it
// returns stays a valid bound.
func (w *whole) eval(y []float64, paths [][]Stay) (float64, []float64) {
	p, L := w.p, w.L
	g := make([]float64, len(w.rows))
	var total, magnitude float64
	for k, r := range w.rows {
		g[k] = -r.cap
		total -= y[k] * r.cap
		magnitude += y[k] * r.cap
	}
	V, next := make([]float64, L), make([]float64, L)
	for b := 0; b < p.Blocks(); b++ {
		cost, bytes, rowOf, choice := w.cost[b], w.bytes[b], w.rowOf[b], w.choice
		n := len(cost) / L // the block's timesteps that matter
		// at is the cost of sitting in level l at step i of the life:
		// its accesses and the price of its bytes.
		at := func(k int) float64 {
			c := cost[k]
			if r := rowOf[k]; r >= 0 {
				c += y[r] * bytes[k]
			}
			return c
		}
		for l := 0; l < L; l++ {
			V[l] = math.Inf(1)
			if p.Allowed(b, l) {
				V[l] = at(l)
			}
		}
		for i := 1; i < n; i++ {
			for c := 0; c < L; c++ {
				next[c] = math.Inf(1)
				if !p.Allowed(b, c) {
					continue
				}
				best, from := V[c], c
				for a := 0; a < L; a++ {
					if a != c && V[a]+w.move[b][a][c] < best {
						best, from = V[a]+w.move[b][a][c], a
					}
				}
				next[c] = best + at(i*L+c)
				choice[i*L+c] = int8(from)
			}
			V, next = next, V
		}
		end := 0
		for l := 1; l < L; l++ {
			if V[l] < V[end] {
				end = l
			}
		}
		total += V[end]
		magnitude += math.Abs(V[end])
		// Walk back the path for the subgradient (and, with paths, record
		// its stays).
		var path []Stay
		l := end
		for i := n - 1; i >= 0; i-- {
			if r := rowOf[i*L+l]; r >= 0 {
				g[r] += bytes[i*L+l]
			}
			from := l
			if i > 0 {
				from = int(choice[i*L+l])
			}
			if paths != nil && (i == 0 || from != l) {
				path = append(path, Stay{From: w.step[b][i], Level: int8(l)})
			}
			l = from
		}
		if paths != nil {
			slices.Reverse(path)
			paths[b] = path
		}
	}
	return total - roundMargin*magnitude, g
}

// paths returns the blocks' cheapest paths at prices y.
func (w *whole) paths(y []float64) [][]Stay {
	paths := make([][]Stay, w.p.Blocks())
	w.eval(y, paths)
	return paths
}

// roundMargin is eval's allowance for rounding, relative to the
// magnitude of L(y)'s terms: 1e-12 is 4500 times float64's epsilon.
const roundMargin = 1e-12
