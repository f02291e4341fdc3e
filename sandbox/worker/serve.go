package worker

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/wasm"
	"github.com/codemode-dev/codemode/sandbox/worker/spawn"
)

// Arg is the argument that makes a binary a worker (see Main).
const Arg = spawn.Arg

// init makes a process started as a worker serve, before anything of the
// host's own runs: Go initialises this package before every package that
// imports it, and the main package last, so a worker never runs the host's
// main (nor its init, nor that of any package that uses a Pool). A host
// that forgot to call Main used to run its whole main in every worker,
// which started a pool, which started workers: hundreds of processes in
// seconds.
func init() {
	Main()
}

// startedAsWorker reports whether this process was started as a worker:
// with Arg as its only argument.
func startedAsWorker() bool {
	return len(os.Args) == 2 && os.Args[1] == Arg
}

// Main makes the running binary a worker when it was started as one — with
// Arg as its only argument — and returns at once otherwise. The package's
// init calls it, so a binary that imports this package is a worker without
// calling it; calling it again first thing in main, as older versions
// asked, is harmless. A worker serves runs on its stdin and stdout until
// its stdin closes, then exits: Main never returns in a worker.
func Main() {
	if !startedAsWorker() {
		return
	}
	closeInherited()
	// Served from a goroutine of its own: during package initialisation
	// the calling goroutine is locked to the main thread, and a locked
	// goroutine is woken by a hand-off between threads, a cost on every
	// frame of every run.
	done := make(chan error, 1)
	go func() { done <- Serve(pollable(os.Stdin), os.Stdout) }()
	if err := <-done; err != nil {
		os.Exit(3)
	}
	os.Exit(0)
}

// Serve is a worker's side of the protocol: it says hello (helloFrame),
// applies the limits the host sends first, then runs one script at a time
// until in ends. Main calls it; tests may call it on pipes of their own.
func Serve(in io.Reader, out io.Writer) error {
	w := &server{in: bufio.NewReaderSize(in, 64<<10), out: bufio.NewWriterSize(out, 64<<10), cache: js.NewCache(64)}
	if f, ok := in.(*os.File); ok {
		w.ready = newReadyWaiter(f)
	}
	if _, err := w.out.Write(helloFrame()); err != nil {
		return err
	}
	if err := w.out.Flush(); err != nil {
		return err
	}
	kind, body, err := readFrame(w.in, maxToWorker)
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
	w.memoryBytes = cfg.MemoryBytes
	if !cfg.Hardened && cfg.MemoryBytes > 0 && dataLimited() {
		// The process contains the script (Config.profile): only with a data
		// limit, whoever sent the configuration.
		w.profile = js.Lean
	}
	if err := w.send(kindReady, nil); err != nil {
		return err
	}
	w.nextMu.Lock()
	w.prepareNext()
	w.nextMu.Unlock()
	return w.serve()
}

// server is the worker's state: at most one run at a time.
type server struct {
	in      *bufio.Reader
	cache   *js.Cache
	tools   []string
	profile js.Profile // js.Lean unless the pool asked for js.Hardened

	memoryBytes int64 // the data limit (configMsg.MemoryBytes); 0: none

	ready *readyWaiter // waits for stdin to have a frame (js.Idler); nil: not polled

	mu  sync.Mutex         // guards run, job; never held while writing (wmu)
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

	// next is the next run's runtime, built ahead (prepareNext); nextMu is
	// held while it is being built, from before the previous run's answer
	// goes out, so the next run, which comes after that answer, waits for
	// it rather than build a second one beside it.
	nextMu sync.Mutex
	next   *js.Prepared
}

// prepareNext builds the next run's fresh runtime (js.Prepare) while the
// worker waits for it: off the run's path. Only for js.Lean: a hardened
// runtime's guards depend on the run's memory budget. nextMu is held.
func (w *server) prepareNext() {
	if w.profile == js.Lean {
		w.next = js.Prepare(js.Lean)
	}
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
	return w.sendLocked(kind, payload)
}

