package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

func TestBatchRefsAndOrder(t *testing.T) {
	for _, mode := range []string{"parallel", "sequential"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t)
			e := build(t, f)
			res := mustBatch(t, e, `{"executionMode":"`+mode+`","operations":[
				{"tool":"makeThing","args":{"name":"frame"},"label":"frame"},
				{"tool":"makeThing","args":{"name":"note","parent":{"$ref":"frame.id"}},"label":"note"},
				{"tool":"makeThing","args":{"name":{"$ref":"frame.items.1"},"parent":{"$ref":"note.id"}}},
				{"tool":"add","args":{"a":1,"b":2}}]}`)
			if diff := cmp.Diff([]string{"ok", "ok", "ok", "ok"}, codes(res)); diff != "" {
				t.Fatalf("codes (-want +got):\n%s", diff)
			}
			var third struct{ Name string }
			json.Unmarshal(res.Results[2].Result, &third)
			if third.Name != "frame-b" {
				t.Errorf("nested $ref resolved to %q, want frame-b", third.Name)
			}
			for i, r := range res.Results {
				if r.Index != i {
					t.Errorf("result %d has index %d", i, r.Index)
				}
			}
			if res.Summary.ExecutionMode != engine.ExecutionMode(mode) || res.Summary.Successful != 4 {
				t.Errorf("summary = %+v", res.Summary)
			}
		})
	}
}

func TestBatchUnknownToolSuggests(t *testing.T) {
	e := build(t, newFixture(t))
	res := mustBatch(t, e, `{"operations":[{"tool":"ad","args":{"a":1,"b":2}},{"tool":"make_thing","args":{"name":"x"}},{"tool":"board.getstate"}]}`)
	want := [][]string{{"add"}, {"makeThing"}, {"board.getState"}}
	for i, r := range res.Results {
		if r.Error == nil || r.Error.Code != engine.CodeUnknownTool {
			t.Fatalf("result %d: %+v", i, r)
		}
		if diff := cmp.Diff(want[i], r.Error.Suggestions[:1]); diff != "" {
			t.Errorf("suggestions %d (-want +got):\n%s", i, diff)
		}
	}
}

func TestBatchInvalidArgsListsEveryViolation(t *testing.T) {
	e := build(t, newFixture(t))
	res := mustBatch(t, e, `{"operations":[{"tool":"shape","args":{"title":"","kind":"star","points":[{"x":1,"y":"2"},{"x":3}],"extra":true}}]}`)
	got := res.Results[0].Error
	if got == nil || got.Code != engine.CodeInvalidArgs {
		t.Fatalf("got %+v", res.Results[0])
	}
	var paths []string
	for _, d := range got.Details {
		paths = append(paths, d.Path)
	}
	want := []string{"", "/kind", "/points/0/y", "/points/1", "/title"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("violation paths (-want +got):\n%s\n%+v", diff, got.Details)
	}
	for _, p := range []string{"/points/0/y", "/points/1", "/kind", "/title", "extra"} {
		if !strings.Contains(got.Message, p) {
			t.Errorf("message %q does not name %s", got.Message, p)
		}
	}
}

