package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/engine/internal/schema"
	"github.com/codemode-dev/codemode/internal/suggest"
)

// call is one tool call on its way through the engine.
type call struct {
	id, parentID, label string
	tool                string
	args                json.RawMessage
	// approval holds a decision made ahead of time for a set of calls (a
	// batch, a model step). nil means: decide here, if the policy gates it.
	approval *approval
	// notJSON marks a script's call whose arguments were not JSON (args
	// then shows them as a string, shownArgs): it fails before the lookup.
	notJSON bool
}

// outcome is what a call produced.
type outcome struct {
	result  json.RawMessage // valid JSON when err is nil
	err     *Error
	elapsed time.Duration
}

// invoke is the one path every tool call takes — batch operation, native tool
// call, script call, direct call: events, lookup, validation, approval, the
// handler under its timeout, panic recovery, result check. Nothing may reach
// a handler any other way.
//
// The outcome goes to to.complete(i, ...) exactly once. The handler runs on
// the calling goroutine; if its deadline passes or s's context ends first,
// the call is rescued (see inflight.go) and invoke returns false once the
// handler finally returns: the calling goroutine was written off.
func (r *run) invoke(s *scope, c *call, i int, to completer) bool {
	ctx := s.ctx
	start := time.Now()
	if r.observed() {
		r.emit(ctx, Event{Type: EventToolCallStart, CallID: c.id, ParentID: c.parentID, Tool: c.tool, Label: c.label, Args: c.args, Time: start})
	}
	t, args, err := r.prepare(ctx, c)
	if err != nil {
		r.complete(ctx, c, start, nil, err, i, to, false)
		return true
	}
	f := inflights.Get().(*inflight)
	f.r, f.s, f.c, f.t, f.i, f.to, f.start = r, s, *c, t, i, to, start
	f.cctx = newCallCtx(ctx, time.Now().Add(t.timeout)) // the timeout counts from here, after any approval wait
	f.cctx.info = CallInfo{RunID: r.id, CallID: c.id, ParentID: c.parentID, Tool: c.tool}
	f.state.Store(false)
	s.add(f)
	f.timer.Reset(t.timeout)
	if ctx.Err() != nil && f.state.CompareAndSwap(false, true) { // ended before add: the scope's rescue missed this call
		f.s.remove(f)
		f.rescued(causeOf(ctx), ctx.Err())
		return false
	}
	res, herr := t.call(f.cctx, args)
	if !f.state.CompareAndSwap(false, true) {
		return false // rescued: the outcome went out at the deadline
	}
	reusable := f.timer.Stop()
	s.remove(f)
	f.cctx.cancel(context.Canceled) // release what the handler derived from it
	res, err = t.check(res, herr)
	r.complete(ctx, c, start, res, err, i, to, false)
	if reusable {
		f.r, f.s, f.c, f.t, f.to, f.cctx = nil, nil, call{}, nil, nil, nil
		inflights.Put(f)
	}
	return true
}

// complete emits the end event and hands the outcome on. Every call's error
// passes here, whoever made it (a tool, a WASM module's stderr, an Approver's
// reason), so this is where it is cut to the bounds of bounds.go.
func (r *run) complete(ctx context.Context, c *call, start time.Time, res json.RawMessage, err *Error, i int, to completer, rescued bool) {
	err = err.bounded()
	out := outcome{result: res, err: err, elapsed: time.Since(start)}
	if r.observed() {
		ev := Event{Type: EventToolCallEnd, CallID: c.id, ParentID: c.parentID, Tool: c.tool, Label: c.label,
			Success: err == nil, Error: err, ElapsedMS: ms(out.elapsed)}
		if err == nil {
			ev.Result = res
		}
		r.emit(ctx, ev)
	}
	to.complete(i, out, rescued)
}

// waiter is the completer of a single call run on a goroutine of its own.
type waiter chan outcome

func (w waiter) complete(_ int, out outcome, _ bool) { w <- out }

// invokeWait runs one call on a goroutine of its own and waits for its
// outcome, for callers with no goroutine to hand work on to (Engine.Call).
func (r *run) invokeWait(ctx context.Context, c *call) outcome {
	s := newScope(ctx)
	defer s.close()
	w := make(waiter, 1)
	go r.invoke(s, c, 0, w)
	return <-w
}