// sendLocked sends one frame; wmu is held.
func (w *server) sendLocked(kind byte, payload any) error {
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
		kind, body, err := readFrame(w.in, maxToWorker)
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
			m, err := decodeModule(body)
			if err != nil {
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
		// The host prepared (and, on a miss, compiled) each module before
		// sending it (wasmtool does), so the worker reads entries and leaves
		// bounding the cache to it.
		rt, err := wasm.NewRuntime(context.Background(), wasm.Config{CacheDir: w.wasmCache, CacheMaxBytes: -1})
		if err != nil { // an unusable cache is no reason to fail
			if rt, err = wasm.NewRuntime(context.Background(), wasm.Config{}); err != nil {
				return err
			}
		}
		w.rt = rt
	}
	// A worker runs on one processor (limits_unix.go), but compiling a
	// Go tool is tens of milliseconds of wazero's validation and loading,
	// with a heap growing by tens of megabytes: let the collector work on
	// the other processors meanwhile. Nothing else runs in the worker
	// during a load.
	if n := runtime.NumCPU(); n > 1 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	}
	var mod *wasm.Module
	var err error
	if m.Prepared {
		mod, err = w.rt.CompilePrepared(context.Background(), wasm.Prepared{Binary: m.Binary}, m.Options)
	} else {
		mod, err = w.rt.Compile(context.Background(), m.Binary, m.Options)
	}
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
		e, _ := marshal(wasmErr{Code: err.Code, Message: err.Message, ExitCode: err.ExitCode})
		body = append([]byte{1}, e...)
	} else {
		body = append([]byte{0}, out...)
	}
	w.mu.Lock()
	w.job = nil
	w.mu.Unlock()
	_ = w.send(kindWasmDone, body) // outside mu, which the reader needs: the host may not be reading
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
	w.nextMu.Lock()
	prep := w.next
	w.next = nil
	w.nextMu.Unlock()
	opt := js.Options{Limits: m.Limits, Profile: w.profile, Input: m.Input, Tools: w.tools, Host: remoteHost{w, run, turnBudget(m.Limits)}, Prepared: prep}
	if m.Logs {
		opt.OnLog = func(l js.Log) { _ = w.send(kindLog, l) }
	}
	res := js.RunJob(ctx, w.cache, js.Job{Code: m.Code, MaxCodeBytes: m.MaxCodeBytes, Options: opt})
	if mapped := mappedBytes(); w.memoryBytes > 0 && mapped > w.memoryBytes && (res.Err == nil || res.Err.Code != js.CodeMemoryLimit) {
		// RLIMIT_DATA should have refused this: measured, the kernel let a
		// lean worker map 1 GB under a 512 MiB limit now and then (after
		// some deep recursions in the same process; the cause is not
		// found). The run does not get to keep what it made past the limit;
		// the worker retires (nearDataLimit).
		res = &js.Result{Logs: res.Logs, LogsTruncated: res.LogsTruncated, ToolCalls: res.ToolCalls, LateCalls: res.LateCalls,
			TypeScript: res.TypeScript, Err: &js.Error{Code: js.CodeMemoryLimit, Message: fmt.Sprintf(
				"the script made its worker process map %d MiB, over its limit of %d MiB", mapped>>20, w.memoryBytes>>20)}}
	}
	done := doneMsg{Value: res.Value, Logs: res.Logs, LogsTruncated: res.LogsTruncated, Err: toErrMsg(res.Err),
		ToolCalls: res.ToolCalls, LateCalls: res.LateCalls, TypeScript: res.TypeScript,
		Retire: js.Abandoned() > abandonedBefore || w.nearDataLimit()}
	w.mu.Lock()
	w.run, w.job = nil, nil
	for _, rel := range run.releases {
		rel()
	}
	w.mu.Unlock()
	// Outside mu, which the reader needs for the settlements and holds still
	// coming: this write blocks while the host is not reading (its reader
	// runs a call inside the host's Start), and that call's settlement must
	// not wait for it.
	w.nextMu.Lock()
	defer w.nextMu.Unlock()
	_ = w.send(kindDone, done)
	giveBackMemory()
	if !done.Retire {
		w.prepareNext()
	}
}

