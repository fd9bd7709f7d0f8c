package plan_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocumentOnly runs `go list -deps` on the package: the plan document
// depends on the standard library and on hieropt's input errors and JSON
// reader only, nothing of the planner (the planner's side converts its
// layouts: state.Layout.Plan, state.LayoutOf). It skips if there is no go
// command.
func TestDocumentOnly(t *testing.T) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the dependencies with: %v", err)
	}
	cmd := exec.Command(gocmd, "list", "-deps", "-json=ImportPath,Standard", ".")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list -deps: %s", stderr.String())
	allowed := []string{
		"github.com/hieropt/hieropt/inputerr",
		"github.com/hieropt/hieropt/internal/docjson",
		"github.com/hieropt/hieropt/plan",
	}
	n := 0
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); n++ {
		var p struct {
			ImportPath string
			Standard   bool
		}
		require.NoError(t, dec.Decode(&p))
		if !p.Standard {
			assert.Contains(t, allowed, p.ImportPath, "plan depends on %s (go list -deps ./plan)", p.ImportPath)
		}
	}
	assert.Greater(t, n, len(allowed))
}
