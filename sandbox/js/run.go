package js

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// abandonGrace is how long Run waits, after ending a run, for the runtime's
// goroutine to stop. A goroutine stuck in a long builtin that no interrupt
// reaches is left to finish alone; the caller gets its answer on time.
const abandonGrace = 50 * time.Millisecond

// MaxAbandoned is how many abandoned runs (see Abandoned) the process
// tolerates: while that many are still running, Run refuses new scripts with
// limit_exceeded instead of piling more unbounded work on top of theirs. The
// guards stop every builtin known to outlive its run, so reaching this
// bound means an attack the guards miss is being repeated; refusing is
// what keeps the process alive meanwhile.
const MaxAbandoned = 4

// Run runs a compiled script in a fresh runtime and returns what it produced.
// Budget errors (timeout, canceled, limit_exceeded, memory_limit,
// output_limit) end the run wherever the script is; tool errors reach the
// script as catchable Errors.
//
// Run returns when the script's promise settles or the run is ended. Tool
// calls still running then are the host's to finish or cancel; their results
// no longer reach the script.
func Run(ctx context.Context, s *Script, opt Options) *Result {
	if n := Abandoned(); n >= MaxAbandoned {
		return &Result{Err: &Error{Code: CodeLimitExceeded, Message: fmt.Sprintf(
			"the sandbox refuses new scripts while %d earlier runs are still stopping (the limit is %d); try again shortly", n, MaxAbandoned)}}
	}
	if opt.Profile != Lean {
		// Lean leaves regexp2's match timeout as goja has it (none): a match
		// that timed out would read as "no match", and only the hardened
		// RegExp wrappers tell the two apart; in a worker the run's deadline
		// and the pool's backstop end a runaway match instead.
		setRegexpTimeout()
		compileAhead()
	}
	r := newRunner(s, opt)
	stop := context.AfterFunc(ctx, func() {
		code := CodeCanceled
		if ctx.Err() == context.DeadlineExceeded {
			code = CodeTimeout
		}
		msg := "the run was ended by its caller: " + context.Cause(ctx).Error()
		if cause := context.Cause(ctx); cause != ctx.Err() {
			msg = cause.Error() // the caller said why (e.g. "the server is shutting down")
		}
		r.kill(&Error{Code: code, Message: msg})
	})
	defer stop()
	r.clock.start(r.lim.Timeout, func() {
		r.kill(&Error{Code: CodeTimeout, Message: fmt.Sprintf("the script did not finish within its timeout of %v", r.lim.Timeout)})
	})
	defer r.clock.stop()
	heapWatch.add(r)
	defer heapWatch.remove(r)

	go r.loop()
	select {
	case <-r.done:
	case <-r.killed:
		select {
		case <-r.done:
		case <-time.After(abandonGrace):
			r.abandon()
			return r.abandoned()
		}
	}
	res := r.res
	res.Logs, res.LogsTruncated = r.out.snapshot()
	return &res
}

// runner is one run: the runtime, its event loop and its budgets. Fields
// marked "loop" belong to the goroutine running the loop.
type runner struct {
	s        *Script
	opt      Options
	lim      Limits
	maxElems int64 // the size the builtin guards allow (maxElemsFor)
	clock    *clock
	out      output

	vm              *goja.Runtime           // loop, except Interrupt
	jsonParse       goja.Callable           // loop; the builtins as they were before the script ran
	nativeStringify goja.Callable           // loop; JSON.stringify behind its guard, without the prelude's replacer
	jsonReplacer    goja.Value              // loop; trackJSON, made at the first use
	jsonPath        []*goja.Object          // loop; trackJSON's holders
	jsonBase        int                     // loop; where the innermost stringifyJSON's path starts
	rangeErrorCtor  *goja.Object            // loop; the runtime's own, for the guards' RangeErrors
	syntaxErrorCtor *goja.Object            // loop; the runtime's own (regexpBug)
	gopd            goja.Callable           // loop; Object.getOwnPropertyDescriptor
	arrayLike       *goja.Object            // loop; arraylike.js's methods, made at the first use
	arrayCtor       *goja.Object            // loop; the runtime's Array, before the script ran (for arraylike.js)
	errorCtor       *goja.Object            // loop
	main            *goja.Promise           // loop; the script's promise
	turn            []*Call                 // loop; calls made since the last hand-over to the host
	calls           int                     // loop
	serialising     int                     // loop; calls whose arguments are being serialised
	depth           int                     // loop; builtins nested in builtins (see guarded)
	jsonNesting     int                     // loop; JSON.parse and JSON.stringify nested in each other
	boundDepth      boundDepths             // loop; bound functions binding bound ones, by depth (countBind)
	pending         int                     // loop; calls handed over and not yet settled
	late            int                     // loop
	thrown          map[*goja.Object]*Error // loop; the Errors of rejected tool calls
	stackBuf        []goja.StackFrame       // loop
	built           bool                    // the runtime was built ahead (Prepare)

	mu    sync.Mutex
	queue []func() error // settlements waiting for the loop
	wake  chan struct{}  // cap 1: the queue has work

	mem memShare // the heap watchdog's view of the run

	killOnce sync.Once
	killErr  atomic.Pointer[Error]
	killed   chan struct{} // closed by kill, after killErr is set

	res  Result // loop, until done is closed
	done chan struct{}
}

