package otelobserver

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-dev/codemode/engine"
)

// A batch of three calls, one failing, becomes one run span under the
// caller's span and three GenAI tool spans under the run span; log and
// approval events land on the run span.
func TestRunWithToolCalls(t *testing.T) {
	o, rec, tracer := setup(t)
	ctx, caller := tracer.Start(context.Background(), "caller")
	runCtx, cancel := context.WithCancel(ctx) // the engine derives the run's context
	defer cancel()

	const run = "run_1"
	search := callStart(run, "c1", "search", ms(1))
	search.Label = "find"
	write := callStart(run, "c3", "write", ms(3))
	write.ParentID = "provider_batch_7" // unwrapped from a native batch call

	o.Observe(ctx, runStart(run, engine.RunBatch, ms(0)))
	for _, e := range []engine.Event{
		search,
		callStart(run, "c2", "fetch", ms(2)),
		write,
		{Type: engine.EventLog, RunID: run, Time: ms(4), Level: "info", Message: "hello"},
		callEnd(run, "c2", "fetch", engine.Errorf(engine.CodeToolError, "404 not found"), ms(5)),
		{Type: engine.EventApprovalRequired, RunID: run, Time: ms(6), Approvals: []engine.ApprovalRequest{
			{CallID: "c3", Tool: "write"}, {CallID: "c4", Tool: "delete"},
		}},
		callEnd(run, "c1", "search", nil, ms(7)),
		callEnd(run, "c3", "write", nil, ms(8)),
		runEnd(run, engine.RunBatch, nil, ms(9)),
	} {
		o.Observe(runCtx, e)
	}
	caller.End()

	tool := func(name, call, label, parentID string) map[string]any {
		m := map[string]any{
			"gen_ai.operation.name": "execute_tool",
			"gen_ai.tool.name":      name,
			"gen_ai.tool.call.id":   call,
			"gen_ai.tool.type":      "function",
			"codemode.run.id":       run,
			"codemode.parent.id":    parentID,
		}
		if label != "" {
			m["codemode.batch.label"] = label
		}
		return m
	}
	fetchAttrs := tool("fetch", "c2", "", run)
	fetchAttrs["error.type"] = "tool_error"

	want := []span{{
		Name: "execute_tool fetch", Parent: "codemode.batch", Kind: trace.SpanKindInternal,
		Start: ms(2), End: ms(5), Status: codes.Error, Message: "404 not found",
		Attrs: fetchAttrs,
	}, {
		Name: "execute_tool search", Parent: "codemode.batch", Kind: trace.SpanKindInternal,
		Start: ms(1), End: ms(7), Attrs: tool("search", "c1", "find", run),
	}, {
		Name: "execute_tool write", Parent: "codemode.batch", Kind: trace.SpanKindInternal,
		Start: ms(3), End: ms(8), Attrs: tool("write", "c3", "", "provider_batch_7"),
	}, {
		Name: "codemode.batch", Parent: "caller", Kind: trace.SpanKindInternal,
		Start: ms(0), End: ms(9),
		Attrs: map[string]any{"codemode.run.id": run, "codemode.run.kind": "batch"},
		Events: []event{{
			Name: "log", Time: ms(4),
			Attrs: map[string]any{"codemode.log.level": "info", "codemode.log.message": "hello"},
		}, {
			Name: "approval_required", Time: ms(6),
			Attrs: map[string]any{
				"codemode.approval.count":    int64(2),
				"codemode.approval.tools":    []string{"write", "delete"},
				"codemode.approval.call_ids": []string{"c3", "c4"},
			},
		}},
	}}
	got := spans(rec)
	got = got[:len(got)-1] // the caller's own span
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	// Args and results are private by default.
	for _, s := range got {
		for _, k := range []string{"gen_ai.tool.call.arguments", "gen_ai.tool.call.result"} {
			if _, ok := s.Attrs[k]; ok {
				t.Errorf("%s: %s recorded without WithArgs/WithResults", s.Name, k)
			}
		}
	}
}

// A failed run marks its span with the error code, and closes the tool spans
// it left open with the run's code, so no span is lost.
func TestFailedRunClosesOpenCalls(t *testing.T) {
	o, rec, _ := setup(t)
	ctx := context.Background()
	const run = "run_2"
	o.Observe(ctx, runStart(run, engine.RunScript, ms(0)))
	o.Observe(ctx, callStart(run, "c1", "slow", ms(1)))
	o.Observe(ctx, runEnd(run, engine.RunScript, engine.Errorf(engine.CodeTimeout, "script ran for more than 1s"), ms(10)))
	o.Observe(ctx, callEnd(run, "c1", "slow", nil, ms(20))) // too late: ignored

	got := spans(rec)
	want := []short{{
		Name: "execute_tool slow", Parent: "codemode.script", Status: codes.Error,
		Message: "run ended before the call finished", End: ms(10), ErrorType: "timeout",
	}, {
		Name: "codemode.script", Status: codes.Error,
		Message: "script ran for more than 1s", End: ms(10), ErrorType: "timeout",
	}}
	if diff := cmp.Diff(want, brief(got)); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}

