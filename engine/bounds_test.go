package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/engine"
)

// Hostile sizes: every sink below must stay within its bound whatever a
// client, a tool or a script puts in, and say that it cut.
const (
	huge = 4 << 20 // characters a script throws or a tool fails with
	// errorBudget is the most characters a bounded error can take as JSON:
	// a 2,000-character message with its cut note, 5 suggestions of 100,
	// 20 details of 200 + 300, and the field names around them.
	errorBudget = 16_000
)

// hostileTools fail with huge errors, the way a tool, a WASM module's
// stderr or an upstream MCP server could.
func hostileTools() []engine.Tool {
	raw := func(name string, h func() error) engine.Tool {
		return engine.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`),
			Annotations: engine.Annotations{ReadOnlyHint: true},
			Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return nil, h()
			}}
	}
	return []engine.Tool{
		raw("hugeError", func() error { return errors.New(strings.Repeat("é", huge)) }),
		raw("hugeDetails", func() error {
			e := engine.Errorf(engine.CodeInvalidArgs, "bad")
			for i := range 10_000 {
				e.Details = append(e.Details, engine.Violation{Path: "/" + strings.Repeat("p", 1000), Message: fmt.Sprint(i, strings.Repeat("m", 1000))})
				e.Suggestions = append(e.Suggestions, strings.Repeat("s", 1000))
			}
			return e
		}),
		raw("echo", func() error { return nil }),
	}
}

func buildHostile(t *testing.T, opts ...func(*engine.Builder)) *engine.Engine {
	return build(t, newFixture(t), append([]func(*engine.Builder){func(b *engine.Builder) { b.Add(hostileTools()...) }}, opts...)...)
}

// checkBounded asserts that err is within the documented bounds and, when
// wantCut, that it says it was cut.
func checkBounded(t *testing.T, where string, err *engine.Error, wantCut bool) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", where)
	}
	if n := utf8.RuneCountInString(err.Message); n > engine.MaxErrorMessageChars+100 {
		t.Errorf("%s: message of %d characters", where, n)
	}
	if b, _ := json.Marshal(err); utf8.RuneCount(b) > errorBudget {
		t.Errorf("%s: error of %d characters as JSON", where, utf8.RuneCount(b))
	}
	if wantCut && (!err.Truncated || !strings.Contains(err.Message, "…") && !strings.Contains(err.Message, "not listed]")) {
		t.Errorf("%s: cut error not marked: truncated=%v, message ends %q", where, err.Truncated, tail(err.Message))
	}
}

func tail(s string) string { return s[max(0, len(s)-80):] }

func TestHugeScriptErrorIsBoundedInResultAndModelText(t *testing.T) {
	e := buildHostile(t)
	for _, src := range []string{
		`throw "x".repeat(4194304)`,
		`throw new Error("é".repeat(4194304))`,
		`await tools.hugeError({})`,                               // a tool's error, uncaught
		`try { await tools.hugeError({}) } catch (e) { throw e }`, // caught and rethrown
	} {
		res := script(t, e, src)
		checkBounded(t, src, res.Error, true)
		text := res.ModelText()
		if n := utf8.RuneCountInString(text); n > engine.DefaultScriptMaxOutputChars+errorBudget {
			t.Errorf("%s: ModelText of %d characters", src, n)
		}
	}
}

func TestHugeToolErrorIsBoundedEverywhere(t *testing.T) {
	rec := &recorder{}
	e := buildHostile(t, func(b *engine.Builder) { b.WithObserver(rec) })

	res := mustBatch(t, e, `{"operations":[{"tool":"hugeError"},{"tool":"hugeDetails"}]}`)
	checkBounded(t, "batch hugeError", res.Results[0].Error, true)
	checkBounded(t, "batch hugeDetails", res.Results[1].Error, true)
	if d := res.Results[1].Error; len(d.Details) != 20 || len(d.Suggestions) != 5 || !strings.Contains(d.Message, "9980 more violations") {
		t.Errorf("details %d, suggestions %d, message %q", len(d.Details), len(d.Suggestions), d.Message)
	}

	_, err := e.Call(context.Background(), "hugeError", nil)
	var ee *engine.Error
	if !errors.As(err, &ee) {
		t.Fatalf("Call: %v", err)
	}
	checkBounded(t, "Call", ee, true)

	sres := script(t, e, `try { await tools.hugeError({}) } catch (e) { return e.message.length }`)
	if !sres.Success || len(sres.Calls) != 1 {
		t.Fatalf("script: %+v", sres.Error)
	}
	checkBounded(t, "CallRecord", sres.Calls[0].Error, true)
	var seen int
	if err := json.Unmarshal(sres.Result, &seen); err != nil || seen > engine.MaxErrorMessageChars+100 {
		t.Errorf("the script saw a message of %s characters", sres.Result)
	}

	out := e.HandleToolCalls(context.Background(), []engine.ToolCall{{ID: "a", Name: "hugeError"}, {ID: "b", Name: "hugeDetails"}})
	for _, r := range out {
		checkBounded(t, "HandleToolCalls "+r.ID, r.Error, true)
		if n := utf8.RuneCount(r.Content); n > errorBudget {
			t.Errorf("HandleToolCalls %s: content of %d characters", r.ID, n)
		}
	}
	ends := rec.ofType(engine.EventToolCallEnd)
	if len(ends) == 0 {
		t.Fatal("no tool_call_end events")
	}
	for _, ev := range ends {
		checkBounded(t, "tool_call_end "+ev.Tool, ev.Error, true)
	}
}

// A shared *Error a tool returns is cut in a copy, never changed.
func TestBoundingLeavesTheToolsErrorAlone(t *testing.T) {
	shared := &engine.Error{Code: engine.CodeToolError, Message: strings.Repeat("z", 5000)}
	e := build(t, newFixture(t), func(b *engine.Builder) {
		b.Add(engine.Tool{Name: "shared", InputSchema: json.RawMessage(`{"type":"object"}`),
			Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) { return nil, shared }})
	})
	_, err := e.Call(context.Background(), "shared", nil)
	var ee *engine.Error
	if !errors.As(err, &ee) || !ee.Truncated || !errors.Is(err, engine.ErrToolError) {
		t.Fatalf("got %v", err)
	}
	if len(shared.Message) != 5000 || shared.Truncated {
		t.Errorf("the tool's own error was changed")
	}
}

func TestHugeUnknownToolNameIsCheapAndQuotedCut(t *testing.T) {
	e := buildHostile(t)
	name := strings.Repeat("a", 32<<20)
	start := time.Now()
	req := engine.BatchRequest{Operations: []engine.Operation{{Tool: name}, {Tool: strings.Repeat("createFrame", 1<<20)}}}
	res, err := e.Batch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	b, _ := json.Marshal(res)
	if len(b) > 2*errorBudget {
		t.Errorf("batch result of %d bytes", len(b))
	}
	for _, r := range res.Results {
		if r.Error.Code != engine.CodeUnknownTool || !strings.Contains(r.Error.Message, `…"`) || !strings.HasSuffix(r.Tool, "…") {
			t.Errorf("tool %q…: %s", r.Tool[:10], r.Error.Message[:40])
		}
	}
	_, err = e.Call(context.Background(), name, nil)
	if err == nil || len(err.Error()) > 1000 {
		t.Errorf("Call error of %d bytes", len(err.Error()))
	}
}