func newRunner(s *Script, opt Options) *runner {
	lim := opt.Limits.withDefaults()
	r := opt.Prepared.take(opt.Profile, maxElemsFor(lim.MaxMemoryBytes))
	if r == nil {
		r = newBareRunner(maxElemsFor(lim.MaxMemoryBytes))
	}
	r.s, r.opt, r.lim = s, opt, lim
	r.mem.liveBase = liveHeap()
	return r
}

// A Prepared is a run's fresh runtime built ahead of the run (Prepare),
// for a caller that has time to spare before the run comes: a worker
// process, between answering one run and receiving the next. It is still
// a runtime that exactly one run uses: Prepare makes a new one each time,
// nothing runs in it before its run, and a run takes it once
// (Options.Prepared).
type Prepared struct {
	profile  Profile
	maxElems int64 // what the build sized the hardened guards for
	r        *runner
	taken    atomic.Bool
}

// Prepare builds the runtime of a coming run of profile p: goja.New and the
// profile's build (the removals; for Hardened the guards too, sized for
// the default memory budget), which is most of a short lean run's own
// cost. The run's own globals (tools, input, console) are bound when it
// starts. It returns nil if the build fails; the run then builds its own
// and reports why.
func Prepare(p Profile) (prep *Prepared) {
	defer func() {
		if recover() != nil {
			prep = nil
		}
	}()
	r := newBareRunner(maxElemsFor(DefaultMaxMemoryBytes))
	r.opt.Profile = p
	r.vm.SetParserOptions(parser.WithDisableSourceMaps)
	if r.build() != nil {
		return nil
	}
	r.built = true
	return &Prepared{profile: p, maxElems: r.maxElems, r: r}
}

// take hands the runtime over to a run of profile p whose guards allow
// maxElems, once; nil when there is none for it.
func (p *Prepared) take(profile Profile, maxElems int64) *runner {
	if p == nil || p.profile != profile || p.maxElems != maxElems && profile != Lean || !p.taken.CompareAndSwap(false, true) {
		return nil
	}
	r := p.r
	p.r = nil
	r.maxElems = maxElems
	return r
}

// newBareRunner is a runner on a fresh runtime, before harden.
func newBareRunner(maxElems int64) *runner {
	return &runner{
		vm:       goja.New(), // here, so kill can interrupt it from the first moment
		lim:      Limits{}.withDefaults(),
		maxElems: maxElems,
		clock:    &clock{},
		thrown:   make(map[*goja.Object]*Error),
		wake:     make(chan struct{}, 1),
		killed:   make(chan struct{}),
		done:     make(chan struct{}),
	}
}

// kill ends the run with err: the first reason wins. It interrupts whatever
// JavaScript runs and wakes the loop; safe from any goroutine.
func (r *runner) kill(err *Error) {
	r.killOnce.Do(func() {
		r.killErr.Store(err)
		r.vm.Interrupt(err)
		close(r.killed)
	})
}

// abandoned is the result of a run whose goroutine did not stop in time.
func (r *runner) abandoned() *Result {
	res := &Result{Err: r.killErr.Load()}
	res.Logs, res.LogsTruncated = r.out.snapshot()
	return res
}

