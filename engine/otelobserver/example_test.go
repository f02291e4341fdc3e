package otelobserver_test

import (
	"context"
	"fmt"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/engine/otelobserver"
)

// The events of a batch of two calls, one failing, become a run span with a
// tool span per call. In a program the engine emits these events itself: pass
// the observer to engine.NewBuilder().WithObserver.
func Example() {
	rec := tracetest.NewSpanRecorder() // stands in for a real exporter
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	obs := otelobserver.New(tp)

	ctx, now := context.Background(), time.Now()
	for _, e := range []engine.Event{
		{Type: engine.EventRunStart, RunID: "run_1", Kind: engine.RunBatch},
		{Type: engine.EventToolCallStart, RunID: "run_1", CallID: "op1", Tool: "get_weather"},
		{Type: engine.EventToolCallStart, RunID: "run_1", CallID: "op2", Tool: "get_time"},
		{Type: engine.EventToolCallEnd, RunID: "run_1", CallID: "op1", Tool: "get_weather", Success: true},
		{Type: engine.EventToolCallEnd, RunID: "run_1", CallID: "op2", Tool: "get_time",
			Error: engine.Errorf(engine.CodeTimeout, "no answer in 5s")},
		{Type: engine.EventRunEnd, RunID: "run_1", Kind: engine.RunBatch, Success: true},
	} {
		e.Time = now
		obs.Observe(ctx, e)
	}

	for _, s := range rec.Ended() {
		line := fmt.Sprintf("%-24s %s", s.Name(), s.Status().Code)
		if d := s.Status().Description; d != "" {
			line += ": " + d
		}
		fmt.Println(line)
	}
	// Output:
	// execute_tool get_weather Unset
	// execute_tool get_time    Error: no answer in 5s
	// codemode.batch           Unset
}
