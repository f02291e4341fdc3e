package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Batch runs a batch request. The error is non-nil only when the request as a
// whole is rejected before anything runs (bad_request: malformed request,
// unknown $ref label, forward reference, cycle; limit_exceeded: too many
// operations); every per-operation failure is data in the result.
func (e *Engine) Batch(ctx context.Context, req BatchRequest) (*BatchResult, error) {
	r := e.startRun(ctx, RunBatch)
	b, err := r.prepareBatch(&req, r.id, "")
	if err != nil {
		r.finish(ctx, err)
		return nil, err
	}
	r.approve(ctx, b.approvalSet())
	res := b.execute(ctx)
	r.finishBatch(ctx, res)
	return res, nil
}

// CheckBatch returns the error Batch would reject req with before running
// anything, or nil, and runs nothing: no run starts, no event is sent. A
// front end that must wait before it can run a batch (for a board another
// run holds, for a free slot) tells with it a request that can never run,
// to answer at once, from one worth the wait.
func (e *Engine) CheckBatch(req BatchRequest) error {
	if _, _, _, err := e.planBatch(&req); err != nil {
		return err
	}
	return nil
}

// planBatch plans a request under the engine's limits, as tightened by it.
func (e *Engine) planBatch(req *BatchRequest) (*plan, Limits, []string, *Error) {
	limits, warnings := e.limitsFor(req)
	if n := len(req.Operations); n > limits.MaxOperations { // before planning: planning costs time per operation
		return nil, limits, nil, Errorf(CodeLimitExceeded, "the batch has %d operations; the limit is %d", n, limits.MaxOperations)
	}
	p, err := newPlan(req)
	return p, limits, warnings, err
}

func (r *run) finishBatch(ctx context.Context, res *BatchResult) {
	var err *Error
	if n := res.Summary.Failed + res.Summary.Skipped; n > 0 {
		err = Errorf(CodeToolError, "%d of %d operations did not succeed", n, res.Summary.Total)
	}
	r.finish(ctx, err)
}

// batchExec is one batch on its way: the plan, the limits in force, and the
// state of every operation.
type batchExec struct {
	r        *run
	p        *plan
	limits   Limits
	warnings []string
	parentID string
	idPrefix string        // call ids are idPrefix + operation index
	sem      chan struct{} // optional cap shared with sibling calls of a model step

	approvals []*approval // per operation; nil where none was needed
	states    []opState
	stop      atomic.Bool // stopOnError tripped

	scope    *scope         // the batch's context, watched for rescues
	ready    chan int       // operations ready to run
	waiting  []atomic.Int32 // parallel mode: references not yet completed, per operation
	left     atomic.Int32   // operations without an outcome
	finished chan struct{}  // closed when every operation has its outcome
}

type opState struct {
	out outcome

	decodeOnce sync.Once
	decoded    any // the result, decoded once for the operations that reference it
	decodeErr  error
}

// prepareBatch plans a request under the engine's limits.
func (r *run) prepareBatch(req *BatchRequest, parentID, idPrefix string) (*batchExec, *Error) {
	p, limits, warnings, err := r.eng.planBatch(req)
	if err != nil {
		return nil, err
	}
	if warnings == nil {
		warnings = []string{}
	}
	return &batchExec{
		r: r, p: p, limits: limits, warnings: warnings, parentID: parentID, idPrefix: idPrefix,
		approvals: make([]*approval, len(p.ops)), states: make([]opState, len(p.ops)),
	}, nil
}

func (b *batchExec) callID(i int) string { return b.idPrefix + strconv.Itoa(i) }

// approvalSet lists the gated operations, to be decided together before the
// batch starts (see gate). Args are as written: a $ref placeholder stands
// for a value produced inside the batch.
func (b *batchExec) approvalSet() []pendingApproval {
	var set []pendingApproval
	for i := range b.p.ops {
		op := &b.p.ops[i]
		c := call{id: b.callID(i), parentID: b.parentID, tool: op.Tool, args: op.Args}
		if p, ok := b.r.eng.gate(&c, op.tree != nil); ok {
			b.approvals[i] = c.approval
			set = append(set, p)
		}
	}
	return set
}

