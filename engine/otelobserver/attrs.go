package otelobserver

import (
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-dev/codemode/engine"
)

// codemode's own attributes: what the GenAI conventions have no name for.
const (
	keyRunID          = attribute.Key("codemode.run.id")
	keyRunKind        = attribute.Key("codemode.run.kind")
	keyParentID       = attribute.Key("codemode.parent.id")
	keyBatchLabel     = attribute.Key("codemode.batch.label")
	keyLogLevel       = attribute.Key("codemode.log.level")
	keyLogMessage     = attribute.Key("codemode.log.message")
	keyApprovalCount  = attribute.Key("codemode.approval.count")
	keyApprovalTools  = attribute.Key("codemode.approval.tools")
	keyApprovalCallID = attribute.Key("codemode.approval.call_ids")
)

// The GenAI conventions' tool type for a tool the application executes itself.
const toolTypeFunction = "function"

// msgRunEnded describes a tool span that its run's end had to close.
const msgRunEnded = "run ended before the call finished"

// at stamps a span start, end or event with the engine's clock, so span
// timing matches the events even when observation lags behind; an event
// without a time (built by hand) is stamped now.
func at(t time.Time) trace.SpanEventOption {
	if t.IsZero() {
		t = time.Now()
	}
	return trace.WithTimestamp(t)
}

// fail marks span as failed: error.type gets the engine's error code, the
// stable thing to group failures by, and the status the human message
// (fallback when err is nil or has none).
func fail(span trace.Span, err *engine.Error, fallback string) {
	msg := fallback
	if err != nil && err.Message != "" {
		msg = err.Message
	}
	span.SetAttributes(errorType(err))
	span.SetStatus(codes.Error, msg)
}

// errorType is the error.type attribute for err: its code, or the
// conventions' fallback "_OTHER" for a failure without an *engine.Error.
func errorType(err *engine.Error) attribute.KeyValue {
	if err == nil || err.Code == "" {
		return semconv.ErrorTypeOther
	}
	return semconv.ErrorTypeKey.String(string(err.Code))
}

// failed reports whether a run_end or tool_call_end reports a failure.
func failed(e engine.Event) bool { return !e.Success || e.Error != nil }

// truncate returns at most MaxPayloadBytes of s as valid UTF-8, ending in "…"
// when something was cut, so a reader can tell a clipped value from a whole one.
func truncate(s string) string {
	if len(s) <= MaxPayloadBytes {
		return s
	}
	const ellipsis = "…"
	cut := MaxPayloadBytes - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
