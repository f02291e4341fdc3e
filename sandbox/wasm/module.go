package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// Module is a compiled tool. Calls are safe from any number of goroutines;
// each runs in an instance of its own (a fresh one, or in pooled mode one
// that no other call is using).
type Module struct {
	rt         *Runtime
	compiled   wazero.CompiledModule
	opts       ModuleOptions
	limitPages uint32
	base       wazero.ModuleConfig // everything but the per-call streams
	initFuncs  []string            // pooled: the reactor's start functions
	pool       *pool               // nil: a fresh instance per call
	closed     atomic.Bool
}

// Pooled reports whether the module reuses instances.
func (m *Module) Pooled() bool { return m.pool != nil }

// Close releases the module and its pooled instances. Calls already running
// finish; later calls fail.
func (m *Module) Close(ctx context.Context) error {
	m.closed.Store(true)
	if m.pool != nil {
		m.pool.close(ctx)
	}
	return m.compiled.Close(ctx)
}

// Call runs the module once with args (JSON) on stdin and returns what it
// wrote to stdout, which is checked to be one JSON value.
func (m *Module) Call(ctx context.Context, args []byte) (json.RawMessage, *Error) {
	if !m.rt.enter() {
		return nil, errClosed(m.opts.Name, "its runtime")
	}
	defer m.rt.calls.Done()
	if m.closed.Load() {
		return nil, errClosed(m.opts.Name, "the module")
	}
	c := newCall(ctx, m.rt.closing, m.opts.Limits)
	defer c.end()
	if m.pool != nil {
		return m.callPooled(c, args)
	}
	c.io = newInstanceIO(m.opts.Limits)
	c.io.reset(c.ctx, c.cancel, args)
	mod, err := m.start(c) // runs _start
	if mod != nil {
		mod.Close(context.Background())
	}
	c.io.mem.release()
	status, err := exitStatus(err)
	return m.outcome(c, status, err)
}

// exitStatus separates an exit (proc_exit, or a stop at the deadline, which
// wazero reports as an exit too) from a trap: it returns the exit status and
// nil, or 0 and the trap.
func exitStatus(err error) (uint32, error) {
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	return 0, err
}

// start makes an instance wired to c's streams, memory and clock, and runs
// its start functions: _start for a command, _initialize for a reactor.
func (m *Module) start(c *call) (api.Module, error) {
	io := c.io
	cfg := m.base.WithStdin(&io.stdin).WithStdout(&io.stdout).WithStderr(&io.stderr).WithNanosleep(io.sleep)
	return m.rt.rt.InstantiateModule(experimental.WithMemoryAllocator(c.ctx, io.mem), m.compiled, cfg)
}

// call is one call's context and streams.
type call struct {
	parent  context.Context
	closing context.Context // the runtime's: done once it is being closed
	ctx     context.Context
	cancel  context.CancelFunc
	unhook  func() bool
	io      *instanceIO
}

func newCall(parent, closing context.Context, lim Limits) *call {
	ctx, cancel := context.WithTimeout(parent, lim.Timeout)
	return &call{parent: parent, closing: closing, ctx: ctx, cancel: cancel, unhook: context.AfterFunc(closing, cancel)}
}

func (c *call) end() {
	c.unhook()
	c.cancel()
}

func errClosed(name, what string) *Error {
	return &Error{Code: CodeCanceled, Message: fmt.Sprintf("tool %q was stopped: %s was closed", name, what)}
}