func TestBatchRejectedBeforeAnythingRuns(t *testing.T) {
	cases := map[string]struct {
		req  string
		code engine.Code
		msg  string
	}{
		"cycle": {`{"operations":[{"tool":"makeThing","args":{"name":"a","parent":{"$ref":"b.id"}},"label":"a"},
			{"tool":"makeThing","args":{"name":"b","parent":{"$ref":"c.id"}},"label":"b"},
			{"tool":"makeThing","args":{"name":"c","parent":{"$ref":"a.id"}},"label":"c"}]}`, engine.CodeBadRequest, "cycle"},
		"self":          {`{"operations":[{"tool":"makeThing","args":{"name":{"$ref":"a.id"}},"label":"a"}]}`, engine.CodeBadRequest, "itself"},
		"unknown label": {`{"operations":[{"tool":"makeThing","args":{"name":"a"},"label":"a"},{"tool":"makeThing","args":{"name":{"$ref":"b.id"}}}]}`, engine.CodeBadRequest, "labels: a"},
		"forward ref in sequential": {`{"executionMode":"sequential","operations":[{"tool":"makeThing","args":{"name":{"$ref":"b.id"}}},
			{"tool":"makeThing","args":{"name":"b"},"label":"b"}]}`, engine.CodeBadRequest, "forward"},
		"duplicate label": {`{"operations":[{"tool":"add","label":"x"},{"tool":"add","label":"x"}]}`, engine.CodeBadRequest, "share the label"},
		"bad label":       {`{"operations":[{"tool":"add","label":"a.b"}]}`, engine.CodeBadRequest, "label"},
		"empty":           {`{"operations":[]}`, engine.CodeBadRequest, "at least one"},
		"no tool":         {`{"operations":[{"args":{}}]}`, engine.CodeBadRequest, "no tool"},
		"bad mode":        {`{"executionMode":"fast","operations":[{"tool":"add"}]}`, engine.CodeBadRequest, "executionMode"},
		"unknown field":   {`{"operations":[{"tool":"add"}],"stopOnEror":true}`, engine.CodeBadRequest, "stopOnEror"},
		"wrong type":      {`{"operations":{"tool":"add"}}`, engine.CodeBadRequest, "operations: want an array, got an object"},
		"bad json":        {`{"operations":[`, engine.CodeBadRequest, "malformed JSON"},
		"trailing":        {`{"operations":[{"tool":"add"}]} {}`, engine.CodeBadRequest, "after the JSON"},
		"too many": {`{"safetyLimits":{"maxOperations":2},"operations":[{"tool":"add"},{"tool":"add"},{"tool":"add"}]}`,
			engine.CodeLimitExceeded, "3 operations; the limit is 2"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			rec := &recorder{}
			e := build(t, f, func(b *engine.Builder) { b.WithObserver(rec) })
			err := batchErr(t, e, tc.req)
			if err.Code != tc.code || !strings.Contains(err.Message, tc.msg) {
				t.Errorf("got %v, want %s containing %q", err, tc.code, tc.msg)
			}
			if n := len(rec.ofType(engine.EventToolCallStart)); n != 0 || f.made.Load() != 0 || f.count("add") != 0 {
				t.Errorf("something ran: %d call events, %d made", n, f.made.Load())
			}
		})
	}
}

func TestBatchRecursion(t *testing.T) {
	e := build(t, newFixture(t))
	res := mustBatch(t, e, `{"operations":[{"tool":"batch","args":{"operations":[{"tool":"add"}]}},{"tool":"execute_code","args":{"code":"1"}},{"tool":"add","args":{"a":1,"b":1}}]}`)
	if diff := cmp.Diff([]string{"recursion", "recursion", "ok"}, codes(res)); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
}

func TestBatchStopOnError(t *testing.T) {
	e := build(t, newFixture(t))
	res := mustBatch(t, e, `{"executionMode":"sequential","stopOnError":true,"operations":[{"tool":"add","args":{"a":1,"b":1}},{"tool":"fail"},{"tool":"add","args":{"a":1,"b":1}},{"tool":"add","args":{"a":1,"b":1}}]}`)
	if diff := cmp.Diff([]string{"ok", "tool_error", "skipped", "skipped"}, codes(res)); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if s := res.Summary; s.Successful != 1 || s.Failed != 1 || s.Skipped != 2 || s.Total != 4 {
		t.Errorf("summary %+v", s)
	}
	// Parallel: operations not yet started when the failure lands are skipped.
	res = mustBatch(t, e, `{"stopOnError":true,"safetyLimits":{"maxConcurrency":1},"operations":[{"tool":"fail"},{"tool":"add","args":{"a":1,"b":1}},{"tool":"add","args":{"a":1,"b":1}}]}`)
	if diff := cmp.Diff([]string{"tool_error", "skipped", "skipped"}, codes(res)); diff != "" {
		t.Errorf("parallel codes (-want +got):\n%s", diff)
	}
	// Without stopOnError everything runs.
	res = mustBatch(t, e, `{"executionMode":"sequential","operations":[{"tool":"fail"},{"tool":"add","args":{"a":1,"b":1}}]}`)
	if diff := cmp.Diff([]string{"tool_error", "ok"}, codes(res)); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
}

func TestBatchDependencyFailed(t *testing.T) {
	e := build(t, newFixture(t))
	res := mustBatch(t, e, `{"operations":[{"tool":"fail","label":"f"},{"tool":"makeThing","args":{"name":{"$ref":"f.id"}},"label":"m"},{"tool":"makeThing","args":{"name":{"$ref":"m.id"}}},{"tool":"add","args":{"a":1,"b":1}}]}`)
	if diff := cmp.Diff([]string{"tool_error", "dependency_failed", "dependency_failed", "ok"}, codes(res)); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.Results[1].Error.Message, "operation 0 (f)") {
		t.Errorf("message %q", res.Results[1].Error.Message)
	}
}

