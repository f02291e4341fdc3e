package otelobserver

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-dev/codemode/engine"
)

// runStart opens the run's span under the caller's context, so the run nests
// inside whatever request or agent step started it.
func (o *observer) runStart(ctx context.Context, e engine.Event) {
	kind := string(e.Kind)
	if kind == "" {
		kind = "run"
	}
	opts := []trace.SpanStartOption{
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(keyRunID.String(e.RunID), keyRunKind.String(string(e.Kind))),
		at(e.Time),
	}
	_, span := o.tracer.Start(ctx, "codemode."+kind, opts...)

	o.mu.Lock()
	old := o.runs[e.RunID]
	o.runs[e.RunID] = span
	o.mu.Unlock()
	if old != nil { // a reused run id: close the old span rather than leak it
		old.SetStatus(codes.Error, "run id reused")
		old.End()
	}
}

// runEnd closes the run's span and any tool span of the run still open: the
// run is over, so those calls will never be reported as ended by it, and an
// open span would leak both memory here and a never-exported span.
func (o *observer) runEnd(e engine.Event) {
	o.mu.Lock()
	span := o.runs[e.RunID]
	delete(o.runs, e.RunID)
	open := o.calls[e.RunID]
	delete(o.calls, e.RunID)
	o.mu.Unlock()

	// A call cut short by a failed run (say, a timeout) takes the run's code.
	var runErr *engine.Error
	if failed(e) {
		runErr = e.Error
	}
	for _, call := range open {
		call.SetAttributes(errorType(runErr))
		call.SetStatus(codes.Error, msgRunEnded)
		call.End(at(e.Time))
	}
	if span == nil {
		return
	}
	if failed(e) {
		fail(span, e.Error, "run failed")
	}
	span.End(at(e.Time))
}

// runSpan returns the span for events of a run: the run's own span, or, for a
// run this observer never saw start, the span of the run's context.
func (o *observer) runSpan(ctx context.Context, runID string) trace.Span {
	o.mu.Lock()
	span := o.runs[runID]
	o.mu.Unlock()
	if span == nil {
		span = trace.SpanFromContext(ctx)
	}
	return span
}