// execute runs the operations and shapes the result. The batch timeout starts
// here, after approvals: waiting for a person is not billed to the batch.
//
// Operations run on workers: min(maxConcurrency, n) in parallel mode, one in
// sequential mode, never on the caller's goroutine, so the caller can return
// at the deadline whatever a handler does. An operation is queued when it is
// ready — in parallel mode when every operation it references has completed,
// in sequential mode when the one before it has — and ready operations start
// in request order. A worker stuck in a handler past its deadline is replaced
// (see inflight.go).
func (b *batchExec) execute(ctx context.Context) *BatchResult {
	start := time.Now()
	ctx, cancel := context.WithTimeoutCause(ctx, b.limits.BatchTimeout.D(),
		Errorf(CodeTimeout, "the batch did not finish within its timeout of %v", b.limits.BatchTimeout.D()))
	defer cancel()
	b.scope = newScope(ctx)
	defer b.scope.close()
	n := len(b.p.ops)
	b.ready = make(chan int, n)
	b.finished = make(chan struct{})
	b.left.Store(int32(n))
	workers := min(b.limits.MaxConcurrency, n)
	if b.p.mode == Sequential {
		workers = 1
		b.ready <- 0
	} else {
		b.waiting = make([]atomic.Int32, n)
		for i := range b.p.ops {
			b.waiting[i].Store(int32(len(b.p.ops[i].deps)))
			if len(b.p.ops[i].deps) == 0 {
				b.ready <- i
			}
		}
	}
	for range workers {
		go b.work()
	}
	<-b.finished
	return b.result(time.Since(start))
}

// work runs ready operations until there are none left, or until this worker
// is written off, stuck in a handler past its deadline.
func (b *batchExec) work() {
	for i := range b.ready {
		if !b.runOp(i) {
			return
		}
	}
}

// complete is the completer of the batch's calls.
func (b *batchExec) complete(i int, out outcome, rescued bool) {
	if b.sem != nil {
		<-b.sem // a stuck handler keeps running but no longer holds a slot
	}
	b.states[i].out = out
	if rescued {
		go b.work() // the worker that ran this call is stuck: replace it
	}
	b.settle(i)
}

// settle records that operation i has its outcome and queues what that
// unblocks; the last one ends the batch.
func (b *batchExec) settle(i int) {
	if b.states[i].out.err != nil && b.p.req.StopOnError {
		b.stop.Store(true)
	}
	if b.p.mode == Sequential {
		if i+1 < len(b.p.ops) {
			b.ready <- i + 1
		}
	} else {
		for _, d := range b.p.dependents[i] {
			if b.waiting[d].Add(-1) == 0 {
				b.ready <- d
			}
		}
	}
	if b.left.Add(-1) == 0 {
		close(b.ready)
		close(b.finished)
	}
}

// runOp decides whether operation i can run, resolves its references and
// sends it down the one call path. It returns false when the calling worker
// was written off.
func (b *batchExec) runOp(i int) bool {
	ctx := b.scope.ctx
	st := &b.states[i]
	op := &b.p.ops[i]
	fail := func(err *Error) bool {
		st.out.err = err
		b.settle(i)
		return true
	}
	if b.stop.Load() { // before dependencies: with stopOnError, the rest are skipped (docs/batch.md)
		return fail(errSkipped())
	}
	for _, d := range op.deps {
		if b.states[d].out.err != nil {
			return fail(Errorf(CodeDependencyFailed, "operation %d uses the result of operation %d (%s), which failed with %s",
				i, d, clip(b.p.ops[d].Label, maxQuoteChars), b.states[d].out.err.Code))
		}
	}
	if ctx.Err() != nil {
		return fail(causeOf(ctx))
	}
	args := op.Args
	if op.tree != nil {
		var err *Error
		if args, err = b.resolveArgs(op); err != nil {
			return fail(err)
		}
	}
	if b.sem != nil {
		select {
		case b.sem <- struct{}{}:
		case <-ctx.Done():
			return fail(causeOf(ctx))
		}
		if b.stop.Load() { // a failure landed while this one waited for a slot
			<-b.sem
			return fail(errSkipped())
		}
	}
	c := call{id: b.callID(i), parentID: b.parentID, label: op.Label, tool: op.Tool, args: args, approval: b.approvals[i]}
	return b.r.invoke(b.scope, &c, i, b)
}

