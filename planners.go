package hieropt

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/baseline"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/registry"
	"github.com/hieropt/hieropt/repack"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
)

// Planner is a planner Plan can run, registered by name: "search",
// "initializer", "none", and one per single-arena planner of package arena
// ("pack", "seed000", "seed001", "seed004", "tflm"), and the baselines
// "seed004-pipeline", "xla-msa" and "resident-all". Settings.Planner
// names it.
type Planner interface {
	Name() string
	Doc() string
	// plan makes r's layout and its cost, sets cost.initial and what
	// the planner did in r.res, and returns the planner's description
	// for the plan document. Steps that may be cut run under lim, steps
	// that must finish under whole (see run.plan).
	plan(r *run, lim, whole context.Context) (string, error)
}

// planners is the registry of planners.
var planners = registry.New[Planner]("hieropt: planner")

func init() {
	planners.MustRegister(searchPlanner{}, initializerPlanner{}, nonePlanner{}, pipelinePlanner{}, msaPlanner{}, residentAllPlanner{})
	for _, name := range arena.Names() {
		a, _ := arena.Lookup(name)
		planners.MustRegister(arenaPlanner{a})
	}
}

// PlannerNames returns the registered planners' names, sorted.
func PlannerNames() []string { return planners.Names() }

// Planners returns the registered planners, sorted by name (for
// listings: each has a Name and a Doc).
func Planners() []Planner { return planners.Entries() }

// searchPlanner is the search: the starts, the walk, repacking.
type searchPlanner struct{}

func (searchPlanner) Name() string { return "search" }
func (searchPlanner) Doc() string {
	return "the initializer's plans in the start orders, then the walk from the cheapest (move, swap, reuse and evict over the timesteps, a beam of states in each segment), then repacking with the exact packer; under the seed model also the walks from the plans the whole-program bound guides (the bound order, one per guide on small programs), the cheapest plan kept; the default"
}

func (searchPlanner) plan(r *run, lim, whole context.Context) (string, error) {
	walks, err := r.starts(lim, whole)
	if err != nil {
		return "", err
	}
	r.res.Times.Initial = r.lap()
	if err := r.walks(lim, walks); err != nil {
		return "", err
	}
	return describeSearch(&r.s, r.p), nil
}

// candidate is one start of the search: an initializer order's plan.
type candidate struct {
	in  *actions.Initializer
	lay *state.Layout
	err error
}

