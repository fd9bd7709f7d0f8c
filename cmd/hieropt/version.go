package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildVersion, when set at link time (-ldflags "-X main.buildVersion=v1.2.0"),
// is the version the binary reports, before anything its build info says.
var buildVersion string

// version is the version the binary was built from: buildVersion if set;
// else the main module's version (a tagged release, or the pseudo-version
// `go install module@version` and builds in a repository record); else the
// VCS revision the build info records (12 hex digits, "+dirty" when the tree
// had changes); else "devel".
func version() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(buildVersion, bi, ok)
}

func versionOf(linked string, bi *debug.BuildInfo, ok bool) string {
	if linked != "" {
		return linked
	}
	if !ok || bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "devel-" + rev
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, and the Go toolchain and platform the binary was built for",
		Long: `version prints hieropt's version as --version does (a release, the module's
pseudo-version, or devel-REVISION of the source it was built from, "+dirty"
when that had uncommitted changes), then the Go version and the platform.`,
		Args: exactArgs(0),
		RunE: func(_ *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(a.stdout, "hieropt %s (%s, %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
