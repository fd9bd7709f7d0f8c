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
//     except that a reusable block at its last timestep counts only what
//     its reuse partners in that level could not cover: its footprint
//     less theirs (a block created there may share its space, FORMATS.md
//     rule 4; partners per state.ReusePair, at their footprints in the
//     level, whether or not they sit there: see partners).
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
// halved when the bound stalls), in two ascents from y = 0, one in bytes
// and one scaled to the rows' capacities, and reports the best L(y) it
// found: every
// iterate is a valid bound, so stopping early only makes it looser. With
// prices on the capacity rows alone, the best it can reach is the optimum
// of R's linear relaxation (a shortest path is integral); after the first
// cutStart of the steps Whole also prices valid inequalities of R's
// integer points that the paths break (relax-and-cut, cuts.go), which
// lifts it above: on the shipped pairs where the mixed-integer model of
// ../shared/tools/milp_bound.py solves, hieropt's cost bound went from a
// mean of 0.79% below the MILP's optimum to 0.2% (scripts/bound-vs-milp.sh;
// the README's bound section has the numbers).

// WholeOptions steer Whole.
type WholeOptions struct {
	// Iterations bounds the subgradient steps of each ascent (Ascents).
	// Default: DefaultIterations, fewer on long programs, so that an
	// ascent's steps visit at most DefaultWork states in all (each step
	// visits every block's states once: its timesteps that matter times
	// the levels).
	Iterations int
	// Upper is a known cost of a valid plan (say the plan being judged),
	// the target of the steps; 0: the cost of planning nothing.
	Upper float64
	// Paths asks for the blocks' cheapest paths at the best prices of
	// each ascent (WholeBound.Paths): where the relaxation puts each
	// block, guides for a planner.
	Paths bool
	// Linear stops at the linear relaxation of R: no tightened capacities,
	// no cuts (relax-and-cut, cuts.go). A looser bound, for comparison.
	Linear bool
}

// WholeBound is what Whole finds.
type WholeBound struct {
	// Cost is the best bound found: no plan of the problem costs less.
	Cost float64
	// Free is L(0): every block on its cheapest path with no capacity.
	Free float64
	// Rows counts the (level, timestep) capacity rows that can bind;
	// Iterations the steps taken over all ascents, of at most Limit
	// (Ascents times WholeOptions.Iterations, or times the default:
	// DefaultIterations, fewer on long programs); Cuts the valid
	// inequalities found and priced beside the rows (relax-and-cut).
	Rows, Iterations, Limit, Cuts int
	// Paths, with WholeOptions.Paths, holds per ascent (see Whole; one
	// where no capacity can bind) per block its cheapest path through the
	// levels at the prices of that ascent's best bound: the stays in order
	// of time, the first at the block's first timestep. The paths need not
	// fit the capacities together (the prices only make them pay for the
	// bytes they take).
	Paths [][][]Stay
}

// Stay is a part of a block's path: from timestep From on (until the next
// stay, or the block's last timestep) it sits in level Level.
type Stay struct {
	From  int32
	Level int8
}

// DefaultIterations is the default number of steps, on programs short
// enough for DefaultWork (up to 100,000 states). More steps gain little for
// their time: the mean gap to the MILP's optimum on the 54 shipped pairs
// where it solves is 0.22% with 300 steps, 0.20% with 400 (a third
// slower).
const DefaultIterations = 300

// DefaultWork is the most states an ascent's default number of steps
// visits in all (about a third of a second on the project's 2-core VM;
// Whole makes Ascents of them), one step at least: DefaultIterations on most shipped pairs, a few on a 2,000-op
// generated program with capacities binding at most timesteps (a looser
// bound, still valid).
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

// lifeStates is the sum over blocks of their lifetimes times the levels:
// the states the steps visit, counting the timesteps where nothing can
// change, which compiling the problem leaves out (within 2% on the shipped
// networks).
func lifeStates(p *state.Problem) int64 {
	var states int64
	for b := 0; b < p.Blocks(); b++ {
		states += int64(p.Block(b).Last-p.Block(b).First+1) * int64(p.Levels())
	}
	return states
}

