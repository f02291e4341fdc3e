//go:build unix

package worker

import (
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"
)

// applyLimits bounds the worker process itself before any script runs:
// RLIMIT_DATA caps its memory (Go's heap and stacks are private mappings,
// which the data limit counts; RLIMIT_AS would also count the runtime's
// large reservations and kill it at start), no core files, and a smaller
// largest goroutine stack so that runaway recursion in Go ends quickly.
func applyLimits(cfg configMsg) error {
	runtime.GOMAXPROCS(workerProcs)
	if cfg.MemoryBytes > 0 && !RaceDetector {
		lim := uint64(cfg.MemoryBytes)
		if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			return err
		}
	}
	_ = syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{})
	if cfg.StackBytes > 0 {
		debug.SetMaxStack(cfg.StackBytes)
	}
	// Go ignores SIGXCPU unless asked: exit on it, saying why.
	xcpu := make(chan os.Signal, 1)
	signal.Notify(xcpu, syscall.SIGXCPU)
	go func() {
		<-xcpu
		os.Stderr.WriteString(cpuLimitMessage + "\n")
		os.Exit(4)
	}()
	return nil
}

// dataLimited reports whether workers run under RLIMIT_DATA (applyLimits):
// not under the race detector.
func dataLimited() bool { return !RaceDetector }

// workerProcs bounds a worker's parallelism: a script is one thread of
// JavaScript plus the garbage collector, and must not spread over every core
// of the host. It also makes the CPU limit below meaningful. One: with a
// second processor every result that reached the worker's reader woke the
// idle one too, and a tool call cost 140 µs against 65 µs with one
// (BenchmarkCallRoundTrip, -cpu 1, interleaved, a shared 2-core machine),
// Execute/worker/js 3.2 ms against 2.4 ms. Scripts that compute and allocate
// a lot pay for it: a 200,000-object sort ran ≈ 15 % slower, the collector
// sharing the script's thread.
const workerProcs = 1

// setCPULimit lets the coming run use at most workerProcs+1 times its time
// budget of CPU (plus two seconds: the limit counts whole seconds) on top of
// what the worker has used so far; past it the kernel ends the worker with
// SIGXCPU. A backstop under the host's wall-clock one.
func setCPULimit(budget time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return
	}
	used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	secs := uint64((used+(workerProcs+1)*budget)/time.Second) + 2
	var cur syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CPU, &cur) != nil || secs > cur.Max {
		return
	}
	_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: secs, Max: cur.Max})
}

// closeInherited closes every descriptor the worker inherited beyond its
// three pipes. Go opens all its own descriptors close-on-exec, so one that
// survived the exec without that flag was left open by some ancestor (a
// shell, a supervisor) and is closed here, before any script runs.
func closeInherited() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return // no /proc: nothing to enumerate with
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if errno == 0 && flags&syscall.FD_CLOEXEC == 0 {
			_ = syscall.Close(fd)
		}
	}
}
