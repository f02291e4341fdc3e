package worker

import (
	"os"
	"os/exec"
	"syscall"
)

// detach makes the worker die with the host (a host killed with SIGKILL
// must not leave workers behind) and puts it in a process group of its own,
// so a signal meant for the host's group is not also the workers'.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// peakRSS is an ended worker's largest resident set in bytes.
func peakRSS(st *os.ProcessState) int64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10 // kilobytes on Linux
	}
	return 0
}
