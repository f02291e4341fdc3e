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

func execute(t *testing.T, e *engine.Engine, req engine.ExecuteRequest) *engine.ExecuteResult {
	t.Helper()
	res, err := e.Execute(context.Background(), req)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	return res
}

func script(t *testing.T, e *engine.Engine, src string) *engine.ExecuteResult {
	t.Helper()
	return execute(t, e, engine.ExecuteRequest{Code: src})
}

func TestExecuteChainsResults(t *testing.T) {
	e := build(t, newFixture(t))
	res := script(t, e, `
const a = await tools.makeThing({name: "frame"});
const b = await tools.makeThing({name: "note", parent: a.id});
const s = await tools.add({a: 1, b: 2});
console.log("made", a.id, b.id);
return {ids: [a.id, b.id], sum: s.sum, state: await tools.board.getState()};`)
	if !res.Success {
		t.Fatalf("failed: %+v", res.Error)
	}
	if diff := cmp.Diff(`{"ids":["t1","t2"],"sum":3,"state":{"objects":[],"count":0}}`, string(res.Result)); diff != "" {
		t.Error(diff)
	}
	if len(res.Calls) != 4 || res.Stats.ToolCalls != 4 {
		t.Fatalf("calls = %d, stats = %d", len(res.Calls), res.Stats.ToolCalls)
	}
	if got := string(res.Calls[1].Args); got != `{"name":"note","parent":"t1"}` {
		t.Errorf("call 1 args = %s", got)
	}
	if res.Calls[1].Line != 3 {
		t.Errorf("call 1 line = %d, want 3", res.Calls[1].Line)
	}
	if diff := cmp.Diff([]engine.LogEntry{{Level: "log", Message: "made t1 t2"}}, res.Logs); diff != "" {
		t.Error(diff)
	}
}

func TestExecuteUnknownToolIsCatchableWithSuggestions(t *testing.T) {
	e := build(t, newFixture(t))
	res := script(t, e, `
try {
  return await tools.make_thing({name: "x"});
} catch (err) {
  if (err.code !== "unknown_tool") throw err;
  const fixed = err.suggestions[0];
  const made = await tools[fixed]({name: "x"});
  return {recovered: fixed, id: made.id};
}`)
	if !res.Success || string(res.Result) != `{"recovered":"makeThing","id":"t1"}` {
		t.Fatalf("result = %s, error = %+v", res.Result, res.Error)
	}
	if res.Calls[0].Error == nil || res.Calls[0].Error.Code != engine.CodeUnknownTool {
		t.Errorf("trace of the typo: %+v", res.Calls[0])
	}
}

func TestExecuteUncaughtToolErrorKeepsItsCode(t *testing.T) {
	e := build(t, newFixture(t))
	res := script(t, e, "const x = 1;\nawait tools.shape({title: '', kind: 'star', points: []});")
	if res.Success || res.Error.Code != engine.CodeInvalidArgs {
		t.Fatalf("error = %+v", res.Error)
	}
	if len(res.Error.Details) != 2 || res.Error.Line != 2 || res.Error.Column < 7 {
		t.Errorf("error = %+v", res.Error)
	}
	if string(res.Result) != "null" {
		t.Errorf("result = %s", res.Result)
	}
}

func TestExecuteInvalidArgsDetailsReachTheScript(t *testing.T) {
	e := build(t, newFixture(t))
	res := script(t, e, `try { await tools.shape({title: 1}) } catch (e) { return [e.code, e.details.map(d => d.path)] }`)
	if string(res.Result) != `["invalid_args",["/title","/kind","/points"]]` && !strings.Contains(string(res.Result), "invalid_args") {
		t.Fatalf("result = %s (%+v)", res.Result, res.Error)
	}
}