// post queues a settlement for the loop; after the loop ended it is dropped.
func (r *runner) post(f func() error) {
	r.mu.Lock()
	r.queue = append(r.queue, f)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *runner) loop() {
	defer close(r.done)
	defer func() {
		if p := recover(); p != nil {
			r.res = Result{ToolCalls: r.calls, LateCalls: r.late, Err: r.errorOfPanic(p)}
		}
	}()
	r.vm.SetParserOptions(parser.WithDisableSourceMaps)
	r.vm.SetMaxCallStackSize(r.lim.MaxCallDepth)
	if !r.built {
		if err := r.js(r.build); err != nil {
			r.finish(err)
			return
		}
	}
	if err := r.js(r.bind); err != nil {
		r.finish(err)
		return
	}
	var v goja.Value
	if err := r.js(func() (err error) { v, err = r.vm.RunProgram(r.s.prg); return }); err != nil {
		r.finish(err)
		return
	}
	r.main, _ = v.Export().(*goja.Promise)
	if r.main == nil {
		r.finish(&Error{Code: CodeRuntimeError, Message: "internal error: the script did not start"})
		return
	}
	for {
		r.handOver()
		if r.main.State() != goja.PromiseStatePending {
			r.finish(nil)
			return
		}
		if r.pending == 0 {
			r.finish(&Error{Code: CodeRuntimeError, Message: "the script is waiting for a promise that nothing will settle (no tool call is running)"})
			return
		}
		r.clock.idle(true)
		if idler, ok := r.opt.Host.(Idler); ok && len(r.wake) == 0 {
			idler.Idle()
		}
		select {
		case <-r.wake:
		case <-r.killed:
		}
		r.clock.idle(false)
		if err := r.killErr.Load(); err != nil {
			r.finish(err)
			return
		}
		r.mu.Lock()
		q := r.queue
		r.queue = nil
		r.mu.Unlock()
		for _, f := range q {
			if err := r.js(f); err != nil {
				r.finish(err)
				return
			}
		}
	}
}

// js runs f, which runs JavaScript, billing its time to the run for the
// heap watchdog, and turns what goja returns into the run's error.
func (r *runner) js(f func() error) *Error {
	start := time.Now().UnixNano()
	r.mem.busySince.Store(start)
	err := f()
	r.mem.busyNanos.Add(time.Now().UnixNano() - start)
	r.mem.busySince.Store(0)
	if err == nil {
		return nil
	}
	return r.errorOf(err)
}

// An Idler is a Host that can wait for its calls' outcomes better than a
// parked goroutine: a worker's host, whose outcomes come over a pipe, spins
// on the pipe briefly, so that the thread of the loop, which parks next,
// finds the outcome's reader runnable instead of waking it up on another.
// The loop calls Idle when the script has nothing to do but wait for calls,
// before it parks; Idle returns when an outcome may be near, or after a
// bound of its own (microseconds).
type Idler interface {
	Idle()
}

// handOver gives the calls made during the last turn to the host.
func (r *runner) handOver() {
	if len(r.turn) == 0 {
		return
	}
	calls := r.turn
	r.turn = nil
	r.pending += len(calls)
	r.opt.Host.Start(calls)
}

// settle completes call c on the loop: fulfils or rejects its promise,
// which runs the script on. After the script returned, nothing runs.
func (r *runner) settle(c *Call, result json.RawMessage, err *Error) error {
	r.pending--
	if r.main.State() != goja.PromiseStatePending {
		return nil
	}
	if err != nil {
		return c.reject(r.newError(err, c))
	}
	v, perr := r.parseJSON(result)
	if perr != nil {
		return c.reject(r.newError(&Error{Code: "tool_error", Message: "the tool's result is not valid JSON"}, c))
	}
	return c.resolve(v)
}

// finish records how the run ended; err nil means the script's promise
// settled, and its outcome decides.
func (r *runner) finish(err *Error) {
	r.res.ToolCalls, r.res.LateCalls = r.calls, r.late
	if k := r.killErr.Load(); k != nil {
		err = k // a budget error wins over what it caused
	}
	if err != nil {
		r.res.Err = err
		return
	}
	switch r.main.State() {
	case goja.PromiseStateFulfilled:
		r.res.Value, r.res.Err = r.toJSON(r.main.Result())
	case goja.PromiseStateRejected:
		r.res.Err = r.errorOfValue(r.main.Result())
	}
}

// toJSON turns the script's return value into JSON, as JSON.stringify does;
// undefined becomes null.
func (r *runner) toJSON(v goja.Value) (json.RawMessage, *Error) {
	if v == nil || goja.IsUndefined(v) {
		return json.RawMessage("null"), nil
	}
	var out goja.Value
	if err := r.js(func() (err error) { out, err = r.stringifyJSON(v); return }); err != nil {
		if k := r.killErr.Load(); k != nil {
			return nil, k // a guard ended the run while stringifying: its budget error, not a JavaScript one
		}
		if err.Code == CodeRuntimeError {
			err.Message = "the returned value cannot be converted to JSON: " + err.Message
		}
		return nil, err
	}
	if out == nil || goja.IsUndefined(out) {
		return json.RawMessage("null"), nil
	}
	return json.RawMessage(out.String()), nil
}
