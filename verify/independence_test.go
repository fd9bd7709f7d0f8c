package verify_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/verify"
)

// TestIndependence reads the package's own source (not its tests) and
// checks that it stays independent of the planner: it imports only the
// standard library and the plain-data packages (the documents and the
// input error type), and calls none of workload's or hw's planner helpers,
// so that a bug in them cannot hide a broken plan. TestDependencies checks
// the same of everything it imports, transitively.
func TestIndependence(t *testing.T) {
	allowed := []string{
		"github.com/hieropt/hieropt/hw",
		"github.com/hieropt/hieropt/inputerr",
		"github.com/hieropt/hieropt/plan",
		"github.com/hieropt/hieropt/workload",
	}
	// Methods and functions of the planner's side: workload's indexes, kind
	// rule and validation, the profile's lookups, plan's validator.
	forbidden := []string{"CanReuse", "BlockID", "Created", "Dying", "Accessed", "Validate",
		"LevelIndex", "BlockItem", "LevelItem", "FromLayout", "Time"}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		checked++
		for _, imp := range file.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			if strings.Contains(path, ".") || strings.HasPrefix(path, "github.com/") {
				assert.Contains(t, allowed, path, "%s imports %s", f, path)
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && slices.Contains(forbidden, sel.Sel.Name) {
				assert.Failf(t, "planner helper used", "%s: %s uses .%s", f, fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
	assert.Greater(t, checked, 3)
}

// documents are the packages of hieropt that verify may depend on, through
// any chain of imports: the three documents (plain data, their readers
// and writers) and what they use. Nothing of the planner (state, actions,
// costmodel, search, repack, arena, pack, segments, ...).
var documents = []string{
	"github.com/hieropt/hieropt/hw",
	"github.com/hieropt/hieropt/inputerr",
	"github.com/hieropt/hieropt/internal/docjson",
	"github.com/hieropt/hieropt/plan",
	"github.com/hieropt/hieropt/verify",
	"github.com/hieropt/hieropt/workload",
}

// TestDependencies runs `go list -deps` on the package: of hieropt's
// packages it depends on, transitively, only on the documents (documents):
// no planner package. (Other modules, such as the YAML reader of the
// profiles, are the documents' readers.)
func TestDependencies(t *testing.T) {
	deps := goListDeps(t, ".")
	require.Contains(t, deps, "github.com/hieropt/hieropt/plan", "the listing is verify's")
	for _, dep := range deps {
		if dep == module || strings.HasPrefix(dep, module+"/") {
			assert.Contains(t, documents, dep, "verify depends on %s (go list -deps ./verify)", dep)
		}
	}
}

// module is hieropt's module path.
const module = "github.com/hieropt/hieropt"

// goListDeps returns the import paths `go list -deps pkg` prints. It skips
// the test if there is no go command.
func goListDeps(t *testing.T, pkg string) []string {
	t.Helper()
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the dependencies with: %v", err)
	}
	cmd := exec.Command(gocmd, "list", "-deps", "-json=ImportPath", pkg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list -deps %s: %s", pkg, stderr.String())
	var deps []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct{ ImportPath string }
		require.NoError(t, dec.Decode(&p))
		deps = append(deps, p.ImportPath)
	}
	require.NotEmpty(t, deps)
	return deps
}

// TestModelsAreThePlanners: Check knows every cost model the planner
// registers (package costmodel), under the same names, and no other: a
// model added to the planner needs its own code here. The one exception is
// the timeline model (FORMATS.md section 6), which the checker knows before
// the planner registers it: until then, the checker's models are the
// planner's and "timeline"; once registered, exactly the planner's.
func TestModelsAreThePlanners(t *testing.T) {
	planner := costmodel.Names()
	if !slices.Contains(planner, verify.TimelineModel) {
		planner = append(slices.Clone(planner), verify.TimelineModel)
		slices.Sort(planner)
	}
	assert.Equal(t, planner, verify.Models())
}
