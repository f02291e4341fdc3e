//go:build !linux

package worker

import "os"

// readyWaiter is built on Linux only (idle_linux.go): elsewhere the
// worker's script loop parks at once.
type readyWaiter struct{}

func newReadyWaiter(*os.File) *readyWaiter { return nil }

func (*readyWaiter) wait() {}
