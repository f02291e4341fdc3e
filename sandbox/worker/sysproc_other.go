//go:build !linux

package worker

import "os/exec"

// detach: without Linux's parent-death signal, a worker ends when its stdin
// closes, which happens when the host exits.
func detach(*exec.Cmd) {}
