package verify_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIndependence reads the package's own source (not its tests) and
// checks that it stays independent of the planner: it imports only the
// standard library and the plain-data packages (the documents and the
// input error type), and calls none of workload's or hw's planner helpers
// or plan's validator, so that a bug in them cannot hide a broken plan.
//
// (Package plan itself still imports state, actions and costmodel for
// FromLayout and Validate, so `go list -deps` shows them through plan;
// this test holds verify's own code to the rule.)
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