// prepare does everything before the handler: lookup, validation, approval.
func (r *run) prepare(ctx context.Context, c *call) (*registered, json.RawMessage, *Error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, causeOf(ctx)
	}
	if c.notJSON {
		return nil, nil, Errorf(CodeInvalidArgs, "the arguments of the call of %s are not JSON", quote(c.tool))
	}
	t, err := r.eng.lookup(c.tool)
	if err != nil {
		return nil, nil, err
	}
	args, err := t.validate(c.args)
	if err != nil {
		return nil, nil, err
	}
	if r.eng.gated(&t.Tool) {
		if c.approval == nil || !c.approval.decided {
			// No decision made for a set ahead of time: a set of one, now.
			p, ok := r.eng.gate(c, true) // validated above
			if !ok {                     // t is registered and gated, so gate always sets one; deny if not
				return nil, nil, Errorf(CodeDenied, "call of %q was denied: no approval was asked", c.tool)
			}
			r.approve(ctx, []pendingApproval{p})
		}
		if ctx.Err() != nil {
			return nil, nil, causeOf(ctx) // canceled while waiting: not a refusal
		}
		if !c.approval.approved {
			return nil, nil, c.approval.err(c.tool)
		}
	}
	return t, args, nil
}

func (c *call) approvalRequest(t *registered) ApprovalRequest {
	args := c.args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return ApprovalRequest{CallID: c.id, ParentID: c.parentID, Tool: c.tool, Args: args, Annotations: t.Annotations}
}

// gated reports whether a call of t must be approved. search_tools never is:
// it reads only the engine's own tool list.
func (e *Engine) gated(t *Tool) bool {
	return e.approver != nil && t.Name != MetaSearchTools && e.policy(t)
}

// lookup finds a tool or explains why there is none.
func (e *Engine) lookup(name string) (*registered, *Error) {
	if t, ok := e.tools[name]; ok {
		return t, nil
	}
	if name == MetaSearchTools && e.search != nil {
		return e.search, nil
	}
	if reserved[name] {
		return nil, Errorf(CodeRecursion, "%q cannot be called from inside a batch or script", name)
	}
	err := Errorf(CodeUnknownTool, "unknown tool %s", quote(name))
	err.Suggestions = suggest.Names(name, e.names)
	return nil, err
}

// validate checks args against the tool's schema; empty args mean {}.
func (t *registered) validate(args json.RawMessage) (json.RawMessage, *Error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if t.schema.AcceptsAnyObject() && args[0] == '{' && json.Valid(args) {
		return args, nil
	}
	v, err := schema.Decode(args)
	if err != nil {
		return nil, Errorf(CodeInvalidArgs, "arguments of %q are not valid JSON: %v", t.Name, err)
	}
	if vs := t.schema.Validate(v); len(vs) > 0 {
		e := &Error{Code: CodeInvalidArgs, Details: make([]Violation, len(vs))}
		parts := make([]string, len(vs))
		for i, x := range vs {
			e.Details[i] = Violation(x)
			parts[i] = x.Message // the root ("" as a JSON pointer) needs no prefix
			if x.Path != "" {
				parts[i] = x.Path + ": " + x.Message
			}
		}
		e.Message = fmt.Sprintf("invalid arguments for %q: %s", t.Name, strings.Join(parts, "; "))
		return nil, e
	}
	return args, nil
}

// call runs the handler, turning a panic into a tool_error instead of
// letting it take the process down.
func (t *registered) call(ctx context.Context, args json.RawMessage) (res json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, Errorf(CodeToolError, "tool %q panicked: %v", t.Name, p)
		}
	}()
	return t.Handler(ctx, args)
}

// check turns what a handler returned in time into the call's result or error.
func (t *registered) check(res json.RawMessage, err error) (json.RawMessage, *Error) {
	if err != nil {
		return nil, AsError(err, CodeToolError)
	}
	if len(res) == 0 {
		return json.RawMessage("null"), nil
	}
	if !json.Valid(res) {
		return nil, Errorf(CodeToolError, "tool %q returned invalid JSON", t.Name)
	}
	return res, nil
}

// causeOf turns a done context into the *Error that explains it: the cause
// set by the engine (a timeout naming its limit) or canceled/timeout.
func causeOf(ctx context.Context) *Error {
	err := *AsError(context.Cause(ctx), CodeCanceled)
	return &err // a copy: causes are shared by every call of a tool or batch
}