func TestBatchPlanningQuotesClientStringsCut(t *testing.T) {
	e := buildHostile(t)
	long := strings.Repeat("L", 1<<20)
	var labelled strings.Builder
	for i := range 60 {
		fmt.Fprintf(&labelled, `{"tool":"add","args":{"a":1,"b":2},"label":"l%d%s"},`, i, long[:5000])
	}
	for _, tc := range []struct{ name, req string }{
		{"bad label", `{"operations":[{"tool":"add","label":"-` + long + `"}]}`},
		{"duplicate label", `{"operations":[{"tool":"add","label":"` + long + `"},{"tool":"add","label":"` + long + `"}]}`},
		{"unknown $ref among many labels", `{"operations":[` + labelled.String() + `{"tool":"add","args":{"a":{"$ref":"` + long + `"}}}]}`},
		{"self $ref", `{"operations":[{"tool":"add","label":"a","args":{"a":{"$ref":"a.` + long + `"}}}]}`},
		{"execution mode", `{"executionMode":"` + long + `","operations":[{"tool":"add"}]}`},
		{"unknown field", `{"` + long + `":1,"operations":[{"tool":"add"}]}`},
	} {
		err := batchErr(t, e, tc.req)
		checkBounded(t, tc.name, err, false)
		if err.Code != engine.CodeBadRequest || !strings.Contains(err.Message, "…") {
			t.Errorf("%s: %s %.200s", tc.name, err.Code, err.Message)
		}
	}
	// A cycle through many long labels is listed in part.
	var cycle strings.Builder
	for i := range 90 {
		fmt.Fprintf(&cycle, `{"tool":"add","label":"c%d%s","args":{"a":{"$ref":"c%d%s"}}},`, i, long[:3000], (i+1)%90, long[:3000])
	}
	err := batchErr(t, e, `{"operations":[`+strings.TrimSuffix(cycle.String(), ",")+`]}`)
	checkBounded(t, "cycle", err, false)
	if !strings.Contains(err.Message, "more)") {
		t.Errorf("cycle: %.300s", err.Message)
	}
}

