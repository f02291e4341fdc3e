package worker

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
)

// hostRun is one run seen from the host: the Settler of its calls, which
// forwards each outcome to the worker until the run is over.
type hostRun struct {
	w *proc

	mu       sync.Mutex
	finished bool
	causes   map[int]any     // the host's own values of rejected calls, by index
	codes    map[int]js.Code // the codes of the calls the host rejected or aborted, by index
	// holds counts the calls holding the run's clock. It is not under mu:
	// a Settle holds mu while it writes to the worker, which blocks for
	// good on a frozen one, and the run loop reading holds, or a hold
	// ending, must not wait for that (the clock would never restart, and
	// the backstop never kill the worker).
	holds    atomic.Int64
	holdCh   chan struct{}  // cap 1: holds changed
	abortCh  chan *js.Error // cap 1: the first call the host aborted
	starting int            // turns inside the host's Start
	started  chan struct{}  // cap 1: starting went to 0
}

func (r *hostRun) Settle(c *js.Call, result json.RawMessage, err *js.Error, abort bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return
	}
	m := settleMsg{Index: c.Index, Result: result, Abort: abort}
	if err == nil && settleFixed+len(result) > maxToWorker-1 {
		// Larger than a worker reads: the run ends as in process, where
		// the result would be made into JavaScript values in its heap.
		err, abort = &js.Error{Code: js.CodeMemoryLimit, Message: fmt.Sprintf(
			"the result of tool call %d is %d bytes, more than a worker process takes (%d)", c.Index, len(result), maxToWorker-1-settleFixed)}, true
		m = settleMsg{Index: c.Index, Abort: true}
	}
	if abort {
		select {
		case r.abortCh <- err:
		default:
		}
	}
	body := result
	if err != nil {
		m.Err = toErrMsg(err)
		r.codes[c.Index] = err.Code
		if err.Cause != nil {
			r.causes[c.Index] = err.Cause
		}
		body, _ = marshal(m.Err)
	}
	if r.w.send(kindSettle, [][]byte{settleHeader(&m), body}) != nil {
		r.w.kill() // the worker stopped reading: the run loop sees it end
	}
}

func (r *hostRun) Hold(c *js.Call) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return func() {}
	}
	_ = r.w.send(kindHold, holdMsg{Index: c.Index})
	r.setHolds(+1)
	var once sync.Once
	return func() {
		once.Do(func() {
			r.setHolds(-1) // first: the clock restarts even if the lock is held by a blocked Settle
			r.mu.Lock()
			defer r.mu.Unlock()
			if !r.finished {
				_ = r.w.send(kindRelease, holdMsg{Index: c.Index})
			}
		})
	}
}

func (r *hostRun) setHolds(d int64) {
	r.holds.Add(d)
	notify(r.holdCh)
}

func (r *hostRun) held() bool { return r.holds.Load() > 0 }

// finish drops every later outcome and turn: the worker has moved on.
func (r *hostRun) finish() {
	r.mu.Lock()
	r.finished = true
	r.mu.Unlock()
}

// finishOrKill finishes the run, unless a Settle holds the run's lock
// writing to a worker that does not read (a worker may answer its run with
// a call's result still on the way): then, after abortGrace, it kills the
// worker, which ends that write, finishes the run and reports false. The
// run loop must never wait on a worker, and finish waits for that lock.
func (r *hostRun) finishOrKill() bool {
	if r.mu.TryLock() { // the usual case: no settle being written
		r.finished = true
		r.mu.Unlock()
		return true
	}
	done := make(chan struct{})
	go func() {
		r.finish()
		close(done)
	}()
	t := time.NewTimer(abortGrace)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		r.w.kill()
		<-done
		return false
	}
}

// beginStart admits a turn to the host's Start while the run lasts.
func (r *hostRun) beginStart() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return false
	}
	r.starting++
	return true
}

func (r *hostRun) endStart() {
	r.mu.Lock()
	r.starting--
	n := r.starting
	r.mu.Unlock()
	if n == 0 {
		notify(r.started)
	}
}

// startGrace is how long the end of a run waits for a turn already inside
// the host's Start: a host sees no turn after the run returned, unless its
// Start is stuck (a lone call in a handler that ignores its context), which
// is then left to finish alone, as in process.
const startGrace = 50 * time.Millisecond

// end finishes the run, waiting up to startGrace for turns inside Start.
func (r *hostRun) end() {
	r.finish()
	t := time.NewTimer(startGrace)
	defer t.Stop()
	for {
		r.mu.Lock()
		n := r.starting
		r.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-r.started:
		case <-t.C:
			return
		}
	}
}