func TestBatchRefPathErrors(t *testing.T) {
	e := build(t, newFixture(t))
	res := mustBatch(t, e, `{"operations":[{"tool":"makeThing","args":{"name":"a"},"label":"a"},
		{"tool":"makeThing","args":{"name":{"$ref":"a.idd"}}},
		{"tool":"makeThing","args":{"name":{"$ref":"a.items.7"}}},
		{"tool":"makeThing","args":{"name":{"$ref":"a.id.x"}}},
		{"tool":"makeThing","args":{"name":{"$ref":"a"}}}]}`)
	if diff := cmp.Diff([]string{"ok", "invalid_args", "invalid_args", "invalid_args", "invalid_args"}, codes(res)); diff != "" {
		t.Fatalf("codes (-want +got):\n%s", diff)
	}
	for i, want := range map[int]string{1: `has no field "idd" (fields: id, items, name)`, 2: "array of 2", 3: "is a string", 4: "/name"} {
		if msg := res.Results[i].Error.Message; !strings.Contains(msg, want) {
			t.Errorf("result %d: %q does not contain %q", i, msg, want)
		}
	}
}

func TestBatchLimitsOnlyTighten(t *testing.T) {
	e := build(t, newFixture(t))
	res := mustBatch(t, e, `{"timeout":999999999,"safetyLimits":{"maxOperations":1000,"maxConcurrency":64,"maxAggregateChars":10},"operations":[{"tool":"add","args":{"a":1,"b":1}}]}`)
	w := strings.Join(res.Summary.Warnings, "\n")
	for _, want := range []string{"maxOperations 1000 exceeds the configured limit; using 100", "maxConcurrency 64", "timeout"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
	if strings.Contains(w, "maxAggregateChars 10") {
		t.Errorf("a tighter limit warned: %q", w)
	}
}

func TestBatchConcurrencyCap(t *testing.T) {
	f := newFixture(t)
	e := build(t, f)
	ops := strings.Repeat(`{"tool":"sleep","args":{"ms":15}},`, 12)
	mustBatch(t, e, `{"safetyLimits":{"maxConcurrency":3},"operations":[`+strings.TrimSuffix(ops, ",")+`]}`)
	if p := f.peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak concurrency %d, want 2..3", p)
	}
}

func TestBatchTruncation(t *testing.T) {
	f := newFixture(t)
	e := build(t, f, func(b *engine.Builder) {
		b.WithConfig(engine.Config{Limits: engine.Limits{MaxResultChars: 30, MaxAggregateChars: 50},
			Tools: map[string]engine.ToolLimits{"add": {MaxResultChars: 5}}})
	})
	res := mustBatch(t, e, `{"operations":[{"tool":"text","args":{"n":10}},{"tool":"text","args":{"n":40}},{"tool":"add","args":{"a":100,"b":23}},{"tool":"text","args":{"n":3}}]}`)
	type cut struct {
		Result    string
		Truncated bool
	}
	var got []cut
	for _, r := range res.Results {
		got = append(got, cut{string(r.Result), r.Truncated})
	}
	want := []cut{
		{`"éééééééééé"`, false},                     // 12 chars, 38 left
		{`"\"ééééééééééééééééééééééééééééé"`, true}, // per-result cap 30, 8 left
		{`"{\"sum"`, true}, // per-tool cap 5, 3 left
		{`"\"éé"`, true},   // aggregate: the 3 left
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if len(res.Summary.Warnings) != 4 || !strings.Contains(res.Summary.Warnings[3], "exceeded 50 characters") {
		t.Errorf("warnings %q", res.Summary.Warnings)
	}
	for _, r := range res.Results {
		if !json.Valid(r.Result) || !r.Success {
			t.Errorf("result %d not valid JSON or not a success: %s", r.Index, r.Result)
		}
	}
}

func TestBatchTimeouts(t *testing.T) {
	f := newFixture(t)
	e := build(t, f, func(b *engine.Builder) {
		b.WithConfig(engine.Config{Tools: map[string]engine.ToolLimits{"stuck": {Timeout: engine.Duration(50 * time.Millisecond)}}})
	})
	start := time.Now()
	res := mustBatch(t, e, `{"operations":[{"tool":"stuck"},{"tool":"sleep","args":{"ms":5}}]}`)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a 50ms per-call timeout took %v", d)
	}
	if diff := cmp.Diff([]string{"timeout", "ok"}, codes(res)); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if msg := res.Results[0].Error.Message; !strings.Contains(msg, "50ms") {
		t.Errorf("timeout message %q does not name the limit", msg)
	}
	// The whole-batch timeout: running calls end, unstarted ones are not run.
	start = time.Now()
	res = mustBatch(t, e, `{"timeout":100,"executionMode":"sequential","operations":[{"tool":"sleep","args":{"ms":10000}},{"tool":"add","args":{"a":1,"b":1}}]}`)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a 100ms batch timeout took %v", d)
	}
	if diff := cmp.Diff([]string{"timeout", "timeout"}, codes(res)); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if f.count("add") != 0 {
		t.Error("an operation started after the batch timed out")
	}
}

