package worker

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/wasm"
	"github.com/codemode-dev/codemode/sandbox/worker/spawn"
)

// Arg is the argument that makes a binary a worker (see Main).
const Arg = spawn.Arg

// Main makes the running binary a worker when it was started as one — with
// Arg as its only argument — and returns otherwise. Call it first thing in
// main of any binary that uses a Pool: a worker serves runs on its stdin and
// stdout until its stdin closes, then exits.
func Main() {
	if len(os.Args) != 2 || os.Args[1] != Arg {
		return
	}
	closeInherited()
	if err := Serve(pollable(os.Stdin), os.Stdout); err != nil {
		os.Exit(3)
	}
	os.Exit(0)
}

// Serve is a worker's side of the protocol: it applies the limits the host
// sends first, then runs one script at a time until in ends. Main calls it;
// tests may call it on pipes of their own.
func Serve(in io.Reader, out io.Writer) error {
	w := &server{in: bufio.NewReaderSize(in, 64<<10), out: bufio.NewWriterSize(out, 64<<10), cache: js.NewCache(64)}
	if f, ok := in.(*os.File); ok {
		w.ready = newReadyWaiter(f)
	}
	kind, body, err := readFrame(w.in, 1<<30)
	if err != nil {
		return err
	}
	if kind != kindConfig {
		return errors.New("worker: the first message is not the configuration")
	}
	var cfg configMsg
	if err := json.Unmarshal(body, &cfg); err != nil {
		return err
	}
	if err := applyLimits(cfg); err != nil {
		return err
	}
	w.wasmCache = cfg.WasmCacheDir
	if err := w.send(kindReady, nil); err != nil {
		return err
	}
	return w.serve()
}

// server is the worker's state: at most one run at a time.
type server struct {
	in    *bufio.Reader
	cache *js.Cache
	tools []string

	ready *readyWaiter // waits for stdin to have a frame (js.Idler); nil: not polled

	mu  sync.Mutex         // guards run, job; taken before wmu
	run *remoteRun         // the script running, if any
	job context.CancelFunc // ends the script or WASM call running, if any

	// wmu guards out and broken, apart from mu: a turn's calls are written
	// without holding up the reader, which may be settling the previous
	// turn's calls meanwhile.
	wmu    sync.Mutex
	out    *bufio.Writer
	broken error // the host stopped reading: nothing more can be said

	wasmCache string
	rt        *wasm.Runtime           // made at the first module
	modules   map[uint64]*wasm.Module // by the host's id
}

// remoteRun is the current run: its calls by index, their holds, and how to
// cancel it.
type remoteRun struct {
	cancel   context.CancelFunc
	calls    map[int]*js.Call
	releases map[int]func()
}

func (w *server) send(kind byte, payload any) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if w.broken != nil {
		return w.broken
	}
	if err := writeFrame(w.out, kind, payload); err != nil {
		w.broken = err
		return err
	}
	return nil
}

func (w *server) serve() error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		kind, body, err := readFrame(w.in, 1<<30)
		if err != nil {
			w.cancelJob()
			if err == io.EOF {
				return nil
			}
			return err
		}
		switch kind {
		case kindRun:
			var m runMsg
			if err := json.Unmarshal(body, &m); err != nil {
				return err
			}
			if !m.SameTools {
				w.tools = m.Tools
			}
			ctx, cancel := context.WithCancel(context.Background())
			run := &remoteRun{cancel: cancel, calls: make(map[int]*js.Call), releases: make(map[int]func())}
			w.mu.Lock()
			w.run, w.job = run, cancel
			w.mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.runScript(ctx, run, &m)
			}()
		case kindSettle:
			m, err := parseSettle(body)
			if err != nil {
				return err
			}
			if c := w.call(m.Index, false); c != nil {
				switch err := m.Err.toError(); {
				case err == nil:
					c.Resolve(m.Result)
				case m.Abort:
					err.Cause = callCause(m.Index)
					c.Abort(err)
				default:
					err.Cause = callCause(m.Index)
					c.Reject(err)
				}
			}
		case kindHold, kindRelease:
			var m holdMsg
			if err := json.Unmarshal(body, &m); err != nil {
				return err
			}
			w.hold(m.Index, kind == kindHold)
		case kindCancel:
			w.cancelJob()
		case kindModule:
			var m moduleMsg
			if err := json.Unmarshal(body, &m); err != nil {
				return err
			}
			var why []byte
			if err := w.loadModule(&m); err != nil {
				why = []byte(err.Error())
			}
			if err := w.send(kindLoaded, why); err != nil {
				return err
			}
		case kindWasmCall:
			if len(body) < 8 {
				return errors.New("worker: a WASM call without a module")
			}
			ctx, cancel := context.WithCancel(context.Background())
			w.mu.Lock()
			w.job = cancel
			w.mu.Unlock()
			mod := w.modules[binary.BigEndian.Uint64(body)] // read here: the reader loop owns the map
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.callModule(ctx, cancel, mod, body[8:])
			}()
		default:
			return errors.New("worker: unknown message kind")
		}
	}
}

func (w *server) cancelJob() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.job != nil {
		w.job()
	}
}

