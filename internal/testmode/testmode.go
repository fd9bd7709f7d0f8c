// Package testmode says how much of each test runs.
//
// By default the tests run their quick variants, so that the README's test
// command, go test ./..., finishes in minutes on a 2-core machine: a few
// representative shipped pairs, tens of random programs. The exhaustive
// variants (every shipped workload on every profile, thousands of random
// programs, processes started per case) run where the environment variable
// HIEROPT_EXHAUSTIVE is set to anything but "" or "0"; CI sets it
// (.ci/run). -short always means the quick variants, and benchmarks keep
// using testing.Short for their largest sizes.
//
// The package is for tests only: Quick calls testing.Short, which needs
// the test binary's flags parsed.
package testmode

import (
	"os"
	"testing"
)

// Variable is the environment variable that turns the exhaustive variants on.
const Variable = "HIEROPT_EXHAUSTIVE"

// Exhaustive reports whether the exhaustive variants run: Variable is set
// (not to "0") and the tests do not run with -short.
func Exhaustive() bool {
	v := os.Getenv(Variable)
	return v != "" && v != "0" && !testing.Short()
}

// Quick reports whether the quick variants run: the opposite of Exhaustive.
func Quick() bool { return !Exhaustive() }

// SkipUnlessExhaustive skips t, saying why, unless the exhaustive variants run.
func SkipUnlessExhaustive(t testing.TB, why string) {
	t.Helper()
	if !Exhaustive() {
		t.Skipf("%s: exhaustive only (set %s=1, as CI does)", why, Variable)
	}
}
