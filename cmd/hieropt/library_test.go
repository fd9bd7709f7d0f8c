package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/segments"
	"github.com/hieropt/hieropt/workload"
)

// TestLibraryWritesWhatTheCommandWrites: for the same documents and
// settings, hieropt.Plan (what a compiler calls) and `hieropt optimize -o`
// write byte-identical plans: the same planner, the same description of it
// in the plan, the same costs, the same placements. The settings are the
// flags' equivalents: the defaults, --no-search, --initializer pack,
// --repack 0, --segments every --beam 1, --initial-only and --cost-model
// vela-dma; the pairs include one where the initializer fails and the
// plans start from the fallback plan.
func TestLibraryWritesWhatTheCommandWrites(t *testing.T) {
	dir := t.TempDir()
	// MiniMalloc's instance C on one level of its capacity: the
	// initializer cannot place a block (the fallback plan).
	fallback := filepath.Join(dir, "C.json")
	r := runCLI(t, "", "import", "minimalloc", repo("testdata", "minimalloc", "C.1048576.csv"), "-o", fallback)
	require.Equal(t, exitOK, r.code, r.stderr)
	pairs := [][2]string{
		{"resnet50-int8", "ethos-u55"},
		{"squeezenet1_1-int8", "k210"},
		{"seed000-example", repo("testdata", "hw", "two-level-5k.yaml")},
		{fallback, repo("testdata", "hw", "one-level-1MiB.yaml")},
	}
	if testmode.Quick() {
		pairs = pairs[2:]
	}
	settings := []struct {
		flags []string
		s     *hieropt.Settings
	}{
		{nil, nil},
		{[]string{"--no-search"}, &hieropt.Settings{Planner: "initializer"}},
		{[]string{"--initializer", "pack"}, &hieropt.Settings{Planner: "pack"}},
		{[]string{"--repack", "0"}, &hieropt.Settings{Repack: new(0)}},
		{[]string{"--segments", "every", "--beam", "1"}, &hieropt.Settings{Search: search.Settings{Segments: segments.Fixed(1), Beam: 1}}},
		{[]string{"--initial-only"}, &hieropt.Settings{Starts: []string{"workload"}}},
		{[]string{"--cost-model", "vela-dma"}, &hieropt.Settings{CostModel: "vela-dma"}},
	}
	for _, pr := range pairs {
		prog := loadWorkloadArg(t, pr[0])
		prof, err := profiles.Load(pr[1])
		require.NoError(t, err)
		for _, c := range settings {
			name := prog.Name + "/" + filepath.Base(pr[1]) + "/" + joinArgs(c.flags)
			t.Run(name, func(t *testing.T) {
				out := filepath.Join(dir, "cli.json")
				args := append([]string{"optimize", "--workload", pr[0], "--hw", pr[1], "-q", "-o", out}, c.flags...)
				r := runCLI(t, "", args...)
				if r.code == exitFailed {
					// No plan (pack's arena fits no level, say): the library
					// says so too, with the same words.
					_, err := hieropt.Plan(context.Background(), prog, prof, c.s)
					require.Error(t, err)
					assert.Equal(t, "hieropt: "+err.Error()+"\n", r.stderr)
					return
				}
				require.Equal(t, exitOK, r.code, r.stderr)
				cli, err := os.ReadFile(out)
				require.NoError(t, err)

				res, err := hieropt.Plan(context.Background(), prog, prof, c.s)
				require.NoError(t, err)
				var lib bytes.Buffer
				require.NoError(t, res.Plan.Write(&lib))
				assert.Equal(t, string(cli), lib.String())
				verifyPlan(t, pr[0], pr[1], out)
			})
		}
	}
}

// loadWorkloadArg reads a workload as --workload does: a file or a
// built-in name.
func loadWorkloadArg(t *testing.T, arg string) *workload.Program {
	t.Helper()
	a := &app{}
	prog, _, err := a.loadWorkload(arg)
	require.NoError(t, err)
	return prog
}

func joinArgs(args []string) string {
	if len(args) == 0 {
		return "defaults"
	}
	var b bytes.Buffer
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a)
	}
	return b.String()
}

// TestHelpListsRegistries: optimize --help lists every registered
// planner, cost model, segment strategy and initializer order with its
// doc, from the registries.
func TestHelpListsRegistries(t *testing.T) {
	r := runCLI(t, "", "optimize", "--help")
	require.Equal(t, exitOK, r.code, r.stderr)
	help := strings.Join(strings.Fields(r.stdout), " ")
	var names, docs []string
	for _, pl := range hieropt.Planners() {
		names, docs = append(names, pl.Name()), append(docs, pl.Doc())
	}
	for _, m := range costmodel.Models() {
		names, docs = append(names, m.Name()), append(docs, m.Doc())
	}
	for _, k := range segments.Kinds() {
		names, docs = append(names, k.Spec), append(docs, k.Doc())
	}
	for _, o := range actions.Orders() {
		names, docs = append(names, o.Name()), append(docs, o.Doc())
	}
	require.Len(t, names, len(hieropt.PlannerNames())+len(costmodel.Names())+len(segments.Kinds())+len(actions.OrderNames()))
	for i, n := range names {
		assert.Contains(t, help, " "+n+" "+strings.Join(strings.Fields(docs[i]), " "), n)
	}
}
