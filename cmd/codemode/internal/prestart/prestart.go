// Package prestart starts the worker process of "codemode run" at the very
// beginning of the command's process, during package initialisation, so
// that the worker (the same binary) initialises while the command does,
// instead of after it: two initialisations side by side on two cores rather
// than one after the other.
//
// Go initialises a package as soon as its imports are, ties broken by
// import path; this one imports only os and spawn (which imports only os
// and syscall), so its init runs about a millisecond into the process,
// before the sandbox, the engine and their dependencies. Check with
// GODEBUG=inittrace=1 after changing its imports.
//
// The guess is made from the command line alone, and a wrong one costs only
// time: a worker nobody takes is killed at exit (Discard), and it dies with
// the command anyway; when none was started the pool starts one as before.
package prestart

import (
	"os"
	"sync/atomic"

	"github.com/codemode-dev/codemode/sandbox/worker/spawn"
)

// early is the worker started at init, until Take or Discard. Atomic: the
// command's tests set sessions up in parallel.
var early atomic.Pointer[spawn.Process]

func init() {
	early.Store(start(os.Args[1:]))
}

// start starts a worker if the command line args will want one. A worker
// that cannot be started is the pool's to report, when it tries itself.
func start(args []string) *spawn.Process {
	if !wantsWorker(args) {
		return nil
	}
	argv, err := spawn.Self()
	if err != nil {
		return nil
	}
	p, err := spawn.Start(argv)
	if err != nil {
		return nil
	}
	return p
}

// Take returns the worker started at init, if there is one, and forgets it:
// the caller owns it (worker.Config.Prestarted).
func Take() *spawn.Process {
	return early.Swap(nil)
}

// Discard kills the worker started at init if nobody took it: call it when
// the command is done.
func Discard() {
	if p := Take(); p != nil {
		p.Discard()
	}
}

// wantsWorker reports whether the command line (without the program) is a
// "codemode run" that will run its script in a worker: not --runner
// inprocess (the last --runner counts, as for the flag package), not a
// request for help. Flags may stand anywhere among the arguments.
func wantsWorker(args []string) bool {
	if len(args) == 0 || args[0] != "run" {
		return false
	}
	runner := ""
	for i := 1; i < len(args); i++ {
		switch a := args[i]; a {
		case "-h", "-help", "--help":
			return false
		case "-runner", "--runner":
			if i+1 < len(args) {
				i++
				runner = args[i]
			}
		default:
			for _, prefix := range []string{"-runner=", "--runner="} {
				if len(a) > len(prefix) && a[:len(prefix)] == prefix {
					runner = a[len(prefix):]
				}
			}
		}
	}
	return runner != "inprocess"
}
