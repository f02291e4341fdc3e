package otelobserver

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-dev/codemode/engine"
)

// log records a script's log line as a span event on its run, so logs appear
// on the trace timeline between the tool calls around them.
func (o *observer) log(ctx context.Context, e engine.Event) {
	o.runSpan(ctx, e.RunID).AddEvent("log", at(e.Time), trace.WithAttributes(
		keyLogLevel.String(e.Level),
		keyLogMessage.String(truncate(e.Message)),
	))
}

// approval records that a set of calls waited for the Approver: the gap it
// leaves on the timeline is a human deciding, not a slow tool.
func (o *observer) approval(ctx context.Context, e engine.Event) {
	tools := make([]string, len(e.Approvals))
	ids := make([]string, len(e.Approvals))
	for i, a := range e.Approvals {
		tools[i], ids[i] = a.Tool, a.CallID
	}
	o.runSpan(ctx, e.RunID).AddEvent("approval_required", at(e.Time), trace.WithAttributes(
		keyApprovalCount.Int(len(e.Approvals)),
		keyApprovalTools.StringSlice(tools),
		keyApprovalCallID.StringSlice(ids),
	))
}