// starts makes cost.initial's plan (actions.InitialPlan: the initializer
// in workload order, or where it cannot place a block the fallback plan)
// and the plans of the other orders of Settings.Starts, these on
// goroutines of their own while cost.initial's is made when there are
// workers to spare, and returns the starts of the walks: the cheapest plan
// of the orders other than the bound order (the earlier in
// Settings.Starts on a tie) and, if it is among them, the bound order's
// plans (see guided), the cheapest of all first, then the other order's,
// then the rest of the bound order's. The bound order's start is usually
// the cheaper but not always where the walk ends cheapest: on some
// programs the walk from another order ends lower, so all are walked (see
// walks). The resident-levels order's plan (timeline model) is walked too,
// first if it is the cheapest start, else after the others, unless it is
// one of their plans. The bound the bound order needs is computed under lim (cut there, it is a looser
// guide; past lim, the bound order has no start); the rest under ctx.
func (r *run) starts(lim, ctx context.Context) ([]walkStart, error) {
	p := r.p
	orders := r.s.starts()
	if p.Timeline() && r.s.Starts == nil {
		// Under the timeline model the default starts include constants
		// made resident in the fastest level, in all and in half the room,
		// and in every writable level faster than their home.
		orders = append(orders, actions.ResidentOrder, actions.ResidentHalfOrder, actions.ResidentLevelsOrder)
	}
	// others holds per order its candidates: one, or for the bound order
	// one per guide.
	others := make([][]*candidate, len(orders))
	var wg sync.WaitGroup
	workers := r.s.Search.WithDefaults().Workers
	// Under a time limit the other orders' plans wait for cost.initial's,
	// which must exist (they would take its cores), and stop where lim
	// falls (that order then has no start); they are not begun when less
	// time is left than cost.initial's plan took (each takes about as
	// long: begun, they would be cut, and leave nothing for the walk).
	// Without a limit they are made alongside it. The plans are the same
	// either way where the limit does not fall.
	end, limited := lim.Deadline()
	var later []func()
	for i, o := range orders {
		if o == actions.WorkloadOrder {
			continue
		}
		guides := [][]int8{nil}
		if o == actions.BoundOrder {
			var err error
			if guides, err = r.guides(lim); err != nil {
				others[i] = []*candidate{{err: err}}
				continue
			}
		}
		for _, g := range guides {
			c := &candidate{}
			others[i] = append(others[i], c)
			plan := func() {
				if limited && lim.Err() != nil {
					c.err = lim.Err() // not even made ready: that takes long on large programs
					return
				}
				c.in, c.lay = actions.NewInitializerOrder(p, o), state.NewLayout(p.Blocks())
				if g != nil {
					c.in.SetGuide(g)
				}
				c.err = c.in.RunContext(lim, c.lay)
			}
			switch {
			case limited:
				later = append(later, plan)
			case workers > 1:
				wg.Go(plan)
			default:
				plan()
			}
		}
	}
	begun := time.Now()
	init, fb, err := actions.InitialPlan(ctx, p, r.model)
	switch took := time.Since(begun); {
	case err != nil || len(later) == 0:
	case time.Until(end) > took:
		runAll(later, workers)
	default:
		// No time for the other orders (their runs are later's: none
		// began).
		for _, cs := range others {
			for _, c := range cs {
				if c.err == nil {
					c.err = context.DeadlineExceeded
				}
			}
		}
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	cost := costmodel.Total(r.model, p, init)
	r.res.Initial = Initial{Cost: cost, Fallback: fb}
	workload := search.Start{Layout: init, Initializer: actions.NewInitializer(p), Model: r.model}
	best := walkStart{Start: workload, order: actions.WorkloadOrder, cost: cost}
	var bound []walkStart
	var levels *walkStart     // the resident-levels start, walked apart
	var plans []*state.Layout // the other orders' plans but the bound order's
	found := false
	for i, o := range orders {
		w := walkStart{Start: workload, order: o, cost: cost}
		if o == actions.BoundOrder {
			bound = r.guided(others[i])
			continue
		}
		if o == actions.ResidentLevelsOrder {
			if c := others[i][0]; c.err == nil {
				levels = &walkStart{Start: search.Start{Layout: c.lay, Initializer: c.in, Model: r.model}, order: o, cost: costmodel.Total(r.model, p, c.lay)}
			}
			continue
		}
		if o != actions.WorkloadOrder {
			c := others[i][0] // one candidate: no guide
			if c.err != nil {
				continue // this order's initializer cannot place a block
			}
			w.cost = costmodel.Total(r.model, p, c.lay)
			w.Start = search.Start{Layout: c.lay, Initializer: c.in, Model: r.model}
		}
		plans = append(plans, w.Layout)
		if !found || w.cost < best.cost {
			best, found = w, true
		}
	}
	// found is false when no other order of Starts has a plan: the starts
	// are then cost.initial's, or the bound order's.
	var walks []walkStart
	switch {
	case len(bound) > 0 && !found:
		walks = bound
	case len(bound) > 0 && bound[0].cost < best.cost:
		walks = append([]walkStart{bound[0], best}, bound[1:]...)
	default:
		walks = append([]walkStart{best}, bound...)
	}
	// The resident-levels start is walked besides the others (the cheaper
	// start first) unless it is the plan of another order (where no
	// constant is resident outside the fastest level it is the resident
	// order's): the walk from it does not always end lower than the walk
	// from the other orders' cheapest, which is walked as before, so no
	// plan gets costlier for it.
	same := func(lay *state.Layout) bool { return lay.Equal(levels.Layout) }
	if levels != nil && !slices.ContainsFunc(plans, same) && !slices.ContainsFunc(walks, func(w walkStart) bool { return same(w.Layout) }) {
		if levels.cost < walks[0].cost {
			walks = append([]walkStart{*levels}, walks...)
		} else {
			walks = append(walks, *levels)
		}
	}
	r.res.Initial.Start, r.res.Initial.StartCost = walks[0].order.Name(), walks[0].cost
	return walks, nil
}

// runAll runs the functions, on up to workers goroutines at once.
func runAll(fs []func(), workers int) {
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1)) - 1; i < len(fs); i = int(next.Add(1)) - 1 {
			fs[i]()
		}
	}
	var wg sync.WaitGroup
	for range min(workers, len(fs)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// guidedWork is the most blocks times timesteps of a program for which
// every guided start is walked (see guided); above it only the cheapest.
// A walk's work grows with both. Measured on the 82 seed-model pairs:
// walking every guided start made resnet18-int8 on the K210 copy 1.26%
// cheaper (26.60 M -> 26.27 M cycles) and squeezenet1_1-int8 on the
// Ascend 910 copy 0.32%, the rest of 10 pairs 0.002% to 0.07%; above this
// limit only mobilenet_v2's pairs (432 blocks x 151 timesteps) gained, by
// 0.03% at most, for twice their search time (with this limit at 70,000
// the bench of all pairs took 38% longer than before the repacking
// rounds, detours and the third walk; at 30,000, 8%), and none of
// resnet50's (459 x
// 174; resnet50-int8 on the Ethos-U55 copy would plan in 0.8 s instead of
// 0.53 s). resnet18 (188 x 68), squeezenet1_1 and vit_b_16 (267 x 101)
// are below the limit.
const guidedWork = 30_000

// guided returns the bound order's starts: its candidates' plans (one per
// guide) that exist, the cheaper first (the earlier guide on a tie), a
// plan the same as an earlier one left out; only the first where the
// program is larger than guidedWork. Each is walked: the walk from the
// cheaper does not always end lower (resnet18-int8 on the K210 copy:
// 26.60 M cycles from the cheaper, 26.27 M from the other).
func (r *run) guided(cs []*candidate) []walkStart {
	var out []walkStart
	for _, c := range cs {
		if c.err != nil || slices.ContainsFunc(out, func(w walkStart) bool { return w.Layout.Equal(c.lay) }) {
			continue
		}
		out = append(out, walkStart{Start: search.Start{Layout: c.lay, Initializer: c.in, Model: r.model}, order: actions.BoundOrder, cost: costmodel.Total(r.model, r.p, c.lay)})
	}
	slices.SortStableFunc(out, func(x, y walkStart) int { return cmp.Compare(x.cost, y.cost) })
	if len(out) > 1 && r.p.Blocks()*r.p.Prog.Timesteps() > guidedWork {
		out = out[:1]
	}
	return out
}

// walkStart is a start of the search's walk: an initializer order's plan
// and its cost.
type walkStart struct {
	search.Start
	order actions.Order
	cost  float64
}

// walks walks from each start, each walk followed by repacking (which
// can take a walk that ended higher below another: both are repacked),
// and keeps the cheapest plan (the earlier start's on a tie):
// Result.Initial's Start, Search and Repack are its walk's; Initial.Walks
// lists them all. With more than one start and more than one worker the
// walks run at once, as many as there are workers, the workers shared
// between them (a walk's candidates gain less from a second worker than a
// second walk does: resnet50-int8 on the U55 copy walks faster on one
// core than on two); else one after the other, while lim lasts (a walk
// after the limit fell is not begun). The
// plan is the same either way: each walk's is the same on any number of
// workers.
func (r *run) walks(lim context.Context, starts []walkStart) error {
	var outs []*walkOut
	var err error
	if workers := r.s.Search.WithDefaults().Workers; len(starts) > 1 && workers > 1 {
		outs, err = r.walksAtOnce(lim, starts, workers)
	} else {
		outs, err = r.walksInTurn(lim, starts)
	}
	if err != nil {
		return err
	}
	best := 0
	for i, out := range outs {
		st := starts[i]
		r.res.Initial.Walks = append(r.res.Initial.Walks, Walked{Start: st.order.Name(), StartCost: st.cost, Walked: out.walked, Cost: out.cost})
		r.mergeStatus(out)
		if out.cost < outs[best].cost {
			best = i
		}
	}
	st, out := starts[best], outs[best]
	r.res.Initial.Start, r.res.Initial.StartCost = st.order.Name(), st.cost
	r.res.Search, r.res.Repack, r.lay, r.cost = out.search, out.repack, out.lay, out.cost
	return nil
}

// walksInTurn walks from the starts one after the other, while lim lasts
// (a walk after the limit fell is not begun: it returns fewer walks),
// progress reported over all of them.
func (r *run) walksInTurn(lim context.Context, starts []walkStart) ([]*walkOut, error) {
	base := r.s.Search.Progress
	defer func() { r.s.Search.Progress = base }()
	T := r.p.Prog.Timesteps()
	var outs []*walkOut
	for i, st := range starts {
		if i > 0 && lim.Err() != nil {
			break // the limit fell in an earlier walk
		}
		if base != nil && len(starts) > 1 {
			r.s.Search.Progress = func(pr search.Progress) {
				pr.Timestep += i * T
				pr.Steps = len(starts) * T
				if i == 0 || pr.Timestep > i*T {
					base(pr)
				}
			}
		}
		out, err := r.walkOne(lim, st)
		if err != nil {
			return nil, err
		}
		r.res.Times.Search += out.walkTime
		r.res.Times.Repack += out.repackTime
		r.last = time.Now()
		outs = append(outs, out)
	}
	return outs, nil
}

// walksAtOnce walks from the starts on goroutines of their own, as many
// at once as there are workers (at most one per start), the workers
// shared between them; only the first walk reports progress, from this
// goroutine. A walk is begun in the starts' order while lim lasts (those
// not begun are left out, as in walksInTurn).
func (r *run) walksAtOnce(lim context.Context, starts []walkStart, workers int) ([]*walkOut, error) {
	n := len(starts)
	at := min(workers, n)
	outs := make([]*walkOut, n)
	errs := make([]error, n)
	var next atomic.Int64
	next.Store(1) // walk 0 is this goroutine's
	walk := func(i, w int) {
		if i > 0 && lim.Err() != nil {
			return // the limit fell in an earlier walk
		}
		ri := *r
		ri.s.Search.Workers = w
		if i > 0 {
			ri.s.Search.Progress = nil
		}
		outs[i], errs[i] = ri.walkOne(lim, starts[i])
	}
	rest := func(w int) {
		for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
			walk(i, w)
		}
	}
	var wg sync.WaitGroup
	for range at - 1 {
		wg.Go(func() { rest(max(1, workers/at)) })
	}
	walk(0, max(1, workers-(at-1)*(workers/at)))
	rest(max(1, workers/at))
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if k := slices.Index(outs, nil); k >= 0 {
		outs = outs[:k]
	}
	now := time.Now()
	wall := now.Sub(r.last)
	r.last = now
	var rep time.Duration
	for _, out := range outs {
		rep = max(rep, out.repackTime)
	}
	r.res.Times.Search += max(0, wall-rep)
	r.res.Times.Repack += min(rep, wall)
	return outs, nil
}