func TestBatchCanceled(t *testing.T) {
	e := build(t, newFixture(t))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	req, _ := engine.ParseBatchRequest([]byte(`{"operations":[{"tool":"sleep","args":{"ms":10000}}]}`))
	res, err := e.Batch(ctx, req)
	if err != nil || res.Results[0].Error.Code != engine.CodeCanceled {
		t.Fatalf("got %v %+v", err, res)
	}
}

func TestBatchToolMisbehaviour(t *testing.T) {
	e := build(t, newFixture(t))
	res := mustBatch(t, e, `{"operations":[{"tool":"boom"},{"tool":"badJSON"},{"tool":"fail"}]}`)
	if diff := cmp.Diff([]string{"tool_error", "tool_error", "tool_error"}, codes(res)); diff != "" {
		t.Fatalf("codes (-want +got):\n%s", diff)
	}
	for i, want := range []string{"panicked: kaboom", "invalid JSON", "it broke"} {
		if msg := res.Results[i].Error.Message; !strings.Contains(msg, want) {
			t.Errorf("%d: %q lacks %q", i, msg, want)
		}
	}
	if !errors.Is(res.Results[0].Error, engine.ErrToolError) || errors.Is(res.Results[0].Error, engine.ErrTimeout) {
		t.Error("errors.Is does not match by code")
	}
}

// TestBatchEvents: exactly one start and one end per child call of a parallel
// batch, each with its own timing, framed by run_start and run_end.
func TestBatchEvents(t *testing.T) {
	rec := &recorder{}
	e := build(t, newFixture(t), func(b *engine.Builder) { b.WithObserver(rec) })
	mustBatch(t, e, `{"operations":[{"tool":"sleep","args":{"ms":5}},{"tool":"sleep","args":{"ms":40}},{"tool":"add","args":{"a":1,"b":2}},{"tool":"nope"}]}`)
	starts, ends := rec.ofType(engine.EventToolCallStart), rec.ofType(engine.EventToolCallEnd)
	if len(starts) != 4 || len(ends) != 4 {
		t.Fatalf("%d starts, %d ends; want 4 and 4", len(starts), len(ends))
	}
	runs := rec.ofType(engine.EventRunStart)
	if len(runs) != 1 || len(rec.ofType(engine.EventRunEnd)) != 1 || runs[0].Kind != engine.RunBatch {
		t.Fatalf("run events: %+v", runs)
	}
	elapsed := map[string]float64{}
	seen := map[string]int{}
	for _, ev := range ends {
		seen[ev.CallID]++
		elapsed[ev.CallID] = ev.ElapsedMS
		if ev.RunID != runs[0].RunID || ev.ParentID != runs[0].RunID {
			t.Errorf("end event ids: %+v", ev)
		}
	}
	for _, ev := range starts {
		seen[ev.CallID]++
	}
	for id, n := range seen {
		if n != 2 {
			t.Errorf("call %s has %d events", id, n)
		}
	}
	if !(elapsed["1"] > elapsed["0"] && elapsed["0"] >= 5 && elapsed["1"] >= 40) {
		t.Errorf("timings not distinct per call: %v", elapsed)
	}
	for _, ev := range rec.ofType(engine.EventRunEnd) {
		if ev.Success || ev.Error == nil {
			t.Errorf("run_end of a batch with a failure: %+v", ev)
		}
	}
}

func TestParseBatchRequestTimeoutUnits(t *testing.T) {
	req, err := engine.ParseBatchRequest([]byte(`{"operations":[{"tool":"add"}],"timeout":1500}`))
	if err != nil || req.Timeout.D() != 1500*time.Millisecond {
		t.Fatalf("%v %v", req.Timeout.D(), err)
	}
	if _, err := engine.ParseBatchRequest([]byte(`{"operations":[{"tool":"add"}],"timeout":"soon"}`)); err == nil {
		t.Fatal("want an error for a bad timeout")
	}
}

