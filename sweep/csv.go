package sweep

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hieropt/hieropt/inputerr"
)

// StatusValid is the status of a run whose plan passed the validator.
const StatusValid = "valid"

// Row is the outcome of one run: a line of the CSV.
type Row struct {
	Run      int    // index in the grid, from 0
	Workload string // workload name
	Profile  string // profile name, with the variant: ethos-u55[SRAM.bandwidth*0.5]
	Scale    string // the variant's label (SRAM.bandwidth*0.5), "" for the unscaled profile
	Values   []string
	// Status is StatusValid, or why there is no plan ("does not fit: ...",
	// "no plan: ..."). The costs and search statistics are set only for a
	// valid run.
	Status         string
	Initial, Final float64 // cost.initial and cost.final of the plan
	Seconds        float64 // time of the run (binding, planning, validating)
	Commits        int     // segments committed by the search
	Replans        int     // candidates re-planned
	ReplanSteps    int64   // timesteps re-planned
}

// Valid reports whether the run gave a valid plan.
func (r *Row) Valid() bool { return r.Status == StatusValid }

// Reduction is the final cost's reduction against the initial one, in
// percent (0 when the initial cost is 0).
func (r *Row) Reduction() float64 {
	if r.Initial == 0 {
		return 0
	}
	return 100 * (r.Initial - r.Final) / r.Initial
}

// BaseProfile is the name of the row's unscaled profile.
func (r *Row) BaseProfile() string {
	if r.Scale == "" {
		return r.Profile
	}
	return strings.TrimSuffix(r.Profile, "["+r.Scale+"]")
}

// Table is the rows of a sweep, or of one shard of it, in grid order.
type Table struct {
	Source string   // where it was read from, for errors
	Keys   []string // the swept settings, one column each
	Runs   int      // the grid's size: the runs of every shard together
	Rows   []Row
}

// The columns around the settings' columns.
var (
	headStart = []string{"run", "runs", "workload", "profile", "scale"}
	headEnd   = []string{"status", "initial_cost", "final_cost", "reduction_pct", "seconds", "commits", "replans", "replan_steps"}
)

// Header returns the CSV header of a sweep over keys: run, runs (the grid's
// size), workload, profile, scale, one column per key, status,
// initial_cost, final_cost, reduction_pct, seconds, commits, replans,
// replan_steps.
func Header(keys []string) []string {
	h := slices.Clone(headStart)
	h = append(h, keys...)
	return append(h, headEnd...)
}