// walkOut is one walk and its repacking: the plan, its cost before and
// after repacking, how the two ended, and their times.
type walkOut struct {
	search               *search.Result
	repack               *repack.Result
	lay                  *state.Layout
	walked, cost         float64
	status               Status
	cut                  Phase
	cutTimestep          int
	repackSkipped        bool
	walkTime, repackTime time.Duration
}

// mergeStatus records in r.res how a walk ended: a time limit or a
// cancellation in any walk is the run's (the first cut found names the
// phase).
func (r *run) mergeStatus(out *walkOut) {
	if out.repackSkipped {
		r.res.RepackSkipped = true
	}
	if out.status > r.res.Status {
		r.res.Status = out.status
		r.res.Cut, r.res.CutTimestep = out.cut, out.cutTimestep
	}
}

// walkOne walks from the start until it converges or lim ends, then
// repacks the plan within its budget and what is left of lim (skipped
// when nothing is, or after a cancellation; stopped where the limit
// falls, what it accepted until then standing; without a limit its
// budget is deterministic). It does not touch r.res.
func (r *run) walkOne(lim context.Context, st walkStart) (*walkOut, error) {
	begin := time.Now()
	early := lim.Err() != nil // the limit fell before the walk
	var wr *search.Result
	if early {
		// What a walk that lim stops at once returns, without the walk's
		// setup (pricing the start twice, indexing it), which takes long
		// on a large program.
		wr = &search.Result{Layout: st.Layout, StartCost: st.cost, Cost: st.cost, Status: search.TimeLimit}
		if !errors.Is(lim.Err(), context.DeadlineExceeded) {
			wr.Status = search.Cancelled
		}
	} else {
		ws := r.s.Search
		var err error
		if wr, err = search.Walk(lim, r.p, st.Start, &ws); err != nil {
			return nil, &InternalError{fmt.Errorf("walking from the start: %w", err)}
		}
	}
	out := &walkOut{search: wr, lay: wr.Layout, walked: wr.Cost, cost: wr.Cost}
	switch wr.Status {
	case search.TimeLimit:
		out.status = TimeLimit
		if early {
			out.cut = PhaseInitial
		} else {
			out.cut, out.cutTimestep = PhaseSearch, wr.Stats.CutTimestep
		}
	case search.Cancelled:
		out.status = Cancelled
	}
	out.walkTime = time.Since(begin)
	begin = time.Now()
	defer func() { out.repackTime = time.Since(begin) }()
	n := r.s.RepackBudget()
	if n == 0 {
		return out, nil
	}
	if lim.Err() != nil {
		if errors.Is(lim.Err(), context.DeadlineExceeded) {
			out.repackSkipped = true
			if out.status == Converged { // the limit fell just after the walk
				out.status, out.cut = TimeLimit, PhaseRepack
			}
		}
		return out, nil
	}
	rr, err := repack.Run(lim, r.p, out.lay, &repack.Settings{Packings: n, CostModel: r.model, Check: r.s.Search.Check,
		Workers: r.s.Search.WithDefaults().Workers})
	if err != nil {
		return nil, &InternalError{fmt.Errorf("repacking the committed plan: %w", err)}
	}
	out.repack, out.lay, out.cost = rr, rr.Layout, rr.Cost
	if rr.Stopped && out.status == Converged {
		if out.status = statusOf(lim); out.status == TimeLimit {
			out.cut = PhaseRepack
		}
	}
	return out, nil
}

