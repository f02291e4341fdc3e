package otelobserver

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-dev/codemode/engine"
)

// callStart opens a tool call's span as a child of its run's span, named and
// attributed per the GenAI conventions for tool execution.
func (o *observer) callStart(ctx context.Context, e engine.Event) {
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(e.Tool),
		semconv.GenAIToolCallID(e.CallID),
		semconv.GenAIToolType(toolTypeFunction),
		keyRunID.String(e.RunID),
	}
	if e.ParentID != "" {
		attrs = append(attrs, keyParentID.String(e.ParentID))
	}
	if e.Label != "" {
		attrs = append(attrs, keyBatchLabel.String(e.Label))
	}
	if o.cfg.args && len(e.Args) > 0 {
		attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(truncate(string(e.Args))))
	}
	opts := []trace.SpanStartOption{
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs...),
		at(e.Time),
	}

	// The run's context normally carries the caller's span, not the run's:
	// put the run span in so the call nests under its run.
	o.mu.Lock()
	if run := o.runs[e.RunID]; run != nil {
		ctx = trace.ContextWithSpan(ctx, run)
	}
	o.mu.Unlock()
	_, span := o.tracer.Start(ctx, "execute_tool "+e.Tool, opts...)

	// Started outside the lock (a sampler or processor may be slow). Should
	// the run end in between, which the engine never does, the entry below
	// lives only until this call's own end.
	o.mu.Lock()
	calls := o.calls[e.RunID]
	if calls == nil {
		calls = map[string]trace.Span{}
		o.calls[e.RunID] = calls
	}
	old := calls[e.CallID]
	calls[e.CallID] = span
	o.mu.Unlock()
	if old != nil { // a reused call id: close the old span rather than leak it
		old.SetStatus(codes.Error, "call id reused")
		old.End()
	}
}

// callEnd closes a tool call's span at the time the engine saw it finish.
func (o *observer) callEnd(e engine.Event) {
	o.mu.Lock()
	calls := o.calls[e.RunID]
	span := calls[e.CallID]
	if span != nil {
		delete(calls, e.CallID)
		if len(calls) == 0 {
			delete(o.calls, e.RunID)
		}
	}
	o.mu.Unlock()
	if span == nil {
		return // never started, or already closed by its run's end
	}

	if failed(e) {
		fail(span, e.Error, "tool call failed")
	} else if o.cfg.results && len(e.Result) > 0 {
		span.SetAttributes(semconv.GenAIToolCallResultKey.String(truncate(string(e.Result))))
	}
	span.End(at(e.Time))
}
