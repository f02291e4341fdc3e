package worker

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/wasm"
)

// Module is a WASM module whose calls run in the pool's workers: each
// worker compiles it the first time it gets one of its calls (from the
// pool's WasmCacheDir, when set, in a fraction of the first compile).
type Module struct {
	p    *Pool
	id   uint64
	load []byte // the moduleMsg, encoded once
	opts wasm.ModuleOptions
	// broken is why the module did not load in a worker: the same bytes
	// and options fail the same way in every worker, so later calls fail
	// at once with it instead of each compiling it again.
	broken atomic.Pointer[wasm.Error]
}

var moduleIDs atomic.Uint64

// Module makes a module of binary whose calls run in the pool. The binary
// should have compiled in this process first (wasm.Runtime.Compile), so
// that its mistakes are reported when it is loaded, not at its first call.
func (p *Pool) Module(binary []byte, opts wasm.ModuleOptions) (*Module, error) {
	return p.module(moduleMsg{Binary: binary, Options: opts})
}

// PreparedModule makes a module of a module wasm.Runtime.Prepare made in
// this process: the workers compile it as it is, without checking and
// rewriting it again (wasm.Runtime.CompilePrepared).
func (p *Pool) PreparedModule(prepared wasm.Prepared, opts wasm.ModuleOptions) (*Module, error) {
	return p.module(moduleMsg{Binary: prepared.Binary, Prepared: true, Options: opts})
}

func (p *Pool) module(msg moduleMsg) (*Module, error) {
	msg.ID = moduleIDs.Add(1)
	load, err := encodeModule(msg)
	if err != nil {
		return nil, err
	}
	return &Module{p: p, id: msg.ID, load: load, opts: msg.Options}, nil
}

// Call runs the module once in a worker, as wasm.Module.Call does in
// process: the same limits hold, enforced in the worker; the pool adds a
// wall-clock backstop and turns a crash of the worker into the call's error.
func (m *Module) Call(ctx context.Context, args []byte) (json.RawMessage, *wasm.Error) {
	if e := m.broken.Load(); e != nil {
		return nil, &wasm.Error{Code: e.Code, Message: e.Message}
	}
	p := m.p
	timeout := cmp.Or(m.opts.Limits.Timeout, wasm.DefaultTimeout)
	_, jerr := p.acquire(ctx, timeout)
	if jerr != nil {
		return nil, toWasmError(jerr)
	}
	defer func() { <-p.slots }()
	w, err := p.take()
	if err != nil {
		return nil, &wasm.Error{Code: wasm.CodeToolError, Message: "cannot start a worker process: " + err.Error()}
	}
	out, werr, healthy := w.callModule(ctx, m, args, timeout)
	p.put(w, healthy)
	return out, werr
}

func (w *proc) callModule(ctx context.Context, m *Module, args []byte, timeout time.Duration) (json.RawMessage, *wasm.Error, bool) {
	if !w.modules[m.id] {
		if werr, healthy := w.loadModule(ctx, m); werr != nil {
			return nil, werr, healthy
		}
	}
	body := make([]byte, 8+len(args))
	binary.BigEndian.PutUint64(body, m.id)
	copy(body[8:], args)
	if err := w.send(kindWasmCall, body); err != nil {
		return nil, toWasmError(w.crashError()), false
	}
	timer := newBackstop(timeout)
	defer timer.Stop()
	done := ctx.Done()
	var ended *js.Error
	for {
		select {
		case f, ok := <-w.frames:
			if !ok || f.err != nil {
				return nil, toWasmError(w.crashed(&hostRun{}).Err), false
			}
			if f.kind != kindWasmDone || len(f.body) == 0 {
				w.kill()
				return nil, &wasm.Error{Code: wasm.CodeToolError, Message: fmt.Sprintf("the worker process sent a message of kind %q to a WASM call; it was stopped", f.kind)}, false
			}
			if ended != nil {
				return nil, toWasmError(ended), true
			}
			if f.body[0] == 0 {
				return json.RawMessage(f.body[1:]), nil, true
			}
			var e wasmErr
			if json.Unmarshal(f.body[1:], &e) != nil {
				w.kill()
				return nil, &wasm.Error{Code: wasm.CodeToolError, Message: "the worker process sent a malformed error; it was stopped"}, false
			}
			return nil, &wasm.Error{Code: e.Code, Message: e.Message, ExitCode: e.ExitCode}, true
		case <-done:
			done = nil
			ended = ctxError(ctx)
			_ = w.send(kindCancel, nil)
			timer.Reset(250 * time.Millisecond)
		case <-timer.C:
			w.kill()
			if ended != nil {
				return nil, toWasmError(ended), false
			}
			return nil, &wasm.Error{Code: wasm.CodeTimeout, Message: fmt.Sprintf(
				"%q did not finish within its timeout of %v, and its worker process did not answer; it was killed", m.opts.Name, timeout)}, false
		}
	}
}

// loadTimeout bounds compiling a module in a worker. Compiling is not the
// call's: a Go tool compiles in about a second (much less from the cache),
// and its first call in each worker waits for that, not billed to the
// call's own timeout.
const loadTimeout = time.Minute

// loadModule has the worker compile m before its first call there.
func (w *proc) loadModule(ctx context.Context, m *Module) (*wasm.Error, bool) {
	w.sendAsync(kindModule, m.load)
	t := time.NewTimer(loadTimeout)
	defer t.Stop()
	select {
	case f, ok := <-w.frames:
		switch {
		case !ok || f.err != nil:
			return toWasmError(w.crashed(&hostRun{}).Err), false
		case f.kind != kindLoaded:
			w.kill()
			return &wasm.Error{Code: wasm.CodeToolError, Message: fmt.Sprintf("the worker process sent a message of kind %q while loading a module; it was stopped", f.kind)}, false
		case len(f.body) > 0:
			e := &wasm.Error{Code: wasm.CodeToolError, Message: fmt.Sprintf("%q does not load in the worker process: %s", m.opts.Name, cut(string(f.body), 500))}
			m.broken.Store(e)
			return e, true
		}
		w.modules[m.id] = true
		return nil, true
	case <-t.C:
		w.kill()
		return &wasm.Error{Code: wasm.CodeTimeout, Message: fmt.Sprintf("%q did not compile within %v in the worker process", m.opts.Name, loadTimeout)}, false
	case <-ctx.Done():
		w.kill() // it is compiling; a fresh worker is cheaper than waiting
		return toWasmError(ctxError(ctx)), false
	}
}

func toWasmError(e *js.Error) *wasm.Error {
	return &wasm.Error{Code: wasm.Code(e.Code), Message: e.Message}
}