// WriteCSV writes the table: the header, then a line per row. Costs are
// written exactly (shortest round-trip form), the reduction with 4
// decimals, seconds with 6; the costs and statistics are empty for a run
// without a plan.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header(t.Keys)); err != nil {
		return err
	}
	for i := range t.Rows {
		r := &t.Rows[i]
		rec := []string{strconv.Itoa(r.Run), strconv.Itoa(t.Runs), r.Workload, r.Profile, r.Scale}
		rec = append(rec, r.Values...)
		rec = append(rec, r.Status)
		if r.Valid() {
			rec = append(rec, ffmt(r.Initial), ffmt(r.Final), strconv.FormatFloat(r.Reduction(), 'f', 4, 64))
		} else {
			rec = append(rec, "", "", "")
		}
		rec = append(rec, strconv.FormatFloat(r.Seconds, 'f', 6, 64))
		if r.Valid() {
			rec = append(rec, strconv.Itoa(r.Commits), strconv.Itoa(r.Replans), strconv.FormatInt(r.ReplanSteps, 10))
		} else {
			rec = append(rec, "", "", "")
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func ffmt(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// ReadCSV reads a table written by WriteCSV; source names it in errors
// (*inputerr.Error, document `sweep CSV "source"`).
func ReadCSV(r io.Reader, source string) (*Table, error) {
	doc := inputerr.Doc("sweep CSV", source)
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, inputerr.New(doc, "", "empty: want the header line of a sweep CSV")
	}
	if err != nil {
		return nil, inputerr.New(doc, "", "%v", err)
	}
	n := len(headStart) + len(headEnd)
	if len(head) < n || !slices.Equal(head[:len(headStart)], headStart) || !slices.Equal(head[len(head)-len(headEnd):], headEnd) {
		return nil, inputerr.New(doc, "line 1", "not a sweep CSV header: want %s", strings.Join(Header([]string{"<settings>"}), ","))
	}
	t := &Table{Source: source, Keys: slices.Clone(head[len(headStart) : len(head)-len(headEnd)]), Runs: -1}
	for _, k := range t.Keys {
		if !slices.Contains(Keys, k) {
			return nil, inputerr.New(doc, "line 1", "unknown setting column %q (known: %s)", k, strings.Join(Keys, ", "))
		}
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, inputerr.New(doc, "", "%v", err)
		}
		line, _ := cr.FieldPos(0)
		item := fmt.Sprintf("line %d", line)
		row, runs, err := parseRow(rec, len(t.Keys))
		if err != nil {
			return nil, inputerr.New(doc, item, "%v", err)
		}
		if t.Runs >= 0 && runs != t.Runs {
			return nil, inputerr.New(doc, item, "runs %d: earlier lines say %d", runs, t.Runs)
		}
		t.Runs = runs
		t.Rows = append(t.Rows, row)
	}
	if t.Runs < 0 {
		t.Runs = 0
	}
	return t, nil
}

func parseRow(rec []string, nkeys int) (Row, int, error) {
	var r Row
	get := func(i int) string { return rec[i] }
	run, err := strconv.Atoi(get(0))
	if err != nil || run < 0 {
		return r, 0, fmt.Errorf("run %q: want an index >= 0", get(0))
	}
	runs, err := strconv.Atoi(get(1))
	if err != nil || runs <= run {
		return r, 0, fmt.Errorf("runs %q: want the grid's size, more than the run index %d", get(1), run)
	}
	r.Run, r.Workload, r.Profile, r.Scale = run, get(2), get(3), get(4)
	r.Values = slices.Clone(rec[len(headStart) : len(headStart)+nkeys])
	e := len(headStart) + nkeys
	r.Status = get(e)
	if r.Seconds, err = strconv.ParseFloat(get(e+4), 64); err != nil {
		return r, 0, fmt.Errorf("seconds %q: want a number", get(e+4))
	}
	if !r.Valid() {
		return r, runs, nil
	}
	if r.Initial, err = strconv.ParseFloat(get(e+1), 64); err != nil {
		return r, 0, fmt.Errorf("initial_cost %q: want a number", get(e+1))
	}
	if r.Final, err = strconv.ParseFloat(get(e+2), 64); err != nil {
		return r, 0, fmt.Errorf("final_cost %q: want a number", get(e+2))
	}
	if r.Commits, err = strconv.Atoi(get(e + 5)); err != nil {
		return r, 0, fmt.Errorf("commits %q: want an integer", get(e+5))
	}
	if r.Replans, err = strconv.Atoi(get(e + 6)); err != nil {
		return r, 0, fmt.Errorf("replans %q: want an integer", get(e+6))
	}
	if r.ReplanSteps, err = strconv.ParseInt(get(e+7), 10, 64); err != nil {
		return r, 0, fmt.Errorf("replan_steps %q: want an integer", get(e+7))
	}
	return r, runs, nil
}

// Merge joins the tables of the shards of one sweep into one table in grid
// order. Every table must have the same columns and grid size, and together
// they must hold each run 0..runs-1 exactly once: a missing run (its
// indexes are listed, the first 20) or a duplicated one is an error.
func Merge(tables ...*Table) (*Table, error) {
	if len(tables) == 0 {
		return nil, errors.New("nothing to merge")
	}
	out := &Table{Keys: tables[0].Keys, Runs: -1}
	var from string
	where := map[int]string{}
	for _, t := range tables {
		if !slices.Equal(t.Keys, out.Keys) {
			return nil, fmt.Errorf("%s sweeps %s but %s sweeps %s: not shards of one sweep", t.Source, keyList(t.Keys), tables[0].Source, keyList(out.Keys))
		}
		if len(t.Rows) > 0 {
			if out.Runs >= 0 && t.Runs != out.Runs {
				return nil, fmt.Errorf("%s has a grid of %d runs but %s of %d: not shards of one sweep", t.Source, t.Runs, from, out.Runs)
			}
			out.Runs, from = t.Runs, t.Source
		}
		for _, r := range t.Rows {
			if prev, dup := where[r.Run]; dup {
				if prev == t.Source {
					return nil, fmt.Errorf("run %d is twice in %s", r.Run, t.Source)
				}
				return nil, fmt.Errorf("run %d is in both %s and %s", r.Run, prev, t.Source)
			}
			where[r.Run] = t.Source
			out.Rows = append(out.Rows, r)
		}
	}
	if out.Runs < 0 {
		return nil, errors.New("no runs: every file is empty")
	}
	slices.SortFunc(out.Rows, func(a, b Row) int { return cmp.Compare(a.Run, b.Run) })
	var missing []string
	nmissing := 0
	for k := 0; k < out.Runs; k++ {
		if _, ok := where[k]; !ok {
			nmissing++
			if len(missing) < 20 {
				missing = append(missing, strconv.Itoa(k))
			}
		}
	}
	if nmissing > 0 {
		list := strings.Join(missing, ", ")
		if nmissing > len(missing) {
			list += fmt.Sprintf(" and %d more", nmissing-len(missing))
		}
		return nil, fmt.Errorf("%d of %d runs missing: %s (a shard not given or not finished?)", nmissing, out.Runs, list)
	}
	return out, nil
}

func keyList(keys []string) string {
	if len(keys) == 0 {
		return "no settings"
	}
	return strings.Join(keys, ",")
}