// EstimatedSteps is the number of steps Whole takes by default on p, as
// estimated before compiling the problem (lifeStates): the compiled count
// can only allow as many or more. Compiling a long program takes seconds;
// a caller that needs enough steps asks this first.
func EstimatedSteps(p *state.Problem) int {
	return max(1, min(DefaultIterations, int(DefaultWork/max(float64(lifeStates(p)), 1))))
}

// Whole computes the whole-program bound of p under m (seed003).
func Whole(ctx context.Context, p *state.Problem, m costmodel.Model, o WholeOptions) (*WholeBound, error) {
	if m.Name() != "seed003" {
		return nil, ErrNotSeparable
	}
	states := lifeStates(p)
	if states > MaxStates {
		return nil, ErrTooLarge
	}
	// Cuts only where the steps will be enough to use them: on a long
	// program the work budget leaves a few steps, and the cuts' members
	// and tightened capacities took seconds to compile (a 5,000-op
	// generated program: 2.7 s, for one step).
	est := o.Iterations
	if est <= 0 {
		est = EstimatedSteps(p)
	}
	cuts := !o.Linear && est >= minCutSteps
	w := newWhole(ctx, p, m, cuts)
	if w == nil {
		return nil, ctx.Err() // ctx ended while the problem was compiled
	}
	if o.Iterations <= 0 {
		o.Iterations = max(1, min(DefaultIterations, int(DefaultWork/max(w.states, 1))))
	}
	w.cutsOn = cuts
	res := &WholeBound{Rows: len(w.rows), Limit: Ascents * o.Iterations}
	y := make([]float64, len(w.rows))
	val, _ := w.eval(y, nil)
	res.Free, res.Cost = val, val
	if len(w.rows) == 0 {
		if o.Paths {
			res.Paths = [][][]Stay{w.paths(y)}
		}
		return res, nil // no capacity can bind: L(0) is R's optimum
	}
	upper := o.Upper
	if upper <= 0 {
		upper = NoPlanning(p, m)
	}
	// Two ascents, the better kept: one measures every price in the
	// level's bytes, one in shares of the row's capacity (scaled). Where
	// the levels' capacities differ by orders of magnitude a step of the
	// first barely moves the small levels' prices (vit_b_16-int8 on the
	// H100 seed copy: 9.82 M with it, 10.45 M scaled, the MILP tool's
	// linear relaxation 10.20 M); where several small levels bind
	// together the second overshoots them (resnet50-fp32 on the Ascend
	// seed copy: 6.54 M, 6.26 M scaled). Each ascent keeps its own best;
	// the cuts the first found start the second, unpriced.
	for a := range Ascents {
		if ctx.Err() != nil && a > 0 {
			break
		}
		best := w.ascend(ctx, o.Iterations, upper, a == 1, res)
		if o.Paths {
			res.Paths = append(res.Paths, w.paths(best))
		}
	}
	res.Cuts = len(w.cuts)
	return res, nil
}

