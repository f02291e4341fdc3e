// Package spawn starts worker processes: the one way sandbox/worker's pool,
// and a command that starts its worker before main (see
// cmd/codemode/internal/prestart), start one.
//
// It imports nothing but os and syscall on purpose: Go initialises a
// package once its imports are, so a package that uses this one can start
// a worker at the very beginning of the process, while the rest of the
// binary (the sandbox, the engine) still initialises, and the two
// initialisations overlap.
package spawn

import (
	"os"
)

// Arg is the argument that makes a binary a worker (worker.Main answers it,
// from package worker's init).
const Arg = "__codemode_worker__"

// Self is the command that starts this binary as a worker: its own
// executable, with Arg.
func Self() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return []string{exe, Arg}, nil
}

// Process is a started worker process with its three pipes.
type Process struct {
	*os.Process
	Stdin  *os.File // the writing end of the worker's stdin
	Stdout *os.File // the reading end of its stdout
	Stderr *os.File // the reading end of its stderr
}

// Start starts argv (argv[0] a path, not looked up) with no environment,
// its stdin, stdout and stderr pipes to the caller, and no other
// descriptor; on Linux it dies with the thread that started it (see
// sysProcAttr) and has a process group of its own.
func Start(argv []string) (*Process, error) {
	var ends []*os.File // every end made so far, closed on failure
	closeAll := func() {
		for _, f := range ends {
			f.Close()
		}
	}
	var pipes [3][2]*os.File // [stdin, stdout, stderr][read, write]
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, err
		}
		pipes[i] = [2]*os.File{r, w}
		ends = append(ends, r, w)
	}
	stdin, stdout, stderr := pipes[0], pipes[1], pipes[2]
	p, err := os.StartProcess(argv[0], argv, &os.ProcAttr{
		Env:   []string{}, // not nil, which would be the host's: nothing of it leaks in
		Files: []*os.File{stdin[0], stdout[1], stderr[1]},
		Sys:   sysProcAttr(),
	})
	if err != nil {
		closeAll()
		return nil, err
	}
	// The worker's ends are its own now.
	stdin[0].Close()
	stdout[1].Close()
	stderr[1].Close()
	return &Process{Process: p, Stdin: stdin[1], Stdout: stdout[0], Stderr: stderr[0]}, nil
}

// Discard kills the process and waits for it, closing its pipes: for a
// worker nobody will use.
func (p *Process) Discard() {
	_ = p.Kill()
	_, _ = p.Wait()
	p.Stdin.Close()
	p.Stdout.Close()
	p.Stderr.Close()
}