// run runs job in the worker. healthy reports whether the worker may take
// another run.
//
// The worker's reader goroutine hands each turn of calls to the host
// itself (w.turns), as the event loop does in process: one goroutine switch
// less per call, and a run's done message is read only after every earlier
// turn's Start has returned, so the last turn's calls reach the host before
// the run returns. A host stuck inside Start (a lone call in a handler that
// ignores its context) stops the reader; the engine then aborts the call,
// and the run ends with that error a grace period later.
func (w *proc) run(ctx context.Context, job js.Job) (res *js.Result, healthy bool) {
	opt := job.Options
	lim := opt.Limits
	if lim.Timeout <= 0 {
		lim.Timeout = js.DefaultTimeout
	}
	m := runMsg{Code: job.Code, MaxCodeBytes: job.MaxCodeBytes, Limits: opt.Limits, Input: opt.Input, Logs: opt.OnLog != nil}
	if w.tools != nil && slices.Equal(w.tools, opt.Tools) {
		m.SameTools = true
	} else {
		m.Tools = opt.Tools
	}
	runFrame, err := marshal(m)
	switch {
	case err != nil: // the input is not JSON: the engine checks it first
		return &js.Result{Err: &js.Error{Code: js.CodeRuntimeError, Message: "the run cannot be sent to a worker process: " + err.Error()}}, true
	case len(runFrame) > maxToWorker-1:
		// More than a worker reads: refused before anything is sent, as in
		// process the input would be made into JavaScript values in the
		// run's heap.
		return &js.Result{Err: &js.Error{Code: js.CodeMemoryLimit, Message: fmt.Sprintf(
			"the script's code, input and tool names take %d bytes, more than a worker process takes (%d)", len(runFrame), maxToWorker-1)}}, true
	}
	w.tools = opt.Tools
	hr := &hostRun{w: w, causes: make(map[int]any), codes: make(map[int]js.Code), holdCh: make(chan struct{}, 1), abortCh: make(chan *js.Error, 1), started: make(chan struct{}, 1)}
	defer hr.end()
	nextCall, maxCalls := 0, cmp.Or(opt.Limits.MaxToolCalls, js.DefaultMaxToolCalls)
	// The worker sends only the console lines it keeps, which fit the
	// output budget (js.Options.OnLog); the host holds it to that budget
	// all the same, counting lines as the worker does (js.LineChars), so
	// that no worker can flood OnLog.
	logRoom := max(opt.Limits.MaxOutputChars, 0)
	if logRoom == 0 {
		logRoom = js.DefaultMaxOutputChars
	}
	// A turn's calls come in one frame, or in several ended by kindCalls
	// (binary.go), gathered up to the run's memory budget, as the worker
	// sends no more.
	var turn []*js.Call
	var turnBytes int64
	budget := turnBudget(opt.Limits)
	turns := func(more bool, body []byte) string { // on the reader goroutine
		if turnBytes += int64(len(body)); turnBytes > budget {
			return fmt.Sprintf("a turn of tool calls of more than %d bytes, the run's memory budget", budget)
		}
		calls, err := parseCalls(body)
		if err != nil {
			return "a malformed call"
		}
		// The engine sizes its trace by the indexes: a worker gets no say in
		// them beyond the script's own count and limit. Nothing it sends
		// reaches the host unless it is a call a script could make: a name
		// and arguments that are JSON, as JSON.stringify makes them.
		for _, c := range calls {
			if c.Index != nextCall || nextCall >= maxCalls {
				return fmt.Sprintf("call %d where call %d (of at most %d) was due", c.Index, nextCall, maxCalls)
			}
			if !json.Valid(c.Args) {
				return fmt.Sprintf("call %d with arguments that are not JSON", c.Index)
			}
			nextCall++
			turn = append(turn, js.NewCall(c.Index, c.Tool, c.Args, c.Line, c.Column, hr))
		}
		if more {
			return ""
		}
		jc := turn
		turn, turnBytes = nil, 0
		if hr.beginStart() {
			opt.Host.Start(jc)
			hr.endStart()
		}
		return ""
	}
	w.turns.Store(&turns)
	defer w.turns.Store(nil)

	// The backstop: the run's budget plus a grace, not counting time spent
	// holding for approvals (the worker does not bill those either). Nothing
	// this loop does may block on the worker: a frozen one stops reading its
	// stdin, so writes happen elsewhere and the backstop's kill unblocks them.
	left := lim.Timeout + backstop(lim.Timeout)
	since := time.Now()
	timer := newBackstop(lim.Timeout)
	defer timer.Stop()
	w.sendAsync(kindRun, runFrame)
	done := ctx.Done()
	var ended *js.Error   // the caller's context ended first
	var aborted *js.Error // the host aborted a call: the run is ending
	// fail ends the run with a broken worker: with its own error, unless
	// the caller had already ended the run.
	fail := func(res *js.Result) (*js.Result, bool) {
		if ended != nil {
			res = &js.Result{Err: ended}
		}
		return res, false
	}
	for {
		select {
		case f, ok := <-w.frames:
			if !ok {
				return fail(w.crashed(hr))
			}
			if f.err != nil {
				if _, tooLarge := f.err.(errFrameTooLarge); tooLarge {
					return fail(&js.Result{Err: &js.Error{Code: js.CodeOutputLimit, Message: "the worker process sent " + f.err.Error() + " (a tool call's arguments or the script's result)"}})
				}
				return fail(w.crashed(hr))
			}
			if f.bad != "" {
				return fail(w.misbehaved(hr, f.bad))
			}
			switch f.kind {
			case kindLog:
				var l js.Log
				if json.Unmarshal(f.body, &l) != nil || !logLevels[l.Level] {
					return fail(w.misbehaved(hr, "a malformed log line"))
				}
				n := js.LineChars(l.Message)
				if n > logRoom {
					logRoom = 0 // past the budget: no later line either
					continue
				}
				logRoom -= n
				if opt.OnLog != nil {
					opt.OnLog(l)
				}
			case kindDone:
				var d doneMsg
				if json.Unmarshal(f.body, &d) != nil {
					return fail(w.misbehaved(hr, "a malformed result"))
				}
				if !hr.finishOrKill() {
					// A settle was stuck writing to it: it stopped reading.
					return fail(w.misbehaved(hr, "a result while it did not read what the host sent it"))
				}
				if why := d.forged(hr.settledCodes()); why != "" {
					return fail(w.misbehaved(hr, why))
				}
				res := &js.Result{Value: d.Value, Logs: d.Logs, LogsTruncated: d.LogsTruncated, Err: d.Err.toError(),
					ToolCalls: d.ToolCalls, LateCalls: d.LateCalls, TypeScript: d.TypeScript}
				if res.Err != nil && d.Err.Call > 0 {
					res.Err.Cause = hr.causes[d.Err.Call-1]
				}
				if ended != nil {
					res.Value, res.Err = nil, ended
				}
				return res, !d.Retire
			default:
				return fail(w.misbehaved(hr, fmt.Sprintf("a message of unknown kind %q", f.kind)))
			}
		case err := <-hr.abortCh:
			if aborted == nil && ended == nil {
				aborted = err
				timer.Stop()
				timer.Reset(abortGrace) // for the worker's answer, unless the host is stuck in Start
			}
		case <-hr.holdCh:
			if ended != nil || aborted != nil {
				break // ending: the grace runs whatever the holds
			}
			if hr.held() {
				if timer.Stop() {
					left -= time.Since(since)
				}
			} else {
				since = time.Now()
				timer.Reset(max(left, 0))
			}
		case <-done:
			done = nil
			ended = ctxError(ctx)
			w.sendAsync(kindCancel, nil)
			timer.Stop()
			timer.Reset(abortGrace) // for the worker to stop its run and answer
		case <-timer.C:
			w.kill()
			hr.finish()
			switch {
			case ended != nil:
				return &js.Result{Err: ended}, false
			case aborted != nil:
				return &js.Result{Err: aborted}, false
			}
			return &js.Result{Err: &js.Error{Code: js.CodeTimeout, Message: fmt.Sprintf(
				"the script did not finish within its timeout of %v, and its worker process did not answer; it was killed", lim.Timeout)}}, false
		}
	}
}

