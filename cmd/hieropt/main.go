// Command hieropt plans where the data of a neural network lives in a
// hierarchy of software-managed memories. Run `hieropt --help`.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
