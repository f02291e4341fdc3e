package otelobserver

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-dev/codemode/engine"
)

// ScopeName is the instrumentation scope of the spans this package makes.
const ScopeName = "github.com/codemode-dev/codemode/engine/otelobserver"

// MaxPayloadBytes bounds a recorded argument, result or log message, so one
// large tool result cannot blow up a span (or an exporter's batch).
const MaxPayloadBytes = 4 << 10

// Option configures New.
type Option func(*config)

type config struct {
	args, results bool
}

// WithArgs records each call's arguments as gen_ai.tool.call.arguments,
// truncated to MaxPayloadBytes. Off by default: arguments can hold user data.
func WithArgs(on bool) Option { return func(c *config) { c.args = on } }

// WithResults records each successful call's result as
// gen_ai.tool.call.result, truncated to MaxPayloadBytes. Off by default:
// results can hold user data.
func WithResults(on bool) Option { return func(c *config) { c.results = on } }

// New returns an Observer that records runs and tool calls as spans of tp's
// tracer; a nil tp means the global provider, otel.GetTracerProvider().
func New(tp trace.TracerProvider, opts ...Option) engine.Observer {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	o := &observer{
		tracer: tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL)),
		runs:   map[string]trace.Span{},
		calls:  map[string]map[string]trace.Span{},
	}
	for _, opt := range opts {
		opt(&o.cfg)
	}
	return o
}

// observer holds the spans that are still open. Events of one run arrive on
// many goroutines, so the maps are guarded by mu; spans are started and ended
// outside the lock, because ending a span may run a synchronous exporter.
type observer struct {
	tracer trace.Tracer
	cfg    config

	mu    sync.Mutex
	runs  map[string]trace.Span            // run id → run span
	calls map[string]map[string]trace.Span // run id → call id → tool span
}

// Observe implements engine.Observer. Events it cannot place (an end without
// a start, an unknown type) are dropped: telemetry must never break a run.
func (o *observer) Observe(ctx context.Context, e engine.Event) {
	if ctx == nil {
		ctx = context.Background()
	}
	switch e.Type {
	case engine.EventRunStart:
		o.runStart(ctx, e)
	case engine.EventRunEnd:
		o.runEnd(e)
	case engine.EventToolCallStart:
		o.callStart(ctx, e)
	case engine.EventToolCallEnd:
		o.callEnd(e)
	case engine.EventLog:
		o.log(ctx, e)
	case engine.EventApprovalRequired:
		o.approval(ctx, e)
	}
}
