package spawn

import "syscall"

// sysProcAttr makes the worker die with the host (a host killed with
// SIGKILL must not leave workers behind) and puts it in a process group of
// its own, so a signal meant for the host's group is not also the workers'.
//
// The parent-death signal is tied to the thread that started the worker:
// started during package initialisation, that is the main thread, which
// lives as long as the process.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}
