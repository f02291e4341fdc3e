package engine

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
)

// scriptHost runs a script's tool calls for the sandbox: every call goes
// through run.invoke, like a batch operation; the gated calls made in the
// same turn of the script's event loop (a Promise.all fan-out) go to the
// Approver as one set when the turn ends.
type scriptHost struct {
	r                  *run
	ctx                context.Context
	scope              *scope
	sem                chan struct{} // maxConcurrency
	parentID, idPrefix string

	mu      sync.Mutex
	calls   []*js.Call
	records []CallRecord
	holding []bool // the call holds a slot of sem
	running int    // calls started and not yet complete
	closed  bool
	wg      sync.WaitGroup // calls without an outcome
}

func newScriptHost(r *run, ctx context.Context, maxConcurrency int, parentID, idPrefix string) *scriptHost {
	return &scriptHost{r: r, ctx: ctx, scope: newScope(ctx), sem: make(chan struct{}, maxConcurrency), parentID: parentID, idPrefix: idPrefix}
}

// Start implements js.Host.
func (h *scriptHost) Start(calls []*js.Call) {
	h.mu.Lock()
	if h.closed { // a stuck script, abandoned at its deadline, woke up: nothing more runs
		h.mu.Unlock()
		return
	}
	for _, c := range calls {
		for len(h.records) <= c.Index {
			h.records = append(h.records, CallRecord{})
			h.calls = append(h.calls, nil)
			h.holding = append(h.holding, false)
		}
		h.calls[c.Index] = c
		// The tool's name as the script wrote it, cut: the call itself looks up the whole name.
		h.records[c.Index] = CallRecord{Index: c.Index, Tool: clip(c.Tool, maxQuoteChars), Args: shownArgs(c.Args), Line: c.Line, Column: c.Column}
	}
	h.wg.Add(len(calls))
	alone := len(calls) == 1 && h.running == 0
	h.running += len(calls)
	h.mu.Unlock()

	e := h.r.eng
	var set []pendingApproval
	var gated []int
	cs := make([]*call, len(calls))
	for i, c := range calls {
		cs[i] = &call{id: h.idPrefix + strconv.Itoa(c.Index), parentID: h.parentID, tool: c.Tool, args: shownArgs(c.Args), notJSON: !json.Valid(c.Args)}
		p, ok := e.gate(cs[i], false)
		switch {
		case ok:
			set = append(set, p)
			gated = append(gated, i)
		case alone:
			h.inline(c, cs[i])
		default:
			h.dispatch(c, cs[i])
		}
	}
	if len(set) == 0 {
		return
	}
	go func() {
		release := calls[gated[0]].Hold() // waiting for a person is not billed to the script
		h.r.approve(h.ctx, set)
		release()
		for _, i := range gated {
			h.dispatch(calls[i], cs[i])
		}
	}()
}

// shownArgs is a call's arguments as the trace and the events show them:
// as they are when they are JSON, as JSON.stringify makes them; else, from
// a ScriptRunner that broke that promise, the text as a JSON string, cut to
// the bounds of a quoted name. Every answer stays JSON whatever a runner
// sends, and such a call fails invalid_args (call.notJSON).
func shownArgs(args json.RawMessage) json.RawMessage {
	if json.Valid(args) {
		return args
	}
	s, _ := json.Marshal(clip(string(args), maxQuoteChars))
	return s
}

// dispatch runs one call on a goroutine of its own once a concurrency slot
// is free. A call whose run ended while it waited still goes through
// invoke, which fails it as canceled with its events.
func (h *scriptHost) dispatch(c *js.Call, ec *call) {
	go func() {
		select {
		case h.sem <- struct{}{}:
			h.mu.Lock()
			h.holding[c.Index] = true
			h.mu.Unlock()
		case <-h.ctx.Done():
		}
		h.r.invoke(h.scope, ec, c.Index, h)
	}()
}

// inline runs a call on the caller's goroutine, the script's event loop.
// Start does this for a call made alone while no other call runs: the
// script can do nothing until it completes, and skipping the hand-over to a
// goroutine and back saves most of a call's overhead. A slot of sem is free,
// as nothing else runs.
func (h *scriptHost) inline(c *js.Call, ec *call) {
	h.sem <- struct{}{}
	h.mu.Lock()
	h.holding[c.Index] = true
	h.mu.Unlock()
	h.r.invoke(h.scope, ec, c.Index, h)
}

// complete is the completer of the script's calls: it records the outcome
// in the trace and settles the script's promise. Budget errors (a tool's
// timeout, cancelation) end the run; others are catchable.
func (h *scriptHost) complete(i int, out outcome, _ bool) {
	defer h.wg.Done()
	h.mu.Lock()
	if h.holding[i] {
		h.holding[i] = false
		<-h.sem
	}
	h.running--
	rec := &h.records[i]
	rec.Success, rec.ElapsedMS = out.err == nil, ms(out.elapsed)
	if out.err == nil {
		rec.Result = out.result
	} else {
		rec.Error = out.err
	}
	c := h.calls[i]
	h.mu.Unlock()
	switch {
	case out.err == nil:
		c.Resolve(out.result)
	case out.err.Code.Budget():
		c.Abort(toSandbox(out.err))
	default:
		c.Reject(toSandbox(out.err))
	}
}

// wait waits for the calls still running, until deadline.
func (h *scriptHost) wait(deadline time.Time) {
	done := make(chan struct{})
	go func() {
		h.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-h.ctx.Done():
	}
}

// close ends the host after the run's context was canceled: calls still
// running are rescued as canceled, and the trace is returned complete.
func (h *scriptHost) close() []CallRecord {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.wg.Wait()
	h.scope.close()
	if h.records == nil {
		return []CallRecord{}
	}
	return h.records
}