// outcome turns how a call ended into its result or error. status is the
// exit status (command) or return value (reactor); err is a trap or a stop
// from outside. The order matters: a stop we caused (an output cap, a
// deadline) explains the trap or exit that followed it, and a call that
// returns after its deadline has not met it.
func (m *Module) outcome(c *call, status uint32, err error) (json.RawMessage, *Error) {
	name, lim, io := m.opts.Name, m.opts.Limits, c.io
	failed := err != nil || status != 0
	switch {
	case io.stdout.over:
		return nil, &Error{Code: CodeOutputLimit, Message: fmt.Sprintf("tool %q wrote more than %d bytes to stdout", name, lim.MaxStdoutBytes)}
	case io.stderr.over:
		return nil, &Error{Code: CodeOutputLimit, Message: fmt.Sprintf("tool %q wrote more than %d bytes to stderr", name, lim.MaxStderrBytes)}
	case c.closing.Err() != nil:
		return nil, errClosed(name, "its runtime")
	case c.parent.Err() != nil:
		code := CodeCanceled
		if errors.Is(c.parent.Err(), context.DeadlineExceeded) {
			code = CodeTimeout
		}
		return nil, &Error{Code: code, Message: fmt.Sprintf("tool %q was stopped: %v", name, context.Cause(c.parent))}
	case c.ctx.Err() != nil: // also a call that finished, late, after a sleep cut short
		return nil, &Error{Code: CodeTimeout, Message: fmt.Sprintf("tool %q did not finish within its timeout of %v", name, lim.Timeout)}
	case io.mem.refused > 0 && failed:
		return nil, &Error{Code: CodeMemoryLimit, Message: fmt.Sprintf("tool %q ran out of memory: it asked for %s, over its limit of %s%s",
			name, mib(io.mem.refused), mib(uint64(m.limitPages)*pageSize), io.stderrSuffix())}
	case err != nil:
		return nil, &Error{Code: CodeToolError, Message: fmt.Sprintf("tool %q crashed: %s%s", name, firstLine(err.Error()), io.stderrSuffix())}
	case status != 0:
		msg := io.stderrText()
		if msg == "" {
			msg = fmt.Sprintf("tool %q failed with exit status %d and no message", name, status)
		}
		return nil, &Error{Code: CodeToolError, Message: msg, ExitCode: status}
	}
	out := bytes.TrimSpace(io.stdout.buf)
	if len(out) == 0 {
		return nil, &Error{Code: CodeToolError, Message: fmt.Sprintf("tool %q wrote nothing to stdout (want one JSON value)", name)}
	}
	if !json.Valid(out) {
		return nil, &Error{Code: CodeToolError, Message: fmt.Sprintf("tool %q wrote invalid JSON to stdout: %q", name, clip(string(out), 200))}
	}
	return json.RawMessage(bytes.Clone(out)), nil
}

// callPooled runs the call on an idle instance, or a new one. An instance
// goes back to the pool only after a call that succeeded: a failure may have
// left it in any state.
func (m *Module) callPooled(c *call, args []byte) (json.RawMessage, *Error) {
	inst := m.pool.get()
	if inst == nil {
		c.io = newInstanceIO(m.opts.Limits)
		c.io.reset(c.ctx, c.cancel, args)
		var err error
		if inst, err = m.instantiate(c); err != nil {
			return m.outcome(c, 0, err)
		}
	} else {
		c.io = inst.io
		c.io.reset(c.ctx, c.cancel, args)
	}
	res, callErr := inst.fn.Call(c.ctx)
	status, err := exitStatus(callErr)
	switch {
	case callErr == nil:
		status = uint32(res[0])
	case err == nil && status == 0: // os.Exit(0) in a reactor: the instance cannot serve again
		err = errExitedReactor
	}
	out, cerr := m.outcome(c, status, err)
	if cerr != nil {
		inst.close()
	} else {
		m.pool.put(inst)
	}
	return out, cerr
}

var errExitedReactor = errors.New("the reactor exited instead of returning from " + CallExport)

// instantiate makes a reactor instance and runs its initialisation, on the
// first call's time.
func (m *Module) instantiate(c *call) (*instance, error) {
	mod, err := m.start(c)
	if err == nil && mod.IsClosed() { // _initialize exited: wazero reports exit 0 as no error
		err = errExitedReactor
	}
	if err != nil {
		if mod != nil {
			mod.Close(context.Background())
		}
		c.io.mem.release()
		return nil, err
	}
	return &instance{mod: mod, fn: mod.ExportedFunction(CallExport), io: c.io}, nil
}

// instance is a live reactor instance with its own streams.
type instance struct {
	mod api.Module
	fn  api.Function
	io  *instanceIO
}

// close closes the instance and then releases its memory: wazero's own
// release is deferred to here (see limitedMemory.Free).
func (inst *instance) close() {
	inst.mod.Close(context.Background())
	inst.io.mem.release()
}

// pool keeps idle instances of a pooled module, as many as calls ran at
// once recently, up to maxIdle.
type pool struct {
	mu     sync.Mutex
	idle   []*instance
	closed bool
}

// maxIdle bounds the idle instances kept per module: each holds its memory.
const maxIdle = 8

func (p *pool) get() *instance {
	p.mu.Lock()
	defer p.mu.Unlock()
	for n := len(p.idle); n > 0; n = len(p.idle) {
		inst := p.idle[n-1]
		p.idle = p.idle[:n-1]
		if !inst.mod.IsClosed() {
			return inst
		}
		inst.io.mem.release() // closed from outside while idle
	}
	return nil
}

func (p *pool) put(inst *instance) {
	p.mu.Lock()
	if !p.closed && len(p.idle) < maxIdle {
		p.idle = append(p.idle, inst)
		inst = nil
	}
	p.mu.Unlock()
	if inst != nil {
		inst.close()
	}
}

func (p *pool) close(ctx context.Context) {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, inst := range idle {
		inst.close()
	}
}

func mib(bytes uint64) string {
	if bytes%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", bytes>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(bytes)/(1<<20))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