// logLevels are the levels of the console's lines (js.Log): a worker's
// line of another level is no line a script wrote.
var logLevels = map[string]bool{"log": true, "info": true, "warn": true, "error": true, "debug": true}

// forged says what in a worker's result no run could have made, or "": a
// log line of a level the console has not, or an error code the run could
// not end with — one of the sandbox's own when the error is the run's
// (runCodes), or the very code the host gave the tool call it names.
// Unchecked, a worker could put a 128 MiB "level" or "code", which no cap
// on messages cuts, into the answer and every event of the run, or blame a
// call for an error its tool never gave.
func (d *doneMsg) forged(codes map[int]js.Code) string {
	for _, l := range d.Logs {
		if !logLevels[l.Level] {
			return "a result with a malformed log line"
		}
	}
	switch e := d.Err; {
	case e == nil:
	case e.Call == 0 && !runCodes[e.Code]:
		return "a result with an error code no run ends with"
	case e.Call != 0 && (codes[e.Call-1] != e.Code || e.Code == ""):
		return "a result with an error the host did not give the call it names"
	}
	return ""
}

// runCodes are the codes a run's own error (not a tool call's) can have:
// the sandbox's, and tool_error for a tool result that is not JSON.
var runCodes = map[js.Code]bool{
	js.CodeSyntaxError: true, js.CodeRuntimeError: true, js.CodeTimeout: true, js.CodeCanceled: true,
	js.CodeLimitExceeded: true, js.CodeMemoryLimit: true, js.CodeOutputLimit: true, "tool_error": true,
}