func TestExecuteEventsCarryParentID(t *testing.T) {
	rec := &recorder{}
	e := build(t, newFixture(t), func(b *engine.Builder) { b.WithObserver(rec) })
	res := script(t, e, `console.info("go"); await Promise.all([tools.add({a:1,b:1}), tools.add({a:2,b:2})]); return 1`)
	if !res.Success {
		t.Fatal(res.Error)
	}
	starts, ends := rec.ofType(engine.EventToolCallStart), rec.ofType(engine.EventToolCallEnd)
	runs := rec.ofType(engine.EventRunStart)
	if len(starts) != 2 || len(ends) != 2 || len(runs) != 1 || runs[0].Kind != engine.RunScript {
		t.Fatalf("starts %d ends %d runs %d", len(starts), len(ends), len(runs))
	}
	for _, ev := range append(starts, ends...) {
		if ev.ParentID != ev.RunID || ev.RunID != runs[0].RunID {
			t.Errorf("event %+v: parentId should be the run", ev)
		}
	}
	if logs := rec.ofType(engine.EventLog); len(logs) != 1 || logs[0].Message != "go" || logs[0].Level != "info" {
		t.Errorf("log events = %+v", logs)
	}
}

func TestExecutePromiseAllRunsConcurrently(t *testing.T) {
	f := newFixture(t)
	e := build(t, f)
	start := time.Now()
	res := script(t, e, `return (await Promise.all([...Array(6).keys()].map(() => tools.sleep({ms: 100})))).length`)
	if !res.Success || string(res.Result) != "6" {
		t.Fatalf("%s %+v", res.Result, res.Error)
	}
	if f.peak.Load() < 2 {
		t.Errorf("peak concurrency %d: calls did not overlap", f.peak.Load())
	}
	if d := time.Since(start); d > 550*time.Millisecond {
		t.Errorf("took %v: the calls ran one by one", d)
	}
}

func TestExecuteMaxConcurrency(t *testing.T) {
	f := newFixture(t)
	e := build(t, f)
	res := execute(t, e, engine.ExecuteRequest{
		Code:   `await Promise.all([...Array(6).keys()].map(() => tools.sleep({ms: 20}))); return 1`,
		Limits: &engine.ScriptLimits{MaxConcurrency: 2},
	})
	if !res.Success {
		t.Fatal(res.Error)
	}
	if p := f.peak.Load(); p > 2 {
		t.Errorf("peak concurrency %d, limit 2", p)
	}
}

func TestExecuteMaxToolCallsIsNotCatchable(t *testing.T) {
	e := build(t, newFixture(t))
	res := execute(t, e, engine.ExecuteRequest{
		Code:   `for (let i = 0; ; i++) { try { await tools.add({a: i, b: 0}) } catch (e) { return "caught " + e } }`,
		Limits: &engine.ScriptLimits{MaxToolCalls: 5},
	})
	if res.Success || res.Error.Code != engine.CodeLimitExceeded || res.Stats.ToolCalls != 5 {
		t.Fatalf("result %s error %+v stats %+v", res.Result, res.Error, res.Stats)
	}
}

func TestExecuteTimeoutEndsBusyLoop(t *testing.T) {
	e := build(t, newFixture(t))
	start := time.Now()
	res := execute(t, e, engine.ExecuteRequest{Code: `while (true) {}`, Timeout: engine.Duration(100 * time.Millisecond)})
	if res.Error == nil || res.Error.Code != engine.CodeTimeout {
		t.Fatalf("error = %+v", res.Error)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v for a 100ms timeout", d)
	}
}

func TestExecuteToolTimeoutEndsTheRun(t *testing.T) {
	f := newFixture(t)
	e := build(t, f, func(b *engine.Builder) {
		cfg := engine.DefaultConfig()
		cfg.Tools = map[string]engine.ToolLimits{"stuck": {Timeout: engine.Duration(50 * time.Millisecond)}}
		b.WithConfig(cfg)
	})
	res := script(t, e, `try { await tools.stuck({}) } catch (e) { return "caught" }`)
	if res.Error == nil || res.Error.Code != engine.CodeTimeout {
		t.Fatalf("result %s error %+v", res.Result, res.Error)
	}
	f.unstick()
}

