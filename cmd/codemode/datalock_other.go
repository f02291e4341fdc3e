//go:build !unix

package main

// lockData takes no lock where flock(2) is missing (Windows, Plan 9,
// WASI): there, nothing keeps two servers off one data directory, and
// docs/cli.md says so.
func lockData(path string) (unlock func(), err error) {
	return func() {}, nil
}