func errSkipped() *Error {
	return Errorf(CodeSkipped, "not run: an earlier operation failed and stopOnError is set")
}

// resolveArgs replaces the references in an operation's args with values from
// the results they name; each result is decoded once however often it is used.
func (b *batchExec) resolveArgs(op *plannedOp) (json.RawMessage, *Error) {
	labels := make(map[string]int, len(op.deps))
	for _, d := range op.deps {
		labels[b.p.ops[d].Label] = d
	}
	tree, err := substitute(op.tree, func(s string) (any, *Error) {
		ref := parseReference(s)
		st := &b.states[labels[ref.label]]
		st.decodeOnce.Do(func() { st.decoded, st.decodeErr = decodeJSON(st.out.result) })
		if st.decodeErr != nil {
			return nil, Errorf(CodeInvalidArgs, "$ref %s: the result of %s cannot be decoded: %v", quote(s), quote(ref.label), st.decodeErr)
		}
		return lookupPath(st.decoded, ref, s)
	})
	if err != nil {
		return nil, err
	}
	out, jerr := json.Marshal(tree)
	if jerr != nil {
		return nil, Errorf(CodeInvalidArgs, "cannot encode resolved arguments: %v", jerr)
	}
	return out, nil
}

// result assembles the results in request order and applies the output caps.
func (b *batchExec) result(elapsed time.Duration) *BatchResult {
	res := &BatchResult{
		Summary: BatchSummary{Total: len(b.p.ops), ElapsedMS: ms(elapsed), ExecutionMode: b.p.mode, Warnings: b.warnings},
		Results: make([]OperationResult, len(b.p.ops)),
	}
	caps := newOutputCaps(b.limits.MaxAggregateChars)
	for i := range b.p.ops {
		op, st := &b.p.ops[i], &b.states[i]
		// The tool and label are echoed cut: a client may have sent megabytes.
		or := OperationResult{Index: i, Tool: clip(op.Tool, maxQuoteChars), Label: clip(op.Label, maxQuoteChars), ElapsedMS: ms(st.out.elapsed)}
		switch {
		case st.out.err == nil:
			or.Success = true
			res.Summary.Successful++
			or.Result, or.Truncated = caps.cut(st.out.result, b.resultCap(op.Tool))
			if or.Truncated {
				res.Summary.Warnings = append(res.Summary.Warnings, fmt.Sprintf("the result of operation %d (%s) was cut to fit the output limits", i, op.Tool))
			}
		case st.out.err.Code == CodeSkipped:
			or.Error = st.out.err
			res.Summary.Skipped++
		default:
			or.Error = st.out.err
			res.Summary.Failed++
		}
		res.Results[i] = or
	}
	if caps.exhausted {
		res.Summary.Warnings = append(res.Summary.Warnings, fmt.Sprintf("the results together exceeded %d characters; later results were cut", b.limits.MaxAggregateChars))
	}
	return res
}

// resultCap is the per-result cap of a tool: its own (configured per tool or
// globally), tightened by the request's maxResultChars when it asked for less.
func (b *batchExec) resultCap(tool string) int {
	limit := b.r.eng.cfg.Limits.MaxResultChars
	if t, ok := b.r.eng.tools[tool]; ok {
		limit = t.maxResultChars
	}
	if b.limits.MaxResultChars < b.r.eng.cfg.Limits.MaxResultChars {
		limit = min(limit, b.limits.MaxResultChars)
	}
	return limit
}