// ascend takes up to iterations projected subgradient steps from zero
// prices, toward upper, and returns the prices of its best bound; a bound
// better than res.Cost goes in res. With scaled, each price
// moves in shares of its row's capacity (a diagonal scaling: any prices
// at or above zero give a valid bound).
func (w *whole) ascend(ctx context.Context, iterations int, upper float64, scaled bool, res *WholeBound) []float64 {
	y := make([]float64, len(w.rows)+len(w.cuts))
	val, g := w.eval(y, nil)
	best := slices.Clone(y)
	scale := func(k int) float64 {
		if !scaled {
			return 1
		}
		r := k
		if k >= len(w.rows) {
			r = int(w.cuts[k-len(w.rows)].row)
		}
		return math.Max(w.rows[r].cap, 1)
	}
	top := val // this ascent's best, from L(0)
	theta, stall := 1.0, 0
	d := make([]float64, len(g)) // the direction: g deflected by the last one
	cutFrom := int(cutStart * float64(iterations))
	for it := 0; it < iterations; it++ {
		if ctx.Err() != nil {
			break
		}
		res.Iterations++
		if w.cutsOn && it >= cutFrom {
			if n := w.separate(g); n > 0 {
				// The new cuts start unpriced; their subgradients (each
				// broken by the paths) join the direction.
				y = append(y, make([]float64, n)...)
				d = append(d, make([]float64, n)...)
				g = w.cutGrad(g)
			}
		}
		moves := false
		for k, gk := range g {
			if y[k] == 0 && gk < 0 {
				gk = 0 // the projection keeps it at 0
			}
			moves = moves || gk != 0
			d[k] = gk/scale(k) + deflection*d[k]
		}
		if !moves {
			// The paths fit every capacity and break no cut where it is
			// priced: y is optimal. (The deflected direction may still
			// hold a vanishing remnant of the last steps, whose step would
			// overflow.)
			break
		}
		var norm float64
		for _, dk := range d {
			norm += dk * dk
		}
		step := theta * math.Max(upper-val, 1e-9*math.Abs(upper)) / norm
		for k := range y {
			y[k] = math.Max(0, y[k]+step*d[k]/scale(k))
		}
		val, g = w.eval(y, nil)
		if val > res.Cost {
			res.Cost = val
		}
		if val > top*(1+1e-9) {
			top, stall = val, 0
			best = slices.Clone(y)
		} else if stall++; stall >= stallSteps {
			theta, stall = theta/2, 0
			if theta < 1e-6 {
				break
			}
		}
	}
	return best
}

// Ascents is the number of subgradient ascents Whole makes where a
// capacity can bind (see Whole: in the levels' bytes, then scaled to the
// rows' capacities), each of at most WholeOptions.Iterations steps.
const Ascents = 2

// deflection is the share of the last direction kept in the next (a
// deflected subgradient: it damps the zig-zag of plain steps between
// capacity rows that bind in turns). Any direction keeps every iterate a
// valid bound; 0.7 converged best on the shipped pairs (resnet50-int8 on
// the U55 seed copy: 33.9 M with plain steps, 38.2 M with it, in 300
// steps).
const deflection = 0.7

// minCutSteps is the fewest steps (by the work budget's estimate, from
// the blocks' lifetimes) for which Whole prepares cuts.
const minCutSteps = 10

// cutStart is the share of the steps taken before cuts are sought: the
// first steps bring the prices near the linear relaxation's, whose paths
// break the cuts that matter.
const cutStart = 0.2

// stallSteps is how many steps without a better bound halve the step
// size: the cuts, new prices each, need more patience than the rows (mean
// gap to the MILP's optimum on 41 shipped pairs, 1000 steps, cuts from the
// tenth: 0.60% with 10, 0.15% with 20).
const stallSteps = 20

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
	cutsOn bool      // seek cuts (relax-and-cut) after cutStart of an ascent's steps
	states int       // the states one step visits: sum of len(cost)
	// Relax-and-cut (cuts.go): per row, the states that take bytes from
	// it (largest first); the cuts found so far; per block and state, the
	// cuts' prices on it (zero between evaluations); per block and step,
	// the level of the last cheapest path.
	members [][]member
	cuts    []cut
	seen    map[string]bool // the cuts' keys, to add each once
	extra   [][]float64
	on      [][]int8
}

type row struct {
	l, t int
	cap  float64
}

func newWhole(ctx context.Context, p *state.Problem, m costmodel.Model, cuts bool) *whole {
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
	w.on, w.extra, w.members = make([][]int8, p.Blocks()), make([][]float64, p.Blocks()), make([][]member, len(w.rows))
	w.seen = map[string]bool{}
	longest := 0
	for b := 0; b < p.Blocks(); b++ {
		if b&255 == 255 && ctx.Err() != nil {
			return nil
		}
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
					by = float64(p.Foot(b, l))
					if blk.Reusable && t == blk.Last {
						by = math.Max(0, by-float64(partners(p, b, l, t)))
					}
					r = w.rowAt[l*T+t]
				}
				cost, bytes, rowOf = append(cost, c), append(bytes, by), append(rowOf, r)
			}
		}
		w.cost[b], w.bytes[b], w.rowOf[b] = cost, bytes, rowOf
		w.on[b] = make([]int8, len(cost)/L)
		for k, r := range rowOf {
			if cuts && r >= 0 && bytes[k] > 0 {
				w.members[r] = append(w.members[r], member{b: int32(b), k: int32(k), bytes: bytes[k]})
			}
		}
		if slices.ContainsFunc(rowOf, func(r int32) bool { return r >= 0 }) {
			w.extra[b] = make([]float64, len(cost))
		}
		longest = max(longest, len(cost)/L)
		w.states += len(cost)
	}
	w.choice = make([]int8, longest*L)
	if cuts {
		w.sortMembers()
		w.tighten()
	}
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

