//go:build !linux

package worker

import (
	"os"
	"os/exec"
)

// detach: without Linux's parent-death signal, a worker ends when its stdin
// closes, which happens when the host exits.
func detach(*exec.Cmd) {}

// peakRSS is unknown here (the units of Maxrss differ between systems).
func peakRSS(*os.ProcessState) int64 { return 0 }