// describeSearch names the search and its settings for the plan document,
// with the defaults in effect for p (under the timeline model the action
// set adds prefetch). It leaves out what does not change the plan
// (workers, checking).
func describeSearch(s *Settings, p *state.Problem) string {
	w := s.Search.WithDefaultsFor(p)
	beam := fmt.Sprint(w.Beam)
	if w.Beam < 0 {
		beam = "unbounded"
	}
	d := fmt.Sprintf("search: segments=%s beam=%s actions=%s max-candidates=%d", w.Segments.Name(), beam, w.Actions, w.MaxCandidates)
	if w.Rounds != search.DefaultRounds {
		d += fmt.Sprintf(" rounds=%d", w.Rounds)
	}
	if w.Horizon != search.DefaultHorizon {
		d += fmt.Sprintf(" horizon=%d", w.Horizon)
	}
	switch {
	case s.Starts == nil || slices.Equal(s.Starts, DefaultStarts):
	case slices.Equal(s.Starts, []string{actions.WorkloadOrder.Name()}):
		d += " initial-only"
	default:
		d += " starts=" + strings.Join(s.Starts, ",")
	}
	switch n := s.RepackBudget(); {
	case n == 0:
		d += " repack=off"
	case n != DefaultRepack:
		d += fmt.Sprintf(" repack=%d", n)
	}
	return d
}