// A $ref with a million path steps resolves (and fails) in linear time,
// with a bounded message.
func TestLongRefPathIsLinearAndBounded(t *testing.T) {
	e := buildHostile(t)
	path := strings.Repeat(".items", 1<<20)
	start := time.Now()
	res := mustBatch(t, e, `{"operations":[{"tool":"makeThing","label":"m","args":{"name":"n"}},{"tool":"makeThing","args":{"name":{"$ref":"m`+path+`"}}}]}`)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	checkBounded(t, "$ref path", res.Results[1].Error, false)
	if res.Results[1].Error.Code != engine.CodeInvalidArgs {
		t.Errorf("got %v", res.Results[1].Error)
	}
}

func TestEventsAreBounded(t *testing.T) {
	rec := &recorder{}
	e := buildHostile(t, func(b *engine.Builder) { b.WithObserver(rec) })
	big := strings.Repeat("x", 1<<20)
	res := script(t, e, `console.log("y".repeat(60000)); await tools.echo({big: "x".repeat(1048576)}).catch(() => 0); return 1`)
	if !res.Success {
		t.Fatalf("script: %v", res.Error)
	}
	label := strings.Repeat("l", 1<<20)
	mustBatch(t, e, `{"operations":[{"tool":"text","label":"`+label+`","args":{"n":200000}},{"tool":"`+big+`"}]}`)
	var cut int
	for _, ev := range rec.events {
		b, _ := json.Marshal(ev)
		if n := utf8.RuneCount(b); n > engine.DefaultMaxResultChars+errorBudget {
			t.Errorf("%s event of %d characters", ev.Type, n)
		}
		if ev.Truncated {
			cut++
		}
		if ev.Type == engine.EventLog && !strings.HasSuffix(ev.Message, "…") {
			t.Errorf("the log line was not marked cut")
		}
	}
	if cut < 2 { // echo's args, text's result
		t.Errorf("%d events marked truncated, want at least 2", cut)
	}
}

func TestSlogObserverIsBounded(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := buildHostile(t, func(b *engine.Builder) { b.WithObserver(engine.SlogObserver(l)) })
	script(t, e, `console.log("y".repeat(4194304)); await tools.hugeError({})`)
	mustBatch(t, e, `{"operations":[{"tool":"`+strings.Repeat("t", 1<<20)+`"},{"tool":"hugeDetails"}]}`)
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if n := utf8.RuneCountInString(line); n > engine.DefaultScriptMaxOutputChars+errorBudget {
			t.Errorf("slog line of %d characters: %.100s", n, line)
		}
	}
}

func TestCapTrace(t *testing.T) {
	e := buildHostile(t, func(b *engine.Builder) {
		b.WithConfig(engine.Config{Limits: engine.Limits{MaxResultChars: 1000, MaxAggregateChars: 3000}})
	})
	res := script(t, e, `for (let i = 0; i < 5; i++) await tools.text({n: 5000}); await tools.add({a: 1, b: 2}); return 0`)
	if !res.Success {
		t.Fatal(res.Error)
	}
	calls, cut := e.CapTrace(res.Calls)
	if !cut || len(calls) != len(res.Calls) {
		t.Fatalf("cut %v, %d records", cut, len(calls))
	}
	var total int
	for i, c := range calls {
		n := utf8.RuneCount(c.Args) + utf8.RuneCount(c.Result)
		total += n
		if i < 5 && (!c.Truncated || utf8.RuneCount(c.Result) > 1000+10) { // quotes and an escaped quote
			t.Errorf("record %d: truncated %v, result of %d characters", i, c.Truncated, utf8.RuneCount(c.Result))
		}
	}
	if total > 3000+10*2*len(calls) { // each cut value adds quotes and escapes
		t.Errorf("trace of %d characters", total)
	}
	if !calls[len(calls)-1].Truncated {
		t.Errorf("the last record, past the aggregate budget, is not marked")
	}
	if utf8.RuneCount(res.Calls[0].Result) < 5000 {
		t.Errorf("CapTrace changed the result's own trace")
	}
}

// Empty log lines count one character each: a script cannot fill ModelText
// with a million of them.
func TestEmptyLogLinesAreBounded(t *testing.T) {
	e := buildHostile(t)
	res := execute(t, e, engine.ExecuteRequest{Code: `for (let i = 0; i < 100000; i++) console.log(""); return 1`,
		Limits: &engine.ScriptLimits{MaxOutputChars: 1000}})
	if len(res.Logs) > 1000 || !res.Truncated {
		t.Errorf("%d log lines kept, truncated %v", len(res.Logs), res.Truncated)
	}
	if n := utf8.RuneCountInString(res.ModelText()); n > 1000*16 {
		t.Errorf("ModelText of %d characters", n)
	}
}
