//go:build unix

package worker

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"time"
)

// spinReader reads a pipe that the Go runtime polls, spinning a little
// before it parks: when a read would block and spin allows it, it tries
// again without blocking, for up to spinFor (yielding the processor between
// tries if it is the only one). A frame that comes within that time is read by a goroutine that
// is already running, instead of one the runtime must wake up on another
// thread. Outside spinning it reads as the file would.
type spinReader struct {
	f      *os.File
	rc     syscall.RawConn
	spin   func() bool // whether a reply is due soon; nil: never spin
	policy spinPolicy  // Read is called by one goroutine at a time
}

// newSpinReader wraps f when the runtime polls it (a pipe made by os.Pipe,
// or a descriptor opened in non-blocking mode), which is what a read
// deadline needs; otherwise it returns f as it is.
func newSpinReader(f *os.File, spin func() bool) io.Reader {
	if f.SetReadDeadline(time.Time{}) != nil {
		return f
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	return &spinReader{f: f, rc: rc, spin: spin}
}

func (r *spinReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	err := r.rc.Read(func(fd uintptr) bool {
		var start time.Time
		var alone bool
		for {
			n, rerr = syscall.Read(int(fd), p)
			switch rerr {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
			default:
				if !start.IsZero() {
					r.policy.hit()
				}
				return true
			}
			if start.IsZero() {
				if r.spin == nil || !r.spin() || !r.policy.allow() || !spinners.enter() {
					return false // park until the runtime sees data
				}
				defer spinners.leave()
				start = time.Now()
				alone = runtime.GOMAXPROCS(0) == 1
			} else if time.Since(start) > spinFor {
				r.policy.miss()
				return false
			}
			if alone {
				// The goroutine that the frame read last readied (the
				// run's, at its end) runs on this processor or nowhere.
				// With more, it is taken by another one (and a yield would
				// wake an idle processor at every try).
				runtime.Gosched()
			}
		}
	})
	if err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: rerr}
	}
	if n <= 0 {
		return 0, io.EOF
	}
	return n, nil
}

// pollable makes a worker's stdin, which it inherits in blocking mode, a
// descriptor the runtime polls: the goroutine reading it then parks instead
// of holding a thread in read, so that a settlement it passes to the
// script's event loop runs on the same thread, and the loop can wait for
// the next one (readyWaiter). The new file shares f's descriptor, so f must
// stay reachable (os.Stdin does), or its finalizer closes it. It returns f
// unchanged if that fails.
func pollable(f *os.File) *os.File {
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
