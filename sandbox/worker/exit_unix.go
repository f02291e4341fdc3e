//go:build unix

package worker

import (
	"os"
	"syscall"
)

// endSignal is the signal that ended a worker, if one did.
type endSignal struct {
	name       string
	kill, xcpu bool
}

func signalOf(st *os.ProcessState) endSignal {
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return endSignal{}
	}
	sig := ws.Signal()
	return endSignal{name: sig.String(), kill: sig == syscall.SIGKILL, xcpu: sig == syscall.SIGXCPU}
}