// A call made alone runs on the script's own goroutine; a tool that ignores
// cancelation must still not hold the run past its timeout.
func TestExecuteTimeoutWhileALoneToolIsStuck(t *testing.T) {
	f := newFixture(t)
	e := build(t, f)
	defer f.unstick()
	start := time.Now()
	res := execute(t, e, engine.ExecuteRequest{Code: `await tools.stuck({}); return "done"`, Timeout: engine.Duration(200 * time.Millisecond)})
	if res.Error == nil || res.Error.Code != engine.CodeTimeout {
		t.Fatalf("result %s error %+v", res.Result, res.Error)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v for a 200ms timeout", d)
	}
	if len(res.Calls) != 1 || res.Calls[0].Error == nil {
		t.Errorf("calls = %+v", res.Calls)
	}
}

func TestExecuteRequestLimitsOnlyTighten(t *testing.T) {
	e := build(t, newFixture(t))
	res := execute(t, e, engine.ExecuteRequest{Code: `return 1`, Timeout: engine.Duration(time.Hour),
		Limits: &engine.ScriptLimits{MaxToolCalls: 1_000_000}})
	if !res.Success || len(res.Warnings) != 2 {
		t.Fatalf("warnings = %q", res.Warnings)
	}
}

func TestExecuteOutputLimit(t *testing.T) {
	e := build(t, newFixture(t))
	res := execute(t, e, engine.ExecuteRequest{
		Code:   `for (let i = 0; i < 15; i++) console.log("line " + i); return "x".repeat(60)`,
		Limits: &engine.ScriptLimits{MaxOutputChars: 100},
	})
	if !res.Success || !res.Truncated {
		t.Fatalf("%+v", res)
	}
	n := len([]rune(string(res.Result)))
	for _, l := range res.Logs {
		n += len([]rune(l.Message))
	}
	if n > 100+2 { // the cut result is a JSON string: its quotes are not counted
		t.Errorf("result and logs hold %d characters, limit 100", n)
	}
	if !strings.Contains(string(res.ModelText()), `"truncated":true`) || strings.Contains(string(res.ModelText()), `"calls"`) {
		t.Errorf("model text = %s", res.ModelText())
	}
}

func TestExecuteSyntaxErrorLocated(t *testing.T) {
	e := build(t, newFixture(t))
	for _, tc := range []struct {
		code      string
		line, col int
	}{
		{"const a = 1;\nconst b = ;\n", 2, 11},
		{"let x = 1;\nlet y: number = ;", 2, 17},
		{"return (", 1, 9},
	} {
		res := script(t, e, tc.code)
		if res.Error == nil || res.Error.Code != engine.CodeSyntaxError || res.Error.Line != tc.line || res.Error.Column != tc.col {
			t.Errorf("%q: error = %+v at %d:%d, want %d:%d", tc.code, res.Error, res.Error.Line, res.Error.Column, tc.line, tc.col)
		}
	}
}

func TestExecuteRuntimeErrorLocated(t *testing.T) {
	e := build(t, newFixture(t))
	for _, tc := range []struct {
		code      string
		line, col int
	}{
		{"const a = 1;\n\n  null.foo;", 3, 8}, // goja points at the property
		{"const a: number = 1;\nconst o: any = null;\n  o.x;", 3, 5},
		{"await tools.add({a:1,b:2});\nthrow new Error('nope')", 2, 7},
	} {
		res := script(t, e, tc.code)
		if res.Error == nil || res.Error.Code != engine.CodeRuntimeError || res.Error.Line != tc.line || res.Error.Column != tc.col {
			t.Errorf("%q: error = %+v at %d:%d, want %d:%d", tc.code, res.Error, res.Error.Line, res.Error.Column, tc.line, tc.col)
		}
	}
}

func TestExecuteApprovals(t *testing.T) {
	d := &denyNamed{}
	e := build(t, newFixture(t), func(b *engine.Builder) { b.WithApprover(d) })
	res := script(t, e, `
const [a, b] = await Promise.allSettled([tools.makeThing({name: "ok"}), tools.makeThing({name: "deny me"})]);
await tools.add({a: 1, b: 1}); // read-only: not gated
return [a.status, a.value && a.value.id, b.status, b.reason.code];`)
	if !res.Success || string(res.Result) != `["fulfilled","t1","rejected","denied"]` {
		t.Fatalf("result %s error %+v", res.Result, res.Error)
	}
	want := [][]string{{`makeThing {"name":"ok"}`, `makeThing {"name":"deny me"}`}}
	if diff := cmp.Diff(want, d.tools()); diff != "" {
		t.Errorf("approval sets (-want +got):\n%s", diff)
	}
}

