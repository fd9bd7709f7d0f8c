package main

import (
	"cmp"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
	"github.com/hieropt/hieropt/workloads"
)

// isBuiltinName reports whether arg looks like a built-in name rather than
// a path: no directory separator and no extension.
func isBuiltinName(arg string) bool {
	return !strings.ContainsAny(arg, `/\`) && filepath.Ext(arg) == ""
}

// loadWorkload reads a workload from a file, stdin ("-") or the built-ins
// (package workloads).
func (a *app) loadWorkload(arg string) (*workload.Program, string, error) {
	if arg == "" {
		return nil, "", usageErrorf("--workload is required (a file, - for stdin, or a built-in: %s)", strings.Join(workloads.Names(), ", "))
	}
	a.noteInput(workload.DocName(arg), arg)
	if arg == "-" {
		data, err := a.readStdin(workload.DocName("-"))
		if err != nil {
			return nil, "", err
		}
		a.noteLoading("the workload on stdin", int64(len(data)))
		p, err := workload.Parse("-", data)
		if err == nil {
			err = a.checkProgramSize(workload.DocName("-"), p)
		}
		return p, workload.DocName("-"), err
	}
	if err := a.checkInputSize(workload.DocName(arg), arg); err != nil {
		return nil, "", err
	}
	if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
		a.noteLoading(arg, st.Size())
	}
	p, err := workload.ReadFile(arg)
	if err == nil {
		return p, workload.DocName(arg), a.checkProgramSize(workload.DocName(arg), p)
	}
	if errors.Is(err, fs.ErrNotExist) && isBuiltinName(arg) {
		if data, ok := workloads.JSON(arg); ok {
			// The memory limit holds for a built-in as for its file: the
			// same estimates, before decoding and before planning.
			doc := workload.DocName("builtin:" + arg)
			if err := a.checkDataSize(doc, int64(len(data))); err != nil {
				return nil, "", err
			}
			p, err := workloads.Get(arg)
			if err == nil {
				err = a.checkProgramSize(doc, p)
			}
			return p, doc, err
		}
		return nil, "", inputerr.New(workload.DocName(arg), "", "no such file and no built-in workload of that name (built-ins: %s)", strings.Join(workloads.Names(), ", "))
	}
	return nil, "", err // cannot read the file, or it breaks FORMATS.md
}

// loadProfile reads a profile from a file, stdin ("-") or the built-ins.
func (a *app) loadProfile(arg string) (*hw.Profile, error) {
	p, _, err := a.readProfile(arg)
	return p, err
}

// readProfile is loadProfile that also returns the keys of the document
// that the reader ignored (none for a built-in).
func (a *app) readProfile(arg string) (*hw.Profile, []hw.Ignored, error) {
	if arg == "" {
		return nil, nil, usageErrorf("--hw is required (a YAML file or a built-in: %s)", strings.Join(profiles.Names(), ", "))
	}
	a.noteInput(hw.DocName(arg), arg)
	if arg == "-" {
		data, err := io.ReadAll(a.stdin)
		if err != nil {
			return nil, nil, &inputerr.Error{Doc: hw.DocName("-"), Rule: "cannot read stdin: " + err.Error(), Err: err}
		}
		return hw.ParseIgnored("-", data)
	}
	if data, err := os.ReadFile(arg); err == nil {
		return hw.ParseIgnored(arg, data)
	}
	p, err := profiles.Load(arg) // the built-in, or why there is no file
	return p, nil, err
}

// loadProblem loads and binds a workload and a profile.
func (a *app) loadProblem(workloadArg, hwArg string) (*state.Problem, error) {
	prog, prof, doc, err := a.loadDocuments(workloadArg, hwArg)
	if err != nil {
		return nil, err
	}
	return bindProblem(prog, prof, doc)
}

// loadDocuments loads a workload and a profile, and returns the name of
// the workload's document for errors (workload.DocName of its file).
func (a *app) loadDocuments(workloadArg, hwArg string) (*workload.Program, *hw.Profile, string, error) {
	if workloadArg == "-" && hwArg == "-" {
		return nil, nil, "", usageErrorf("--workload and --hw cannot both read stdin")
	}
	prog, doc, err := a.loadWorkload(workloadArg)
	if err != nil {
		return nil, nil, "", err
	}
	prof, err := a.loadProfile(hwArg)
	if err != nil {
		return nil, nil, "", err
	}
	return prog, prof, doc, nil
}

func bindProblem(prog *workload.Program, prof *hw.Profile, doc string) (*state.Problem, error) {
	return state.Bind(prog, prof, doc)
}

// planProblem returns p bound with the semantics of pl's cost model
// (state.Semantics): a timeline plan carries copy starts, loads and
// resident constants, which only a problem bound for the timeline model
// reads. p itself where it already has them or the model is another (or
// unknown: the checker names it).
func planProblem(p *state.Problem, pl *plan.Plan) (*state.Problem, error) {
	m, ok := costmodel.Lookup(cmp.Or(pl.CostModel, costmodel.Default))
	if !ok || m.Timeline() == p.Timeline() {
		return p, nil
	}
	q, err := state.Bind(p.Prog, p.HW, "workload", state.Semantics{Timeline: m.Timeline()})
	if err != nil { // p's documents bound once already
		return nil, internalErrorf("binding %s for the %s model: %v", p.Prog.Name, m.Name(), err)
	}
	return q, nil
}

// readStdin reads standard input, up to what the memory limit allows.
func (a *app) readStdin(doc string) ([]byte, error) {
	r := a.stdin
	limit := int64(-1)
	if a.maxMemory > 0 {
		limit = a.maxMemory / bytesPerByteIn
		r = io.LimitReader(r, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &inputerr.Error{Doc: doc, Rule: "cannot read stdin: " + err.Error(), Err: err}
	}
	if limit >= 0 && int64(len(data)) > limit {
		return nil, inputerr.New(doc, "", "more than %d bytes on stdin would need more memory than --max-memory (%s)", limit, fmtBytes(a.maxMemory))
	}
	return data, nil
}
