// Package banner prints a line to stdout in its init, as some libraries
// do. It does not import sandbox/worker, so Go may initialise it first
// (packages that do not depend on each other go in import-path order),
// in a worker process too, before the worker's hello.
package banner

import "os"

func init() {
	os.Stdout.WriteString("banner 1.0\n")
}