// nearDataLimit reports that the Go runtime has mapped half the worker's
// data limit or more. It never unmaps its heap, and RLIMIT_DATA counts the
// mappings, not what is resident: after a run that came near the limit (a
// lean run's builtin building hundreds of megabytes, ended by the heap
// watchdog) the next small one could fail to map a page — the collector
// then faults — and be reported as out of memory. Such a worker retires
// after answering; the pool replaces it off the run's path.
func (w *server) nearDataLimit() bool {
	if w.memoryBytes <= 0 {
		return false
	}
	return mappedBytes() >= w.memoryBytes/2
}

// mappedBytes is the memory Go's runtime has mapped read-write: what
// RLIMIT_DATA counts of it, and never less (it does not unmap its heap).
func mappedBytes() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(sample)
	return int64(sample[0].Value.Uint64())
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
	// budget is the run's memory budget, the most a turn's calls may take
	// on the wire (turnBudget).
	budget int64
}

func (h remoteHost) Start(calls []*js.Call) {
	msgs := make([]callMsg, len(calls))
	h.w.mu.Lock()
	for i, c := range calls {
		h.run.calls[c.Index] = c
		msgs[i] = callMsg{Index: c.Index, Tool: c.Tool, Args: c.Args, Line: c.Line, Column: c.Column}
	}
	h.w.mu.Unlock()
	if why := h.refuse(msgs); why != "" {
		// Refused before anything is written: the host never sees these
		// calls, and the run ends as it would in process (binary.go).
		for _, c := range calls {
			c.Abort(&js.Error{Code: js.CodeMemoryLimit, Message: why})
		}
		return
	}
	// Written outside mu: a settlement that comes back before the write
	// returns finds its call.
	if h.w.sendCalls(msgs) != nil {
		// The host is gone: end the run rather than wait for answers.
		for _, c := range calls {
			c.Abort(&js.Error{Code: js.CodeCanceled, Message: "the host stopped listening to the worker"})
		}
	}
}

// refuse says why a turn's calls cannot be sent, or "": a call must fit
// one frame, and the turn the run's memory budget.
func (h remoteHost) refuse(msgs []callMsg) string {
	for _, m := range msgs {
		if n := callsSize([]callMsg{m}); n < 0 || n > maxFrame-1 {
			// In process no string of the call can be this long either: the
			// sandbox's cap on a string ends the run with memory_limit.
			return fmt.Sprintf("tool call %d: its name and arguments take more than %d bytes, the most one call may",
				m.Index, maxFrame-1-callHeader)
		}
	}
	if n := callsSize(msgs); n < 0 || int64(n) > h.budget {
		return fmt.Sprintf("the tool calls made together (%d) take more than the run's memory limit of %d bytes in names and arguments", len(msgs), h.budget)
	}
	return ""
}

// sendCalls sends a turn's calls: in one frame when they fit, else in
// frames of whole calls of at most maxFrame, the last one kindCalls, with
// no other frame between them.
func (w *server) sendCalls(msgs []callMsg) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	var b []byte
	for i := range msgs {
		n := callsSize(msgs[i : i+1])
		if len(b) > 0 && len(b)+n > maxFrame-1 {
			if err := w.sendLocked(kindMore, b); err != nil {
				return err
			}
			b = nil
		}
		b = appendCalls(b, msgs[i:i+1])
	}
	return w.sendLocked(kindCalls, b)
}

// Idle implements js.Idler: the script has nothing to do until a
// settlement comes (readyWaiter).
func (h remoteHost) Idle() { h.w.ready.wait() }
