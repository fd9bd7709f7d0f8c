// Command hieropt-minimalloc is MiniMalloc's binary with hieropt's packer
// inside: it takes MiniMalloc's command line as it is,
//
//	hieropt-minimalloc --capacity=N --input=in.csv --output=out.csv
//
// and writes MiniMalloc's output file, so that a compiler that calls
// MiniMalloc's binary can call it instead (for Deeploy: a link named
// minimalloc to it in $MINIMALLOC_INSTALL_DIR). `hieropt minimalloc` is the
// same command. See package internal/minimalloccli for the flags, the
// formats and the exit codes.
package main

import (
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/hieropt/hieropt/internal/heapgoal"
	"github.com/hieropt/hieropt/internal/minimalloccli"
)

func main() {
	heapgoal.Start(heapgoal.DefaultFloor)
	os.Exit(minimalloccli.Run(os.Args[1:], minimalloccli.Env{
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Program: filepath.Base(os.Args[0]),
		Version: version(),
	}))
}

// version is the module version the binary was built from.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
