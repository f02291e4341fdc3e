package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ApprovalRequest is one call waiting for a decision.
type ApprovalRequest struct {
	CallID   string `json:"callId"`
	ParentID string `json:"parentId,omitempty"`
	Tool     string `json:"tool"`
	// Args as the caller wrote them. In a batch, a {"$ref": ...} placeholder
	// stands for a value another operation of the same batch will produce.
	Args        json.RawMessage `json:"args"`
	Annotations Annotations     `json:"annotations"`
	// Truncated is set only in an approval_required event whose copy of Args
	// was cut to the tool's result cap; the Approver sees Args whole.
	Truncated bool `json:"truncated,omitempty"`
}

// Decision answers one ApprovalRequest.
type Decision struct {
	Approved bool   `json:"approved"`
	Reason   string `json:"reason,omitempty"` // shown in the denied error's message
}

// Approver decides a set of pending calls at once, so a host can show a
// person several calls in one prompt. It returns one decision per request,
// in order. An error, or the wrong number of decisions, denies every call of
// the set.
//
// A set is every gated call that is known at one moment, asked before any
// of them runs:
//
//   - Batch: all the batch's gated operations, before the batch starts.
//   - HandleToolCalls: the step's direct calls and the operations of its
//     batch calls, all in one set, before anything of the step runs.
//   - Execute, and each execute_code call of a step: a script's calls are
//     known only as it makes them, so they cannot join the step's set. The
//     gated calls a script makes in one turn of its event loop (before it
//     next waits, e.g. a Promise.all) form one set, asked when the turn
//     ends; a later turn asks again. A step with an execute_code call
//     therefore asks once for its direct and batch calls, then once per
//     turn of each script that makes gated calls.
//   - Call: a set of one.
//
// Calls sure to fail anyway (an unknown tool, arguments that fail
// validation and hold no $ref placeholder) are not put to the Approver.
type Approver interface {
	Approve(ctx context.Context, reqs []ApprovalRequest) ([]Decision, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, reqs []ApprovalRequest) ([]Decision, error)

func (f ApproverFunc) Approve(ctx context.Context, reqs []ApprovalRequest) ([]Decision, error) {
	return f(ctx, reqs)
}

// ApprovalPolicy reports whether a call of tool t needs the Approver.
type ApprovalPolicy func(t *Tool) bool

// GateWrites is the default policy: read-only tools run without asking,
// every other tool goes to the Approver.
func GateWrites(t *Tool) bool { return !t.Annotations.ReadOnlyHint }

// approval is the engine-side state of one gated call: the decision, once made.
type approval struct {
	decided  bool
	approved bool
	reason   string
}

func (a *approval) err(tool string) *Error {
	msg := fmt.Sprintf("call of %q was denied", tool)
	if a.reason != "" {
		msg += ": " + a.reason
	}
	return &Error{Code: CodeDenied, Message: msg}
}

// pendingApproval pairs a request with where its decision goes.
type pendingApproval struct {
	req ApprovalRequest
	out *approval
}

// gate is the approval pre-check, the one every front end uses when it
// gathers a set ahead of running it (a batch, a model step, a turn of a
// script) and prepare uses for a call that reaches it undecided: if c's tool
// is gated and c can pass validation, gate gives c an approval to wait for
// and returns the request that decides it. A call of an unknown tool or
// with arguments that fail validation is not asked about: it fails before
// approval anyway. skipValidation is for args that cannot be validated yet
// (a batch operation's, holding $ref placeholders: asked about as written)
// or already were (prepare).
func (e *Engine) gate(c *call, skipValidation bool) (pendingApproval, bool) {
	t, ok := e.tools[c.tool]
	if !ok || !e.gated(&t.Tool) || c.notJSON { // a call that fails anyway is not worth a person's time
		return pendingApproval{}, false
	}
	if !skipValidation {
		if _, err := t.validate(c.args); err != nil {
			return pendingApproval{}, false
		}
	}
	c.approval = &approval{}
	return pendingApproval{req: c.approvalRequest(t), out: c.approval}, true
}

// approve sends the set to the Approver in one request (after an
// approval_required event) and records every decision. It never fails: an
// Approver error or a timeout denies the whole set, with the reason.
//
// Config.ApprovalTimeout bounds the run's approvals together, not each set:
// a set may wait what the run's earlier sets left of it, and once they have
// used it up, a set is denied at once, with the timeout's reason, without an
// approval_required event or a word to the Approver. A script that makes
// its gated calls one after another therefore holds its run for at most one
// approval timeout, however many calls it makes.
func (r *run) approve(ctx context.Context, set []pendingApproval) {
	if len(set) == 0 {
		return
	}
	budget := r.eng.cfg.ApprovalTimeout.D()
	r.approvalMu.Lock()
	left := budget - r.waited
	r.approvalMu.Unlock()
	timedOut := fmt.Errorf("approval timed out after %v", budget)
	if left <= 0 {
		for _, p := range set {
			p.out.decided, p.out.reason = true, timedOut.Error()
		}
		return
	}
	reqs := make([]ApprovalRequest, len(set))
	for i, p := range set {
		reqs[i] = p.req
	}
	r.emit(ctx, Event{Type: EventApprovalRequired, Approvals: reqs})
	start := time.Now()
	defer func() {
		r.approvalMu.Lock()
		r.waited += time.Since(start)
		r.approvalMu.Unlock()
	}()
	actx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	// The Approver runs on its own goroutine so that the approval timeout and
	// the caller's cancelation hold even for an Approver that ignores actx.
	type answer struct {
		decisions []Decision
		err       error
	}
	ch := make(chan answer, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- answer{err: fmt.Errorf("approver panicked: %v", p)}
			}
		}()
		d, err := r.eng.approver.Approve(actx, reqs)
		ch <- answer{d, err}
	}()
	var decisions []Decision
	var err error
	select {
	case a := <-ch:
		decisions, err = a.decisions, a.err
	case <-actx.Done():
	}
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("the run was canceled while waiting for approval")
	case actx.Err() != nil:
		err = timedOut
	case err == nil && len(decisions) != len(reqs):
		err = fmt.Errorf("approver returned %d decisions for %d calls", len(decisions), len(reqs))
	}
	for i, p := range set {
		p.out.decided = true
		if err != nil {
			p.out.reason = err.Error()
			continue
		}
		p.out.approved = decisions[i].Approved
		p.out.reason = decisions[i].Reason
	}
}