// settledCodes is a copy of the codes the host settled calls with.
func (r *hostRun) settledCodes() map[int]js.Code {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.codes)
}

// abortGrace is how long a run that is ending (canceled by its caller, or
// a call aborted by the host) waits for its worker's answer: a healthy
// worker answers within milliseconds, but on a loaded machine it can take a
// few hundred to be scheduled, and a worker killed needlessly costs a new
// process. Only a frozen worker makes the caller wait this long.
const abortGrace = time.Second

// misbehaved ends a worker that broke the protocol.
func (w *proc) misbehaved(hr *hostRun, what string) *js.Result {
	w.kill()
	hr.finish()
	return &js.Result{Err: &js.Error{Code: js.CodeRuntimeError, Message: "the worker process sent " + what + "; it was stopped"}}
}

// crashed is the result of a run whose worker ended without answering:
// why, as far as its exit status and its stderr tell.
func (w *proc) crashed(hr *hostRun) *js.Result {
	hr.finish()
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second): // its stdout ended, but it lives on
		w.kill()
		<-w.exited
	}
	return &js.Result{Err: w.crashError()}
}

// crashError classifies a worker's end.
func (w *proc) crashError() *js.Error {
	text := w.stderr.String()
	var sig endSignal
	status := -1
	var peak int64 // the worker's largest resident set, bytes
	var st *os.ProcessState
	select {
	case <-w.exited:
		st = w.state
	default: // still running (a send to it failed): its stderr may say why
	}
	if st != nil {
		status = st.ExitCode()
		sig = signalOf(st)
		peak = peakRSS(st)
	}
	killed := w.killed.Load()
	switch {
	case strings.Contains(text, "stack overflow") || strings.Contains(text, "stack exceeds"):
		// First: a stack at its limit (StackBytes) is resident too, and
		// with its copy can pass half the memory limit below.
		return &js.Error{Code: js.CodeLimitExceeded, Message: "the script overflowed the stack of its worker process (deep recursion inside a builtin); the worker was replaced"}
	case strings.Contains(text, "out of memory") || strings.Contains(text, "cannot allocate memory") ||
		strings.Contains(text, "pthread_create failed") || runtimeFault(text) || (sig.kill && !killed) ||
		(peak >= w.memory/2 && !killed):
		// A thread's stack counts against the data limit too, and a worker
		// that dies of something else (a fault in the runtime when a mapping
		// fails) with half its limit resident is out of memory as well.
		return &js.Error{Code: js.CodeMemoryLimit, Message: "the script used more memory than its worker process may have (" + mib(w.memory) + "); the worker was replaced"}
	case sig.xcpu || strings.Contains(text, cpuLimitMessage):
		return &js.Error{Code: js.CodeTimeout, Message: "the script used more CPU time than its budget allows; the worker was replaced"}
	}
	why := fmt.Sprintf("exit status %d", status)
	if sig.name != "" {
		why = "signal " + sig.name
	}
	return &js.Error{Code: js.CodeRuntimeError, Message: "the worker process running the script crashed (" + why + ")" + w.stderr.firstLine(": ")}
}

// runtimeFault reports a worker that died of a fault inside Go's own
// runtime: a fatal "SIGSEGV" (not a panic, which goja or the sandbox would
// have recovered) whose first goroutine is running runtime code. Under
// RLIMIT_DATA that is a mapping the runtime could not make: the garbage
// collector faulted at address 0 in about one of eight lean runs of
// 'x'.repeat(2**29) at 512 MiB, with little resident.
func runtimeFault(stderr string) bool {
	if !strings.HasPrefix(stderr, "SIGSEGV: segmentation violation") {
		return false
	}
	_, rest, ok := strings.Cut(stderr, "\ngoroutine ")
	if !ok {
		return false
	}
	_, rest, _ = strings.Cut(rest, "\n") // the goroutine's header
	return strings.HasPrefix(rest, "runtime.")
}

// cpuLimitMessage is what a worker says on stderr when its CPU limit ends it.
const cpuLimitMessage = "codemode worker: the run used more CPU time than its budget allows"

func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

// notify wakes whoever waits on c (cap 1) without blocking.
func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
