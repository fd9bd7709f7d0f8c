// Command hieropt plans where the data of a neural network lives in a
// hierarchy of software-managed memories. Run `hieropt --help`.
package main

import (
	"os"

	"github.com/hieropt/hieropt/internal/heapgoal"
)

func main() {
	// The search allocates much and keeps little: a GC cycle per few MB
	// allocated cost 10-15% of the time (see package heapgoal). GOGC, if
	// set, overrides this.
	heapgoal.Start(heapgoal.DefaultFloor)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
