package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/engine/internal/schema"
	"github.com/codemode-dev/codemode/engine/internal/suggest"
)

// call is one tool call on its way through the engine.
type call struct {
	id, parentID, label string
	tool                string
	args                json.RawMessage
	// approval holds a decision made ahead of time for a set of calls (a
	// batch, a model step). nil means: decide here, if the policy gates it.
	approval *approval
}

// outcome is what a call produced.
type outcome struct {
	result  json.RawMessage // valid JSON when err is nil
	err     *Error
	elapsed time.Duration
}

// invoke is the one path every tool call takes — batch operation, native tool
// call, script call, direct call: events, lookup, validation, approval,
// timeout, panic recovery, result check. Nothing may reach a handler any other way.
func (r *run) invoke(ctx context.Context, c *call) outcome {
	start := time.Now()
	if r.observed() {
		r.emit(ctx, Event{Type: EventToolCallStart, CallID: c.id, ParentID: c.parentID, Tool: c.tool, Label: c.label, Args: c.args, Time: start})
	}
	res, err := r.dispatch(ctx, c)
	out := outcome{result: res, err: err, elapsed: time.Since(start)}
	if r.observed() {
		ev := Event{Type: EventToolCallEnd, CallID: c.id, ParentID: c.parentID, Tool: c.tool, Label: c.label,
			Success: err == nil, Error: err, ElapsedMS: ms(out.elapsed)}
		if err == nil {
			ev.Result = res
		}
		r.emit(ctx, ev)
	}
	return out
}

func (r *run) dispatch(ctx context.Context, c *call) (json.RawMessage, *Error) {
	if err := ctx.Err(); err != nil {
		return nil, causeOf(ctx)
	}
	t, err := r.eng.lookup(c.tool)
	if err != nil {
		return nil, err
	}
	args, err := t.validate(c.args)
	if err != nil {
		return nil, err
	}
	if r.eng.gated(&t.Tool) {
		a := c.approval
		if a == nil || !a.decided {
			a = &approval{}
			r.approve(ctx, []pendingApproval{{req: c.approvalRequest(t), out: a}})
		}
		if ctx.Err() != nil {
			return nil, causeOf(ctx) // canceled while waiting: not a refusal
		}
		if !a.approved {
			return nil, a.err(c.tool)
		}
	}
	return t.run(ctx, args)
}

func (c *call) approvalRequest(t *registered) ApprovalRequest {
	args := c.args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return ApprovalRequest{CallID: c.id, ParentID: c.parentID, Tool: c.tool, Args: args, Annotations: t.Annotations}
}

// gated reports whether a call of t must be approved.
func (e *Engine) gated(t *Tool) bool { return e.approver != nil && e.policy(t) }

// lookup finds a tool or explains why there is none.
func (e *Engine) lookup(name string) (*registered, *Error) {
	if t, ok := e.tools[name]; ok {
		return t, nil
	}
	if reserved[name] {
		return nil, Errorf(CodeRecursion, "%q cannot be called from inside a batch or script", name)
	}
	err := Errorf(CodeUnknownTool, "unknown tool %q", name)
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
			path := x.Path
			if path == "" {
				path = "/"
			}
			parts[i] = path + ": " + x.Message
		}
		e.Message = fmt.Sprintf("invalid arguments for %q: %s", t.Name, strings.Join(parts, "; "))
		return nil, e
	}
	return args, nil
}

// run calls the handler under the tool's timeout. The handler runs on its own
// goroutine so that the deadline holds even for a handler that ignores its
// context, and a panic becomes a tool_error instead of taking the process
// down. This goroutine waits for the handler, the deadline and the run's
// context, and cancels the handler's context (see callCtx) when one ends.
func (t *registered) run(ctx context.Context, args json.RawMessage) (json.RawMessage, *Error) {
	cctx := newCallCtx(ctx, time.Now().Add(t.timeout))
	defer cctx.cancel(context.Canceled) // release what the handler derived from it
	timer := timers.Get().(*time.Timer)
	timer.Reset(t.timeout)
	defer func() {
		timer.Stop()
		timers.Put(timer)
	}()
	type reply struct {
		res json.RawMessage
		err error
	}
	done := make(chan reply, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- reply{err: Errorf(CodeToolError, "tool %q panicked: %v", t.Name, p)}
			}
		}()
		res, err := t.Handler(cctx, args)
		done <- reply{res, err}
	}()
	var rep reply
	var ended *Error // why the call's context ended before the handler returned
	select {
	case rep = <-done:
	case <-timer.C:
		cctx.cancel(context.DeadlineExceeded)
		e := *t.timeoutErr
		ended = &e
	case <-ctx.Done():
		cctx.cancel(ctx.Err())
		ended = causeOf(ctx)
	}
	if ended != nil {
		select {
		case rep = <-done: // finished at the same moment: keep the result
		default:
			return nil, ended
		}
	}
	if rep.err != nil {
		if cctx.Err() != nil && !isEngineError(rep.err) {
			if ended == nil {
				ended = causeOf(ctx)
				if ctx.Err() == nil {
					e := *t.timeoutErr
					ended = &e
				}
			}
			return nil, ended // the handler gave up because its context ended
		}
		return nil, AsError(rep.err, CodeToolError)
	}
	if len(rep.res) == 0 {
		return json.RawMessage("null"), nil
	}
	if !json.Valid(rep.res) {
		return nil, Errorf(CodeToolError, "tool %q returned invalid JSON", t.Name)
	}
	return rep.res, nil
}

func isEngineError(err error) bool {
	_, ok := err.(*Error)
	return ok
}

// causeOf turns a done context into the *Error that explains it: the cause
// set by the engine (a timeout naming its limit) or canceled/timeout.
func causeOf(ctx context.Context) *Error {
	err := *AsError(context.Cause(ctx), CodeCanceled)
	return &err // a copy: causes are shared by every call of a tool or batch
}