// partners is the most bytes that the blocks that may share a reusable
// block b's space at its last timestep t by reuse (state.ReusePair: those
// created at t that may take it over, and where b is created at t too,
// those whose space it may take) can hold in level l: b's share of l's
// bytes at t is at least its footprint less that.
func partners(p *state.Problem, b, l, t int) int64 {
	var sum int64
	add := func(c int) {
		if c != b && p.Allowed(c, l) && state.ReusePair(p, b, c, t) {
			sum += p.Foot(c, l)
		}
	}
	for _, c := range p.Created(t) {
		add(int(c))
	}
	if p.Block(b).First == t {
		for _, c := range p.Dying(t) {
			if p.Block(int(c)).First != t { // not counted among those created
				add(int(c))
			}
		}
	}
	return sum
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
	g := make([]float64, len(y))
	var total, magnitude float64
	for k, r := range w.rows {
		g[k] = -r.cap
		total -= y[k] * r.cap
		magnitude += y[k] * r.cap
	}
	lam := y[len(w.rows):] // the cuts' prices, per byte of their scale
	for c := range w.cuts {
		cu := &w.cuts[c]
		g[len(w.rows)+c] = -cu.scale * cu.rhs
		total -= lam[c] * cu.scale * cu.rhs
		magnitude += lam[c] * cu.scale * cu.rhs
		if lam[c] > 0 {
			for _, m := range cu.members {
				w.extra[m.b][m.k] += lam[c] * cu.scale
			}
		}
	}
	V, next := make([]float64, L), make([]float64, L)
	for b := 0; b < p.Blocks(); b++ {
		cost, bytes, rowOf, choice, extra := w.cost[b], w.bytes[b], w.rowOf[b], w.choice, w.extra[b]
		n := len(cost) / L // the block's timesteps that matter
		// at is the cost of sitting in level l at step i of the life:
		// its accesses and the price of its bytes.
		at := func(k int) float64 {
			c := cost[k]
			if r := rowOf[k]; r >= 0 {
				c += y[r]*bytes[k] + extra[k]
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
		on := w.on[b]
		for i := n - 1; i >= 0; i-- {
			on[i] = int8(l)
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
	for c := range w.cuts {
		cu := &w.cuts[c]
		for _, m := range cu.members {
			if lam[c] > 0 {
				w.extra[m.b][m.k] = 0 // exactly: only cuts price a state
			}
			if w.on[m.b][int(m.k)/L] == int8(int(m.k)%L) {
				g[len(w.rows)+c] += cu.scale
			}
		}
	}
	return total - roundMargin*magnitude, g
}

// paths returns the blocks' cheapest paths at prices y.
func (w *whole) paths(y []float64) [][]Stay {
	paths := make([][]Stay, w.p.Blocks())
	y = append(slices.Clone(y), make([]float64, len(w.rows)+len(w.cuts)-len(y))...) // cuts found later: unpriced
	w.eval(y, paths)
	return paths
}

// cutGrad extends g, the subgradient of the rows and of the cuts before
// the last separate, with the new cuts' at the same paths (w.on).
func (w *whole) cutGrad(g []float64) []float64 {
	for c := len(g) - len(w.rows); c < len(w.cuts); c++ {
		cu := &w.cuts[c]
		gc := -cu.scale * cu.rhs
		for _, m := range cu.members {
			if w.on[m.b][int(m.k)/w.L] == int8(int(m.k)%w.L) {
				gc += cu.scale
			}
		}
		g = append(g, gc)
	}
	return g
}

// roundMargin is eval's allowance for rounding, relative to the
// magnitude of L(y)'s terms: 1e-12 is 4500 times float64's epsilon.
const roundMargin = 1e-12
