package worker

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/worker/spawn"
)

// proc is one worker process, seen from the host.
type proc struct {
	process *spawn.Process
	state   *os.ProcessState // how it ended; set before exited is closed
	memory  int64

	wmu sync.Mutex // guards out
	out *bufio.Writer
	in  io.Closer

	frames    chan frame    // from the reader goroutine; closed when the worker's stdout ends
	exited    chan struct{} // closed when the process has been waited for
	dead      chan struct{} // closed by kill
	stderr    *capWriter
	tools     []string        // the tool names the worker has
	modules   map[uint64]bool // the WASM modules the worker has been sent
	runs      int             // runs and calls done
	idleSince time.Time       // when it was last put in the pool's idle list

	turns atomic.Pointer[func(more bool, body []byte) (bad string)] // the running script's, see run

	lastAsync chan struct{} // closed when the last sendAsync's frame is out; the taker's

	killOnce sync.Once
	killed   atomic.Bool // by the pool (a writer blocked on a deaf worker holds wmu)
}

type frame struct {
	kind byte
	body []byte
	bad  string // the reader found the frame breaks the protocol
	err  error  // the reader's error; the last frame
}

// startProc starts a worker, sends its configuration and waits for it to
// be ready.
func startProc(cfg Config) (*proc, error) {
	argv := cfg.Command
	if name := argv[0]; filepath.Base(name) == name { // a bare name is looked up in $PATH, as exec.Command does
		path, err := exec.LookPath(name)
		if err != nil {
			return nil, err
		}
		argv = append([]string{path}, argv[1:]...)
	}
	sp, err := spawn.Start(argv)
	if err != nil {
		return nil, err
	}
	return adoptProc(cfg, sp)
}

// startTimeout is how long a worker has to say hello and, after its
// configuration, that it is ready.
const startTimeout = 10 * time.Second

// adoptProc takes a started worker process over: it captures its stderr,
// checks its hello (it is a codemode worker of this protocol), reads its
// frames, sends its configuration (which applies its limits) and waits for
// it to be ready.
func adoptProc(cfg Config, sp *spawn.Process) (*proc, error) {
	w := &proc{process: sp, memory: cfg.MemoryBytes, modules: make(map[uint64]bool), frames: make(chan frame, 16), exited: make(chan struct{}), dead: make(chan struct{}), stderr: &capWriter{max: 16 << 10}}
	w.in, w.out = sp.Stdin, bufio.NewWriterSize(sp.Stdin, 64<<10)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		_, _ = io.Copy(w.stderr, sp.Stderr)
		sp.Stderr.Close()
	}()
	hello := make(chan error, 1)
	// During a run the worker's next frame (a turn of calls, its answer) is
	// due soon after the last: spin for it (spinReader).
	in := newSpinReader(sp.Stdout, func() bool { return w.turns.Load() != nil })
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		hello <- readHello(r)
		w.read(r, stderrDone) // after a bad hello, until the process is reaped
	}()
	t := time.NewTimer(startTimeout)
	defer t.Stop()
	select {
	case err := <-hello:
		if err != nil {
			why := err.Error()
			if he := (*helloError)(nil); errors.As(err, &he) && he.ended {
				// It is ending by itself: let it, to report how.
				select {
				case <-w.exited:
					if w.state != nil {
						why += " (" + w.state.String() + ")"
					}
				case <-time.After(time.Second):
				}
			}
			w.kill() // not waited for: a child of it may hold its output open
			return nil, notAWorker(cfg.Command, why+w.stderr.firstLine("; its stderr: "))
		}
	case <-t.C:
		w.kill()
		return nil, notAWorker(cfg.Command, fmt.Sprintf("it wrote no hello within %v (or the machine is too busy to start a process in that time)", startTimeout))
	}
	if err := w.send(kindConfig, configMsg{MemoryBytes: cfg.MemoryBytes, StackBytes: cfg.StackBytes, WasmCacheDir: cfg.WasmCacheDir, Hardened: cfg.profile() == js.Hardened}); err != nil {
		w.kill()
		return nil, err
	}
	select {
	case f := <-w.frames:
		if f.kind == kindReady && f.err == nil {
			return w, nil
		}
		w.kill()
		if f.err != nil {
			<-w.exited
			return nil, fmt.Errorf("the worker ended at start: %v%s", f.err, w.stderr.firstLine(": "))
		}
		return nil, errors.New("the worker did not start properly")
	case <-t.C:
		w.kill()
		return nil, fmt.Errorf("the worker did not start within %v", startTimeout)
	}
}

// read passes the worker's frames on until its stdout ends or misbehaves,
// then waits for the process to end and for its stderr to be captured.
// Once the worker is killed nobody reads frames any more: they are dropped,
// so that read always reaches Wait.
func (w *proc) read(r *bufio.Reader, stderrDone <-chan struct{}) {
	defer close(w.exited)
	defer close(w.frames)
	for {
		kind, body, err := readFrame(r, maxFrame)
		f := frame{kind: kind, body: body, err: err}
		if err == nil && (kind == kindCalls || kind == kindMore) {
			if turns := w.turns.Load(); turns != nil {
				if f.bad = (*turns)(kind == kindMore, body); f.bad == "" {
					continue
				}
			}
		}
		select {
		case w.frames <- f:
		case <-w.dead:
		}
		if err != nil {
			// After a frame that cannot be read the stream is lost: the
			// worker is stopped (its run's loop has the reason). At the end
			// of its output it is ending anyway, and must not look killed
			// by the pool (a crash is classified by how it ended).
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				w.kill()
			}
			w.state, _ = w.process.Wait()
			_ = w.in.Close()
			w.process.Stdout.Close()
			<-stderrDone
			return
		}
	}
}

func (w *proc) send(kind byte, payload any) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	return writeFrame(w.out, kind, payload)
}

// sendAsync sends from a goroutine of its own, for a caller that must not
// block on a worker that stopped reading; a failed send kills the worker.
// The frames of successive calls go out in the order of the calls: a run's
// cancel sent from goroutines racing each other could overtake its run,
// and the worker then took the cancel for nothing and the run for work.
func (w *proc) sendAsync(kind byte, payload any) {
	prev, sent := w.lastAsync, make(chan struct{})
	w.lastAsync = sent
	go func() {
		defer close(sent)
		if prev != nil {
			<-prev // closed once the earlier send wrote or failed (a kill makes it fail)
		}
		if w.send(kind, payload) != nil {
			w.kill()
		}
	}()
}

// alive reports whether the worker can take a run: running, and with
// nothing unasked-for waiting from it.
func (w *proc) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return len(w.frames) == 0
	}
}

// kill ends the worker at once.
func (w *proc) kill() {
	w.killOnce.Do(func() {
		w.killed.Store(true)
		close(w.dead)
		_ = w.process.Kill()
		_ = w.in.Close()
	})
}

// stop ends an idle worker: closing its stdin makes it exit; a worker that
// does not within a second is killed.
func (w *proc) stop() {
	_ = w.in.Close()
	select {
	case <-w.exited:
	case <-time.After(time.Second):
		w.kill()
		<-w.exited
	}
}

// capWriter keeps the first max bytes written to it (a worker's stderr,
// for crash reports) and discards the rest.
type capWriter struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (c *capWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (c *capWriter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf)
}

// firstLine is the first non-empty line of what was written, after prefix;
// "" when nothing was.
func (c *capWriter) firstLine(prefix string) string {
	for _, l := range strings.Split(c.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return prefix + cut(l, 300)
		}
	}
	return ""
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