// TestStuckHandlersAreWrittenOff: a handler that ignores its context is
// reported as timeout at its deadline and the run goes on without it, in every
// mode — the worker stuck in it is replaced.
func TestStuckHandlersAreWrittenOff(t *testing.T) {
	f := newFixture(t)
	rec := &recorder{}
	e := build(t, f, func(b *engine.Builder) {
		b.WithObserver(rec).WithConfig(engine.Config{Tools: map[string]engine.ToolLimits{"stuck": {Timeout: engine.Duration(40 * time.Millisecond)}}})
	})
	for _, req := range []string{
		`{"executionMode":"sequential","operations":[{"tool":"stuck"},{"tool":"stuck"},{"tool":"add","args":{"a":1,"b":1}}]}`,
		`{"safetyLimits":{"maxConcurrency":1},"operations":[{"tool":"stuck"},{"tool":"stuck"},{"tool":"stuck"},{"tool":"add","args":{"a":1,"b":1}}]}`,
	} {
		start := time.Now()
		res := mustBatch(t, e, req)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
		got := codes(res)
		for i, c := range got[:len(got)-1] {
			if c != "timeout" {
				t.Errorf("operation %d: %s, want timeout", i, c)
			}
		}
		if got[len(got)-1] != "ok" {
			t.Errorf("the operation after the stuck ones: %s", got[len(got)-1])
		}
	}
	start := time.Now()
	out := e.HandleToolCalls(context.Background(), []engine.ToolCall{{ID: "1", Name: "stuck"}, {ID: "2", Name: "add", Arguments: json.RawMessage(`{"a":1,"b":1}`)}})
	if !out[0].IsError || out[0].Error.Code != engine.CodeTimeout || out[1].IsError || time.Since(start) > 5*time.Second {
		t.Errorf("native calls: %+v", out)
	}
	if _, err := e.Call(context.Background(), "stuck", nil); !errors.Is(err, engine.ErrTimeout) {
		t.Errorf("direct call: %v", err)
	}
	// Each rescued call still has exactly one end event.
	ends := map[string]int{}
	for _, ev := range rec.ofType(engine.EventToolCallEnd) {
		ends[ev.RunID+"/"+ev.CallID]++
	}
	for id, n := range ends {
		if n != 1 {
			t.Errorf("call %s: %d end events", id, n)
		}
	}
	f.unstick()
	// The stuck handlers return late; their results must not reach anything
	// (the race detector and goleak watch this).
	time.Sleep(20 * time.Millisecond)
}

func TestBatchEscapedRefAndEventJSON(t *testing.T) {
	rec := &recorder{}
	e := build(t, newFixture(t), func(b *engine.Builder) { b.WithObserver(rec) })
	res := mustBatch(t, e, `{"operations":[{"tool":"makeThing","args":{"name":"a"},"label":"a"},{"tool":"makeThing","args":{"name":{"\u0024ref":"a.id"}}}]}`)
	if diff := cmp.Diff([]string{"ok", "ok"}, codes(res)); diff != "" {
		t.Fatalf("an escaped $ref was not resolved (-want +got):\n%s", diff)
	}
	mustBatch(t, e, `{"operations":[{"tool":"fail"}]}`)
	for _, ev := range rec.ofType(engine.EventToolCallEnd) {
		out, _ := json.Marshal(ev)
		if !strings.Contains(string(out), `"success":`) || !strings.Contains(string(out), `"elapsed_ms":`) {
			t.Errorf("end event JSON lacks success or elapsed_ms: %s", out)
		}
	}
	start, _ := json.Marshal(rec.ofType(engine.EventToolCallStart)[0])
	if strings.Contains(string(start), `"success"`) {
		t.Errorf("start event has success: %s", start)
	}
}

func TestStopOnErrorSkipsDependentsToo(t *testing.T) {
	e := build(t, newFixture(t))
	res := mustBatch(t, e, `{"executionMode":"sequential","stopOnError":true,"operations":[{"tool":"makeThing","args":{"name":"a"}},{"tool":"fail","label":"f"},{"tool":"makeThing","args":{"name":{"$ref":"f.id"}}}]}`)
	if diff := cmp.Diff([]string{"ok", "tool_error", "skipped"}, codes(res)); diff != "" { // not dependency_failed
		t.Errorf("codes (-want +got):\n%s", diff)
	}
}