// loadModule compiles a module the host will call.
func (w *server) loadModule(m *moduleMsg) error {
	if w.modules == nil {
		w.modules = make(map[uint64]*wasm.Module)
	}
	if w.rt == nil {
		// The host compiled each module before sending it (wasmtool does),
		// so the worker reads entries and leaves bounding the cache to it.
		rt, err := wasm.NewRuntime(context.Background(), wasm.Config{CacheDir: w.wasmCache, CacheMaxBytes: -1})
		if err != nil { // an unusable cache is no reason to fail
			if rt, err = wasm.NewRuntime(context.Background(), wasm.Config{}); err != nil {
				return err
			}
		}
		w.rt = rt
	}
	mod, err := w.rt.Compile(context.Background(), m.Binary, m.Options)
	if err != nil {
		return err
	}
	w.modules[m.ID] = mod
	return nil
}

// callModule runs one WASM call and answers with its outcome.
func (w *server) callModule(ctx context.Context, cancel context.CancelFunc, mod *wasm.Module, args []byte) {
	defer cancel()
	var out []byte
	var err *wasm.Error
	if mod == nil {
		err = &wasm.Error{Code: wasm.CodeToolError, Message: "the module could not be loaded in the worker process"}
	} else {
		out, err = mod.Call(ctx, args)
	}
	var body []byte
	if err != nil {
		e, _ := json.Marshal(wasmErr{Code: err.Code, Message: err.Message, ExitCode: err.ExitCode})
		body = append([]byte{1}, e...)
	} else {
		body = append([]byte{0}, out...)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.job = nil
	_ = w.send(kindWasmDone, body)
}

// wasmErr is a wasm.Error on the wire.
type wasmErr struct {
	Code     wasm.Code `json:"code"`
	Message  string    `json:"message"`
	ExitCode uint32    `json:"exitCode,omitempty"`
}

// call is the current run's call i; settled calls are forgotten.
func (w *server) call(i int, keep bool) *js.Call {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.run == nil {
		return nil
	}
	c := w.run.calls[i]
	if !keep {
		delete(w.run.calls, i)
	}
	return c
}

func (w *server) hold(i int, on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.run == nil {
		return
	}
	if on {
		if c := w.run.calls[i]; c != nil && w.run.releases[i] == nil {
			w.run.releases[i] = c.Hold()
		}
		return
	}
	if rel := w.run.releases[i]; rel != nil {
		delete(w.run.releases, i)
		rel()
	}
}

func (w *server) runScript(ctx context.Context, run *remoteRun, m *runMsg) {
	defer run.cancel()
	abandonedBefore := js.Abandoned()
	setCPULimit(cmp.Or(m.Limits.Timeout, js.DefaultTimeout))
	opt := js.Options{Limits: m.Limits, Input: m.Input, Tools: w.tools, Host: remoteHost{w, run}}
	if m.Logs {
		opt.OnLog = func(l js.Log) { _ = w.send(kindLog, l) }
	}
	res := js.RunJob(ctx, w.cache, js.Job{Code: m.Code, MaxCodeBytes: m.MaxCodeBytes, Options: opt})
	done := doneMsg{Value: res.Value, Logs: res.Logs, LogsTruncated: res.LogsTruncated, Err: toErrMsg(res.Err),
		ToolCalls: res.ToolCalls, LateCalls: res.LateCalls, TypeScript: res.TypeScript,
		Retire: js.Abandoned() > abandonedBefore}
	w.mu.Lock()
	w.run, w.job = nil, nil
	for _, rel := range run.releases {
		rel()
	}
	_ = w.send(kindDone, done)
	w.mu.Unlock()
	giveBackMemory()
}

// giveBackMemory returns a heavy run's memory to the OS once it has
// answered: the run's runtime is garbage now, but the Go runtime would keep
// the pages, and an idle worker would hold its peak for good.
func giveBackMemory() {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Uint64() > heavyRunBytes {
		debug.FreeOSMemory()
	}
}

// heavyRunBytes is the heap above which a worker gives memory back after a
// run.
const heavyRunBytes = 64 << 20

// remoteHost hands a turn's calls to the host process, and waits for their
// settlements as a js.Idler.
type remoteHost struct {
	w   *server
	run *remoteRun
}

func (h remoteHost) Start(calls []*js.Call) {
	msgs := make([]callMsg, len(calls))
	h.w.mu.Lock()
	for i, c := range calls {
		h.run.calls[c.Index] = c
		msgs[i] = callMsg{Index: c.Index, Tool: c.Tool, Args: c.Args, Line: c.Line, Column: c.Column}
	}
	h.w.mu.Unlock()
	// One frame for the turn, written outside mu: a settlement that comes
	// back before the write returns finds its call.
	if h.w.send(kindCalls, appendCalls(nil, msgs)) != nil {
		// The host is gone: end the run rather than wait for answers.
		for _, c := range calls {
			c.Abort(&js.Error{Code: js.CodeCanceled, Message: "the host stopped listening to the worker"})
		}
	}
}

// Idle implements js.Idler: the script has nothing to do until a
// settlement comes (readyWaiter).
func (h remoteHost) Idle() { h.w.ready.wait() }
