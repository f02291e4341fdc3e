package otelobserver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-dev/codemode/engine"
)

// setup returns an observer recording into a fresh SpanRecorder, plus a
// tracer of the same provider for making "caller" spans.
func setup(t *testing.T, opts ...Option) (*observer, *tracetest.SpanRecorder, trace.Tracer) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return New(tp, opts...).(*observer), rec, tp.Tracer("test")
}

// t0 is the base of the hand-made events' clock; ms(n) is n ms after it.
var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

// Event constructors, so tests read as the sequence the engine would emit.

func runStart(run string, kind engine.RunKind, at time.Time) engine.Event {
	return engine.Event{Type: engine.EventRunStart, RunID: run, Kind: kind, Time: at}
}

func runEnd(run string, kind engine.RunKind, err *engine.Error, at time.Time) engine.Event {
	return engine.Event{Type: engine.EventRunEnd, RunID: run, Kind: kind, Time: at, Success: err == nil, Error: err}
}

func callStart(run, call, tool string, at time.Time) engine.Event {
	return engine.Event{Type: engine.EventToolCallStart, RunID: run, CallID: call, ParentID: run, Tool: tool, Time: at,
		Args: json.RawMessage(`{"q":1}`)}
}

func callEnd(run, call, tool string, err *engine.Error, at time.Time) engine.Event {
	e := engine.Event{Type: engine.EventToolCallEnd, RunID: run, CallID: call, ParentID: run, Tool: tool, Time: at,
		Success: err == nil, Error: err}
	if err == nil {
		e.Result = json.RawMessage(`{"ok":true}`)
	}
	return e
}

// span is the part of a recorded span the tests assert on, in a form cmp can
// compare: parents by name, attributes as plain Go values.
type span struct {
	Name    string
	Parent  string // name of the parent span, "" for a root
	Kind    trace.SpanKind
	Start   time.Time
	End     time.Time
	Status  codes.Code
	Message string
	Attrs   map[string]any
	Events  []event
}

type event struct {
	Name  string
	Time  time.Time
	Attrs map[string]any
}

// spans summarises the recorder's ended spans, in the order they ended.
func spans(rec *tracetest.SpanRecorder) []span {
	ended := rec.Ended()
	names := map[trace.SpanID]string{}
	for _, s := range ended {
		names[s.SpanContext().SpanID()] = s.Name()
	}
	for _, s := range rec.Started() { // parents that have not ended yet
		names[s.SpanContext().SpanID()] = s.Name()
	}
	var out []span
	for _, s := range ended {
		sp := span{
			Name:    s.Name(),
			Parent:  names[s.Parent().SpanID()],
			Kind:    s.SpanKind(),
			Start:   s.StartTime(),
			End:     s.EndTime(),
			Status:  s.Status().Code,
			Message: s.Status().Description,
			Attrs:   attrs(s.Attributes()),
		}
		for _, e := range s.Events() {
			sp.Events = append(sp.Events, event{Name: e.Name, Time: e.Time, Attrs: attrs(e.Attributes)})
		}
		out = append(out, sp)
	}
	return out
}

func attrs(kvs []attribute.KeyValue) map[string]any {
	if len(kvs) == 0 {
		return nil
	}
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

// byName finds the summarised span with the given name.
func byName(t *testing.T, all []span, name string) span {
	t.Helper()
	for _, s := range all {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no span named %q", name)
	return span{}
}
