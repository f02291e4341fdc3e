//go:build !unix

package wasm

import "time"

var processStart = time.Now()

// cpuTime stands in for the CPU time this process has used where it cannot
// be read: the time since it started, so that waiting for CPU time to be
// used waits as long instead.
func cpuTime() time.Duration { return time.Since(processStart) }
