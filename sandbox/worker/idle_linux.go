package worker

import (
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// readyWaiter is how the worker's script loop waits for its calls'
// settlements (js.Idler): before the loop parks, it spins until the
// worker's stdin has something to read, for up to spinFor. The loop's
// thread then parks with the stdin reader runnable, and the scheduler runs
// the reader on that same thread at once, instead of a thread asleep in
// the poller being woken up for it. The reader itself never spins: it
// hands each settlement to the loop, which runs next on its thread.
type readyWaiter struct {
	rc     syscall.RawConn
	mu     sync.Mutex // one waiter at a time: an abandoned run's loop may still call
	policy spinPolicy
}

// newReadyWaiter waits on f, a file the runtime polls (pollable); nil if
// it is not.
func newReadyWaiter(f *os.File) *readyWaiter {
	if f.SetReadDeadline(time.Time{}) != nil {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	return &readyWaiter{rc: rc}
}

func (w *readyWaiter) wait() {
	if w == nil || !w.mu.TryLock() {
		return
	}
	defer w.mu.Unlock()
	if !w.policy.allow() || !spinners.enter() {
		return
	}
	defer spinners.leave()
	alone := runtime.GOMAXPROCS(0) == 1 // the reader needs this processor: yield it
	for start := time.Now(); ; {
		if w.readable() {
			w.policy.hit()
			return
		}
		if time.Since(start) > spinFor {
			w.policy.miss()
			return
		}
		if alone {
			runtime.Gosched()
		}
	}
}

// readable reports whether a read would not block (data, the end of the
// stream, or an error to report), without reading.
func (w *readyWaiter) readable() bool {
	ready := true // on any failure: return, the reader will see
	_ = w.rc.Control(func(fd uintptr) {
		pfd := struct {
			fd             int32
			events, revent int16
		}{fd: int32(fd), events: 0x1} // POLLIN
		var zero syscall.Timespec
		n, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&zero)), 0, 0, 0)
		ready = errno != 0 || n > 0
	})
	return ready
}