// A run that succeeded but left a call open (an engine bug, or an event lost)
// still closes the call, with the conventions' fallback error type.
func TestSucceededRunClosesOpenCalls(t *testing.T) {
	o, rec, _ := setup(t)
	ctx := context.Background()
	o.Observe(ctx, runStart("r", engine.RunCall, ms(0)))
	o.Observe(ctx, callStart("r", "c", "t", ms(1)))
	o.Observe(ctx, runEnd("r", engine.RunCall, nil, ms(2)))

	want := []short{{
		Name: "execute_tool t", Parent: "codemode.call", Status: codes.Error,
		Message: "run ended before the call finished", End: ms(2), ErrorType: "_OTHER",
	}, {
		Name: "codemode.call", End: ms(2),
	}}
	if diff := cmp.Diff(want, brief(spans(rec))); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}

// Ends without starts, and events of runs never started, are dropped without
// panicking and without leaving state behind.
func TestEndWithoutStart(t *testing.T) {
	o, rec, _ := setup(t)
	ctx := context.Background()
	o.Observe(ctx, callEnd("nope", "c1", "t", nil, ms(1)))
	o.Observe(ctx, runEnd("nope", engine.RunBatch, engine.Errorf(engine.CodeCanceled, "bye"), ms(2)))
	o.Observe(ctx, engine.Event{Type: engine.EventLog, RunID: "nope", Message: "x"})
	o.Observe(ctx, engine.Event{Type: engine.EventApprovalRequired, RunID: "nope"})
	o.Observe(ctx, engine.Event{Type: "something_new", RunID: "nope"})
	o.Observe(nil, engine.Event{Type: engine.EventToolCallEnd}) //nolint:staticcheck // nil ctx must not panic

	if n := len(rec.Started()); n != 0 {
		t.Errorf("%d spans started, want 0", n)
	}
	assertEmpty(t, o)
}

// A tool call of a run the observer never saw start still gets a span,
// parented on the run's context.
func TestCallWithoutRun(t *testing.T) {
	o, rec, tracer := setup(t)
	ctx, caller := tracer.Start(context.Background(), "caller")
	o.Observe(ctx, callStart("r", "c", "t", ms(1)))
	o.Observe(ctx, callEnd("r", "c", "t", nil, ms(2)))
	caller.End()

	got := spans(rec)
	if got[0].Name != "execute_tool t" || got[0].Parent != "caller" {
		t.Errorf("got span %q under %q, want %q under %q", got[0].Name, got[0].Parent, "execute_tool t", "caller")
	}
	assertEmpty(t, o)
}

// A failure without an *engine.Error still marks the span failed.
func TestFailureWithoutError(t *testing.T) {
	o, rec, _ := setup(t)
	ctx := context.Background()
	o.Observe(ctx, callStart("r", "c", "t", ms(1)))
	o.Observe(ctx, engine.Event{Type: engine.EventToolCallEnd, RunID: "r", CallID: "c", Time: ms(2)})

	want := []short{{Name: "execute_tool t", Status: codes.Error, Message: "tool call failed", End: ms(2), ErrorType: "_OTHER"}}
	if diff := cmp.Diff(want, brief(spans(rec))); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}

// short is the status-level view of a span, for tests about endings.
type short struct {
	Name, Parent string
	Status       codes.Code
	Message      string
	End          time.Time
	ErrorType    any // the error.type attribute, nil when absent
}

func brief(all []span) []short {
	out := make([]short, len(all))
	for i, s := range all {
		out[i] = short{Name: s.Name, Parent: s.Parent, Status: s.Status, Message: s.Message, End: s.End,
			ErrorType: s.Attrs["error.type"]}
	}
	return out
}

// A reused run or call id closes the span it replaces instead of leaking it.
func TestReusedIDs(t *testing.T) {
	o, rec, _ := setup(t)
	ctx := context.Background()
	o.Observe(ctx, runStart("r", engine.RunBatch, ms(0)))
	o.Observe(ctx, runStart("r", engine.RunBatch, ms(1)))
	o.Observe(ctx, callStart("r", "c", "t", ms(2)))
	o.Observe(ctx, callStart("r", "c", "t", ms(3)))
	o.Observe(ctx, callEnd("r", "c", "t", nil, ms(4)))
	o.Observe(ctx, runEnd("r", engine.RunBatch, nil, ms(5)))

	if started, ended := len(rec.Started()), len(rec.Ended()); started != 4 || ended != 4 {
		t.Errorf("%d spans started, %d ended; want 4 and 4", started, ended)
	}
	assertEmpty(t, o)
}