func TestExecuteApprovalWaitIsNotBilled(t *testing.T) {
	slow := engine.ApproverFunc(func(ctx context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
		time.Sleep(400 * time.Millisecond)
		return []engine.Decision{{Approved: true}}, nil
	})
	e := build(t, newFixture(t), func(b *engine.Builder) { b.WithApprover(slow) })
	res := execute(t, e, engine.ExecuteRequest{Code: `return (await tools.makeThing({name: "a"})).id`, Timeout: engine.Duration(200 * time.Millisecond)})
	if !res.Success {
		t.Fatalf("error %+v: the approval wait was billed to the script", res.Error)
	}
}

func TestExecuteMalformedRequest(t *testing.T) {
	e := build(t, newFixture(t))
	for _, body := range []string{`{"code": ""}`, `{"code": "return 1", "extra": 1}`, `{"code": 5}`, `{"code": "1", "input": }`} {
		_, err := engine.ParseExecuteRequest([]byte(body))
		if !errors.Is(err, engine.ErrBadRequest) {
			t.Errorf("%s: err = %v", body, err)
		}
	}
	if _, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: "  "}); !errors.Is(err, engine.ErrBadRequest) {
		t.Errorf("empty code: %v", err)
	}
}

func TestExecuteInputAndTypeScript(t *testing.T) {
	e := build(t, newFixture(t))
	res := execute(t, e, engine.ExecuteRequest{
		Code:  "interface In { names: string[] }\nconst inp = input as In;\nconst out: string[] = [];\nfor (const n of inp.names) out.push((await tools.makeThing({name: n})).id);\nreturn out;",
		Input: json.RawMessage(`{"names": ["a", "b"]}`),
	})
	if !res.Success || string(res.Result) != `["t1","t2"]` || !res.Stats.TypeScript {
		t.Fatalf("%s %+v %+v", res.Result, res.Error, res.Stats)
	}
}

func TestExecuteEndlessLogsEndWithOutputLimit(t *testing.T) {
	e := build(t, newFixture(t))
	res := execute(t, e, engine.ExecuteRequest{Code: `for (;;) console.log("spam")`, Limits: &engine.ScriptLimits{MaxOutputChars: 1000}})
	if res.Error == nil || res.Error.Code != engine.CodeOutputLimit || !res.Truncated {
		t.Fatalf("%+v", res)
	}
}

func TestHandleToolCallsRunsExecuteCode(t *testing.T) {
	rec := &recorder{}
	e := build(t, newFixture(t), func(b *engine.Builder) { b.WithObserver(rec) })
	args, _ := json.Marshal(map[string]string{"code": `console.log("hi"); return (await tools.makeThing({name: "n"})).id`})
	out := e.HandleToolCalls(context.Background(), []engine.ToolCall{
		{ID: "c1", Name: "execute_code", Arguments: args},
		{ID: "c2", Name: "execute_code", Arguments: json.RawMessage(`{"code": "syntax error here"}`)},
		{ID: "c3", Name: "execute_code", Arguments: json.RawMessage(`{"cod": "x"}`)},
	})
	if out[0].IsError || string(out[0].Content) != `{"success":true,"result":"t1","logs":["log: hi"]}` {
		t.Errorf("c1: %s", out[0].Content)
	}
	if out[0].Script == nil || len(out[0].Script.Calls) != 1 {
		t.Errorf("c1: the host should get the full result")
	}
	if !out[1].IsError || out[1].Error.Code != engine.CodeSyntaxError {
		t.Errorf("c2: %s", out[1].Content)
	}
	if !out[2].IsError || out[2].Error.Code != engine.CodeBadRequest {
		t.Errorf("c3: %s", out[2].Content)
	}
	for _, ev := range rec.ofType(engine.EventToolCallStart) {
		if ev.ParentID != "c1" || ev.CallID != "c1/0" {
			t.Errorf("event %+v: want parent c1, id c1/0", ev)
		}
	}
}
