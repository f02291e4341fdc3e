//go:build !unix

package worker

import "os"

// endSignal is the signal that ended a worker: none outside Unix.
type endSignal struct {
	name       string
	kill, xcpu bool
}

func signalOf(*os.ProcessState) endSignal { return endSignal{} }