// initializerPlanner is the initializer alone.
type initializerPlanner struct{}

func (initializerPlanner) Name() string { return "initializer" }
func (initializerPlanner) Doc() string {
	return "seed 003's initializer alone (rules 1-5), in workload order; the fallback plan where it cannot place a block"
}

func (initializerPlanner) plan(r *run, _, whole context.Context) (string, error) {
	lay, fb, err := actions.InitialPlan(whole, r.p, r.model)
	if err != nil {
		return "", err
	}
	r.cost = costmodel.Total(r.model, r.p, lay)
	r.lay, r.res.Initial = lay, Initial{Cost: r.cost, Fallback: fb}
	r.res.Times.Initial = r.lap()
	if fb != nil {
		return "fallback: " + fb.Describe(r.p), nil
	}
	return "initializer", nil
}

// initial sets cost.initial for a planner that is not the initializer.
func (r *run) initial(ctx context.Context) error {
	init, fb, err := actions.InitialPlan(ctx, r.p, r.model)
	if err != nil {
		return err
	}
	r.res.Initial = Initial{Cost: costmodel.Total(r.model, r.p, init), Fallback: fb}
	r.res.Times.Initial = r.lap()
	return nil
}

// arenaPlanner is a single-arena planner of package arena, in the
// fastest level that holds its arena.
type arenaPlanner struct{ a arena.Planner }

func (a arenaPlanner) Name() string { return a.a.Name() }
func (a arenaPlanner) Doc() string {
	return "a single arena in the fastest level that holds it, every block there for its whole life; " + a.a.Doc()
}

func (a arenaPlanner) plan(r *run, _, whole context.Context) (string, error) {
	lay, l, peak, err := arena.Place(r.p, a.a)
	if err != nil {
		return "", &PlannerError{Planner: a.Name(), Err: err}
	}
	r.res.Times.Search = r.lap()
	if err := r.initial(whole); err != nil {
		return "", err
	}
	r.lay, r.cost = lay, costmodel.Total(r.model, r.p, lay)
	return fmt.Sprintf("%s: arena of %d B in level %s", a.Name(), peak, r.p.HW.Levels[l].Name), nil
}

// nonePlanner is no planning: every block in the slowest level.
type nonePlanner struct{}

func (nonePlanner) Name() string { return "none" }
func (nonePlanner) Doc() string {
	return "no planning: every block in the slowest level it may use (constants in the slowest, the others in the slowest writable one) for its whole life (a baseline)"
}

func (n nonePlanner) plan(r *run, _, whole context.Context) (string, error) {
	lay, err := baseline.NoPlanning(r.p)
	if err != nil {
		return "", &PlannerError{Planner: n.Name(), Err: err}
	}
	r.res.Times.Search = r.lap()
	if err := r.initial(whole); err != nil {
		return "", err
	}
	r.lay, r.cost = lay, costmodel.Total(r.model, r.p, lay)
	return "none: " + baseline.DescribeNoPlanning(r.p), nil
}
