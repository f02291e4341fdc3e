package js

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// batchHost is a test host that records how many calls each Start got.
type batchHost struct {
	*testHost
	mu      sync.Mutex
	batches []int
}

func (h *batchHost) Start(calls []*Call) {
	h.mu.Lock()
	h.batches = append(h.batches, len(calls))
	h.mu.Unlock()
	h.testHost.Start(calls)
}

func toolNames(calls []*Call) []string {
	var names []string
	for _, c := range calls {
		names = append(names, c.Tool)
	}
	return names
}

func TestRunValueIsJSON(t *testing.T) {
	tests := []struct{ code, want string }{
		{"return 1", "1"},
		{"return", "null"},
		{"return undefined", "null"},
		{"", "null"},
		{"return null", "null"},
		{"return 'héllo \"q\"'", `"héllo \"q\""`},
		{"return {a: [1, 'x', null], b: {c: true}}", `{"a":[1,"x",null],"b":{"c":true}}`},
		{"return [undefined, () => 1, NaN]", "[null,null,null]"},
		{"return {f() {}, u: undefined, n: 1}", `{"n":1}`},
		{"return () => 1", "null"},
		{"return new Date(0)", `"1970-01-01T00:00:00.000Z"`},
		{"return {toJSON() { return 'custom' }}", `"custom"`},
		{"return await tools.echo({k: 'v'})", `{"k":"v"}`},
		{"return Promise.resolve(5)", "5"},
	}
	for _, tt := range tests {
		res, _ := runCode(t, tt.code, Options{})
		if res.Err != nil {
			t.Errorf("%q: %v", tt.code, res.Err)
			continue
		}
		if got := string(res.Value); got != tt.want {
			t.Errorf("%q: value = %s, want %s", tt.code, got, tt.want)
		}
	}
}

func TestRunValueWithoutJSON(t *testing.T) {
	tests := []struct{ code, want string }{
		{"const o = {}; o.self = o; return o", "circular"},
		{"return {get x() { throw new Error('getter') }}", "getter"},
	}
	for _, tt := range tests {
		res, _ := runCode(t, tt.code, Options{})
		if res.Err == nil || res.Err.Code != CodeRuntimeError {
			t.Errorf("%q: err = %v (value %s), want %s", tt.code, res.Err, res.Value, CodeRuntimeError)
			continue
		}
		if res.Value != nil {
			t.Errorf("%q: value = %s with an error", tt.code, res.Value)
		}
		if !strings.Contains(res.Err.Message, "JSON") || !strings.Contains(res.Err.Message, tt.want) {
			t.Errorf("%q: message %q does not mention JSON and %q", tt.code, res.Err.Message, tt.want)
		}
	}
}

func TestRunInput(t *testing.T) {
	res, _ := runCode(t, "return [input.n * 2, typeof input]", Options{Input: json.RawMessage(`{"n":3}`)})
	if res.Err != nil || string(res.Value) != `[6,"object"]` {
		t.Errorf("value %s, err %v; want [6,\"object\"]", res.Value, res.Err)
	}
	res, _ = runCode(t, "return input", Options{})
	if res.Err != nil || string(res.Value) != "null" {
		t.Errorf("without input: value %s, err %v; want null", res.Value, res.Err)
	}
	res, _ = runCode(t, "input = 1", Options{Input: json.RawMessage(`1`)})
	if res.Err == nil || res.Err.Code != CodeRuntimeError {
		t.Errorf("assigning input: err = %v, want %s", res.Err, CodeRuntimeError)
	}
}

func TestRunConsole(t *testing.T) {
	var seen []Log
	code := `const c = {}; c.self = c;
console.log("a", 1, {x: 1}, [1, 2], null, undefined, () => 1, new TypeError("bad"), c);
console.info("i"); console.warn("w"); console.error("e"); console.debug("d"); console.trace("t");
return 1`
	res, _ := runCode(t, code, Options{OnLog: func(l Log) { seen = append(seen, l) }})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := []Log{
		{"log", `a 1 {"x":1} [1,2] null undefined [Function] TypeError: bad [object]`},
		{"info", "i"}, {"warn", "w"}, {"error", "e"}, {"debug", "d"}, {"debug", "t"},
	}
	if diff := cmp.Diff(want, res.Logs); diff != "" {
		t.Errorf("Logs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("OnLog (-want +got):\n%s", diff)
	}
	if res.LogsTruncated {
		t.Error("LogsTruncated with room to spare")
	}
}

func TestRunLogsTruncated(t *testing.T) {
	var seen []string
	opt := Options{Limits: Limits{MaxOutputChars: 10}, OnLog: func(l Log) { seen = append(seen, l.Message) }}
	res, _ := runCode(t, `console.log("abcdefgh"); console.warn("ijklmnop"); console.log("q"); return 1`, opt)
	if res.Err != nil || string(res.Value) != "1" {
		t.Fatalf("value %s, err %v; want 1", res.Value, res.Err)
	}
	if diff := cmp.Diff([]Log{{"log", "abcdefgh"}, {"warn", "ij"}}, res.Logs); diff != "" {
		t.Errorf("Logs (-want +got):\n%s", diff)
	}
	if !res.LogsTruncated {
		t.Error("LogsTruncated is false")
	}
	// OnLog sees what the result keeps, as it keeps it.
	if diff := cmp.Diff([]string{"abcdefgh", "ij"}, seen); diff != "" {
		t.Errorf("OnLog saw (-want +got):\n%s", diff)
	}

	// The budget counts characters, not bytes.
	res, _ = runCode(t, `console.log("日本語です")`, Options{Limits: Limits{MaxOutputChars: 4}})
	if diff := cmp.Diff([]Log{{"log", "日本語で"}}, res.Logs); diff != "" || !res.LogsTruncated {
		t.Errorf("LogsTruncated %v, Logs (-want +got):\n%s", res.LogsTruncated, diff)
	}
}

// A script that goes on logging far past its budget is ended, uncatchably.
func TestRunOutputLimit(t *testing.T) {
	code := `try { for (;;) console.log("xxxxx") } catch (e) {} return "caught"`
	res, _ := runCode(t, code, Options{Limits: Limits{MaxOutputChars: 10}})
	if res.Err == nil || res.Err.Code != CodeOutputLimit {
		t.Fatalf("err = %v (value %s), want %s", res.Err, res.Value, CodeOutputLimit)
	}
	kept := 0
	for _, l := range res.Logs {
		kept += len(l.Message)
	}
	if kept != 10 || !res.LogsTruncated {
		t.Errorf("kept %d characters (truncated %v), want 10 and truncated", kept, res.LogsTruncated)
	}
}

func TestRunToolsFrozen(t *testing.T) {
	for _, stmt := range []string{
		"tools.x = 1",
		"tools.echo = null",
		"delete tools.echo",
		"tools.board.x = 1",
		"tools.board.get = null",
		"delete tools.board",
		`tools["board.get"] = null`,
		`Object.defineProperty(tools, "y", {value: 1})`,
		"Object.setPrototypeOf(tools, {})",
		"console.log = null",
		"console.extra = 1",
	} {
		t.Run(stmt, func(t *testing.T) {
			code := "try { " + stmt + "; return 'no error' } catch (e) { return e instanceof TypeError ? 'TypeError' : String(e) }"
			res, h := runCode(t, code, Options{})
			if res.Err != nil || string(res.Value) != `"TypeError"` {
				t.Errorf("caught: value %s, err %v; want \"TypeError\"", res.Value, res.Err)
			}
			if len(h.calls) != 0 {
				t.Errorf("the host got calls %v", toolNames(h.calls))
			}
			res, _ = runCode(t, stmt, Options{})
			if res.Err == nil || res.Err.Code != CodeRuntimeError || !strings.Contains(res.Err.Message, "TypeError") {
				t.Errorf("uncaught: err = %v, want a %s TypeError", res.Err, CodeRuntimeError)
			}
		})
	}
	res, _ := runCode(t, "return [Object.isFrozen(tools), Object.isFrozen(tools.board), Object.isFrozen(console), typeof tools.echo]", Options{})
	if res.Err != nil || string(res.Value) != `[true,true,true,"function"]` {
		t.Errorf("value %s, err %v", res.Value, res.Err)
	}
}

// Names the script makes up still reach the host, which rejects them as
// unknown tools (with suggestions) instead of the script getting "undefined
// is not a function".
func TestRunUnknownToolsReachHost(t *testing.T) {
	code := `const r = await Promise.allSettled([tools.nope(), tools.board.nope({a: 1}), tools.bord.get(),
  tools["board.get"](), tools.board.get(), tools.a.b.c.d()]);
return r.map((x) => x.status)`
	res, h := runCode(t, code, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got, want := string(res.Value), `["rejected","rejected","rejected","fulfilled","fulfilled","rejected"]`; got != want {
		t.Errorf("statuses = %s, want %s", got, want)
	}
	if diff := cmp.Diff([]string{"nope", "board.nope", "bord.get", "board.get", "board.get", "a.b.c.d"}, toolNames(h.calls)); diff != "" {
		t.Errorf("calls the host got (-want +got):\n%s", diff)
	}
	for i, c := range h.calls {
		if c.Index != i {
			t.Errorf("call %d (%s) has Index %d", i, c.Tool, c.Index)
		}
	}
	if len(h.calls) > 1 && string(h.calls[1].Args) != `{"a":1}` {
		t.Errorf("board.nope args = %s", h.calls[1].Args)
	}
	if res.ToolCalls != 6 {
		t.Errorf("ToolCalls = %d, want 6", res.ToolCalls)
	}

	// Probes by await and JSON are not calls.
	res, h = runCode(t, "await tools.board; JSON.stringify(tools); return [typeof tools.then, typeof tools.toJSON]", Options{})
	if res.Err != nil || string(res.Value) != `["undefined","undefined"]` || len(h.calls) != 0 {
		t.Errorf("value %s, err %v, calls %v", res.Value, res.Err, toolNames(h.calls))
	}
}

func TestRunToolRejectionIsCatchable(t *testing.T) {
	code := `try { await tools.nope({x: 1}) } catch (e) {
  return {code: e.code, suggestions: e.suggestions, tool: e.tool, message: e.message, isError: e instanceof Error}
}`
	res, _ := runCode(t, code, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := map[string]any{"code": "unknown_tool", "suggestions": []any{"echo"}, "tool": "nope", "message": "unknown tool nope", "isError": true}
	if diff := cmp.Diff(want, mustJSON(t, res.Value)); diff != "" {
		t.Errorf("the caught error (-want +got):\n%s", diff)
	}
}

// An uncaught tool error ends the run with the tool's code, the host's cause,
// and the position of the call.
func TestRunToolErrorUncaught(t *testing.T) {
	cause := errors.New("the host's own error")
	h := newTestHost()
	h.tools["quota"] = func(json.RawMessage) (json.RawMessage, *Error) {
		return nil, &Error{Code: "quota_exceeded", Message: "no more", Cause: cause}
	}
	res, _ := runCode(t, "const a = 1;\nconst r = await tools.quota({});\nreturn r", Options{Host: h})
	if res.Err == nil {
		t.Fatalf("no error; value %s", res.Value)
	}
	if res.Err.Code != "quota_exceeded" || res.Err.Message != "no more" || res.Err.Cause != cause {
		t.Errorf("err = %+v, want the tool's error and cause", res.Err)
	}
	if res.Err.Line != 2 || res.Err.Column == 0 {
		t.Errorf("position = %d:%d, want line 2", res.Err.Line, res.Err.Column)
	}
}

// A tool result that is not JSON becomes a catchable tool_error.
func TestRunToolResultNotJSON(t *testing.T) {
	h := newTestHost()
	h.tools["bad"] = func(json.RawMessage) (json.RawMessage, *Error) { return json.RawMessage("{bad"), nil }
	res, _ := runCode(t, "try { await tools.bad() } catch (e) { return e.code }", Options{Host: h})
	if res.Err != nil || string(res.Value) != `"tool_error"` {
		t.Errorf("value %s, err %v; want \"tool_error\"", res.Value, res.Err)
	}
}

func TestRunCallArgs(t *testing.T) {
	code := `await tools.echo({a: 1});
await tools.echo();
await tools.echo(null);
await tools.echo([1, "x"]);
await tools.echo(() => 1);
const o = {}; o.self = o;
try { tools.echo(o) } catch (e) { return e instanceof TypeError }`
	res, h := runCode(t, code, Options{})
	if res.Err != nil || string(res.Value) != "true" {
		t.Fatalf("value %s, err %v; want true (a cyclic argument throws at the call)", res.Value, res.Err)
	}
	var args []string
	for _, c := range h.calls {
		args = append(args, string(c.Args))
	}
	if diff := cmp.Diff([]string{`{"a":1}`, "{}", "null", `[1,"x"]`, "null"}, args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if res.ToolCalls != 5 {
		t.Errorf("ToolCalls = %d, want 5", res.ToolCalls)
	}
	if c := h.calls[0]; c.Line != 1 || c.Column < 7 || c.Column > 17 {
		t.Errorf("first call at %d:%d, want 1:7-17", c.Line, c.Column)
	}
	if c := h.calls[2]; c.Line != 3 {
		t.Errorf("third call on line %d, want 3", c.Line)
	}
}

// Calls made in one turn go to the host together, and run concurrently.
func TestRunPromiseAllConcurrent(t *testing.T) {
	h := &batchHost{testHost: newTestHost()}
	start := time.Now()
	res, _ := runCode(t, "return await Promise.all([1, 2, 3, 4, 5].map(() => tools.sleep({MS: 200})))", Options{Host: h})
	elapsed := time.Since(start)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := mustJSON(t, res.Value).([]any); len(got) != 5 {
		t.Errorf("value = %s, want 5 results", res.Value)
	}
	if elapsed >= 900*time.Millisecond {
		t.Errorf("5 calls of 200ms took %v: not concurrent", elapsed)
	}
	if diff := cmp.Diff([]int{5}, h.batches); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}

	// Sequential awaits: one call per turn.
	h = &batchHost{testHost: newTestHost()}
	if res, _ := runCode(t, "await tools.echo({}); await tools.echo({})", Options{Host: h}); res.Err != nil {
		t.Fatal(res.Err)
	}
	if diff := cmp.Diff([]int{1, 1}, h.batches); diff != "" {
		t.Errorf("sequential batches (-want +got):\n%s", diff)
	}
}

func TestRunMaxToolCalls(t *testing.T) {
	lim := Limits{MaxToolCalls: 3}
	for _, code := range []string{
		"try { for (let i = 0; i < 10; i++) await tools.echo({i}) } catch (e) { return 'caught ' + e }",
		"try { for (let i = 0; i < 10; i++) tools.echo({i}) } catch (e) { return 'caught ' + e }",
		"const r = await Promise.allSettled([1, 2, 3, 4].map((i) => tools.echo({i}))); return r",
	} {
		res, h := runCode(t, code, Options{Limits: lim})
		if res.Err == nil || res.Err.Code != CodeLimitExceeded {
			t.Errorf("%q: err = %v (value %s), want %s", code, res.Err, res.Value, CodeLimitExceeded)
		}
		if res.ToolCalls != 3 || len(h.calls) > 3 {
			t.Errorf("%q: ToolCalls = %d, host got %d; want 3, at most 3", code, res.ToolCalls, len(h.calls))
		}
	}
	res, _ := runCode(t, "for (let i = 0; i < 3; i++) await tools.echo({i}); return 'ok'", Options{Limits: lim})
	if res.Err != nil || res.ToolCalls != 3 {
		t.Errorf("exactly 3 calls: err %v, ToolCalls %d", res.Err, res.ToolCalls)
	}
}

func TestRunMaxCallDepth(t *testing.T) {
	code := "function f() { return f() }\ntry { return f() } catch (e) { return 'caught' }"
	res, _ := runCode(t, code, Options{Limits: Limits{MaxCallDepth: 100}})
	if res.Err == nil || res.Err.Code != CodeLimitExceeded {
		t.Errorf("err = %v (value %s), want %s", res.Err, res.Value, CodeLimitExceeded)
	}
}

func TestRunTimeout(t *testing.T) {
	for _, code := range []string{
		"while (true) {}",
		"for (;;) { try { while (true) {} } catch (e) {} finally {} }",
	} {
		start := time.Now()
		res, _ := runCode(t, code, Options{Limits: Limits{Timeout: 100 * time.Millisecond}})
		if res.Err == nil || res.Err.Code != CodeTimeout {
			t.Errorf("%q: err = %v, want %s", code, res.Err, CodeTimeout)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q: a 100ms timeout took %v", code, d)
		}
	}

	// Waiting for a tool is billed too.
	s, err := Compile("await tools.sleep({MS: 1000})", 0)
	if err != nil {
		t.Fatal(err)
	}
	h := newTestHost()
	start := time.Now()
	res := Run(context.Background(), s, Options{Limits: Limits{Timeout: 100 * time.Millisecond}, Host: h, Tools: h.names()})
	d := time.Since(start)
	h.wg.Wait()
	if res.Err == nil || res.Err.Code != CodeTimeout || d >= 900*time.Millisecond {
		t.Errorf("waiting for a 1s tool: err %v after %v; want %s before the tool ends", res.Err, d, CodeTimeout)
	}
}

// holdHost resolves every call after wait, holding the run's clock
// meanwhile, as a host waiting for a person's approval does.
type holdHost struct {
	wait time.Duration
	hold bool
	wg   sync.WaitGroup
}

func (h *holdHost) Start(calls []*Call) {
	for _, c := range calls {
		release := func() {}
		if h.hold {
			release = c.Hold()
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			time.Sleep(h.wait)
			release()
			c.Resolve(json.RawMessage(`"approved"`))
		}()
	}
}

func TestRunHoldPausesTimeout(t *testing.T) {
	s, err := Compile("return await tools.ask()", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, hold := range []bool{true, false} {
		h := &holdHost{wait: 600 * time.Millisecond, hold: hold}
		res := Run(context.Background(), s, Options{Limits: Limits{Timeout: 200 * time.Millisecond}, Tools: []string{"ask"}, Host: h})
		h.wg.Wait()
		if hold && (res.Err != nil || string(res.Value) != `"approved"`) {
			t.Errorf("held: value %s, err %v; want \"approved\"", res.Value, res.Err)
		}
		if !hold && (res.Err == nil || res.Err.Code != CodeTimeout) {
			t.Errorf("not held: err %v, want %s", res.Err, CodeTimeout)
		}
	}
}

func TestRunContext(t *testing.T) {
	s, err := Compile("while (true) {}", 0)
	if err != nil {
		t.Fatal(err)
	}
	run := func(ctx context.Context) (*Result, time.Duration) {
		h := newTestHost()
		start := time.Now()
		res := Run(ctx, s, Options{Host: h, Tools: h.names()})
		return res, time.Since(start)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if res, d := run(ctx); res.Err == nil || res.Err.Code != CodeCanceled || d > 5*time.Second {
		t.Errorf("canceled while running: err %v after %v, want %s", res.Err, d, CodeCanceled)
	}
	if res, _ := run(ctx); res.Err == nil || res.Err.Code != CodeCanceled {
		t.Errorf("canceled before running: err %v, want %s", res.Err, CodeCanceled)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if res, d := run(ctx); res.Err == nil || res.Err.Code != CodeTimeout || d > 5*time.Second {
		t.Errorf("context deadline: err %v after %v, want %s", res.Err, d, CodeTimeout)
	}

	// Canceled while waiting for a tool that has not finished: Run returns.
	release := make(chan struct{})
	h := newTestHost()
	h.tools["block"] = func(json.RawMessage) (json.RawMessage, *Error) { <-release; return json.RawMessage("1"), nil }
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	s2, err := Compile("return await tools.block()", 0)
	if err != nil {
		t.Fatal(err)
	}
	res := Run(ctx, s2, Options{Host: h, Tools: h.names()})
	close(release)
	h.wg.Wait()
	if res.Err == nil || res.Err.Code != CodeCanceled {
		t.Errorf("canceled while waiting for a tool: err %v, want %s", res.Err, CodeCanceled)
	}
}

func TestRunRemovedGlobals(t *testing.T) {
	code := `return [typeof eval, typeof globalThis.eval, typeof Uint8Array, typeof ArrayBuffer, typeof DataView,
  typeof SharedArrayBuffer, typeof require, typeof setTimeout, typeof setInterval, typeof process]`
	res, _ := runCode(t, code, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	for i, v := range mustJSON(t, res.Value).([]any) {
		if v != "undefined" {
			t.Errorf("global %d is a %v, want undefined", i, v)
		}
	}
}

func TestRunNoCodeFromStrings(t *testing.T) {
	for _, expr := range []string{
		`Function("return 1")`,
		`new Function("return 1")`,
		`(function () {}).constructor("return 1")`,
		`(() => 1).constructor("return 1")`,
		`(async function () {}).constructor("return 1")`,
		`(function* () {}).constructor("return 1")`,
		`Object.constructor("return 1")`,
		`Reflect.construct(Function, ["return 1"])`,
	} {
		code := "try { const f = " + expr + "; return 'made ' + typeof f } catch (e) { return e instanceof TypeError ? 'TypeError' : String(e) }"
		res, _ := runCode(t, code, Options{})
		if res.Err != nil || string(res.Value) != `"TypeError"` {
			t.Errorf("%s: value %s, err %v; want \"TypeError\"", expr, res.Value, res.Err)
		}
	}
	res, _ := runCode(t, "return [(() => 1) instanceof Function, typeof Function]", Options{})
	if res.Err != nil || string(res.Value) != `[true,"function"]` {
		t.Errorf("instanceof Function: value %s, err %v", res.Value, res.Err)
	}
}

// A script waiting for a promise that nothing can settle ends at once,
// without waiting for its timeout.
func TestRunWaitingForever(t *testing.T) {
	for _, code := range []string{
		"await new Promise(() => {})",
		"await new Promise((resolve) => { tools.echo({}).then(() => 0) })",
	} {
		start := time.Now()
		res, _ := runCode(t, code, Options{Limits: Limits{Timeout: 20 * time.Second}})
		if res.Err == nil || res.Err.Code != CodeRuntimeError {
			t.Errorf("%q: err = %v, want %s", code, res.Err, CodeRuntimeError)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q: took %v", code, d)
		}
	}
}

func TestRunLateCalls(t *testing.T) {
	code := "await tools.echo({first: true});\nPromise.resolve().then(() => tools.echo({late: true}));\nreturn 1"
	res, h := runCode(t, code, Options{})
	if res.Err != nil || string(res.Value) != "1" {
		t.Fatalf("value %s, err %v; want 1", res.Value, res.Err)
	}
	if res.LateCalls != 1 || res.ToolCalls != 1 {
		t.Errorf("LateCalls = %d, ToolCalls = %d; want 1, 1", res.LateCalls, res.ToolCalls)
	}
	if len(h.calls) != 1 || string(h.calls[0].Args) != `{"first":true}` {
		t.Errorf("the host got %d calls, want only the first", len(h.calls))
	}
}

// By the language, an async function's promise is fulfilled when its body
// returns, before the reactions it queued run; a call made in them is made
// after the script returned. In the first turn (before the script's first
// real await), such calls are not seen as late: toolFunc checks r.main,
// which loop sets only after RunProgram returns, and RunProgram runs the
// queued reactions too. The host then runs a call the script made after it
// returned.
func TestRunLateCallsInFirstTurn(t *testing.T) {
	t.Skip("BUG: a call made after return, before the script's first await of a tool, is given to the host and counted in ToolCalls, not LateCalls")
	res, h := runCode(t, "Promise.resolve().then(() => tools.echo({late: true}));\nreturn 1", Options{})
	if res.Err != nil || string(res.Value) != "1" {
		t.Fatalf("value %s, err %v; want 1", res.Value, res.Err)
	}
	if res.LateCalls != 1 || res.ToolCalls != 0 || len(h.calls) != 0 {
		t.Errorf("LateCalls = %d, ToolCalls = %d, host got %d calls; want 1, 0, 0", res.LateCalls, res.ToolCalls, len(h.calls))
	}
}

// Converting the return value to JSON can run the script's getters and
// toJSON methods, after it returned: calls made there are not run (right),
// but finish copies the late count before converting the value, so they are
// not counted either.
func TestRunLateCallsWhileConvertingResult(t *testing.T) {
	t.Skip("BUG: tool calls made by toJSON or getters of the returned value are not counted in LateCalls (finish copies r.late before toJSON)")
	res, h := runCode(t, "await tools.echo({});\nreturn {toJSON() { tools.echo({late: true}); return 1 }}", Options{})
	if res.Err != nil || string(res.Value) != "1" {
		t.Fatalf("value %s, err %v; want 1", res.Value, res.Err)
	}
	if res.LateCalls != 1 || len(h.calls) != 1 {
		t.Errorf("LateCalls = %d, host got %d calls; want 1, 1", res.LateCalls, len(h.calls))
	}
}

func TestRunThrown(t *testing.T) {
	tests := []struct {
		code, msg string
		line, col int
	}{
		{"throw new Error('x')", "Error: x", 1, 7},
		{"let a = 1;\n  throw new RangeError('r')", "RangeError: r", 2, 9},
		{"throw 'str'", "uncaught str", 0, 0},
		{"throw undefined", "the script threw undefined", 0, 0},
		{"await Promise.reject(new TypeError('t'))", "TypeError: t", 1, 22},
		{"const e = new Error('x'); Object.defineProperty(e, 'message', {get() { throw 1 }}); throw e",
			"the script threw a value that cannot be described", 0, 0},
	}
	for _, tt := range tests {
		res, _ := runCode(t, tt.code, Options{})
		if res.Err == nil || res.Err.Code != CodeRuntimeError {
			t.Errorf("%q: err = %v, want %s", tt.code, res.Err, CodeRuntimeError)
			continue
		}
		if res.Err.Message != tt.msg || res.Err.Line != tt.line || res.Err.Column != tt.col {
			t.Errorf("%q: %q at %d:%d, want %q at %d:%d", tt.code, res.Err.Message, res.Err.Line, res.Err.Column, tt.msg, tt.line, tt.col)
		}
	}
}

// Every run gets a fresh runtime: what one run changes is gone in the next,
// also when they run the same Script.
func TestRunFreshRuntime(t *testing.T) {
	s, err := Compile("const seen = [typeof leak, typeof [].leak];\nglobalThis.leak = 1; Array.prototype.leak = 2;\nreturn seen", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		res := runScript(t, s, Options{})
		if res.Err != nil || string(res.Value) != `["undefined","undefined"]` {
			t.Errorf("run %d: value %s, err %v", i, res.Value, res.Err)
		}
	}
}

// One Script runs concurrently in many runs (the race detector watches).
func TestRunConcurrent(t *testing.T) {
	s, err := Compile("const r = await Promise.all([tools.echo({n: input.n}), tools.echo({n: input.n + 1})]);\nconsole.log(input.n);\nreturn r[0].n + r[1].n", 0)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			h := newTestHost()
			res := Run(context.Background(), s, Options{Host: h, Tools: h.names(), Input: json.RawMessage(`{"n":` + strconv.Itoa(i) + `}`)})
			h.wg.Wait()
			if want := strconv.Itoa(2*i + 1); res.Err != nil || string(res.Value) != want {
				t.Errorf("run %d: value %s, err %v; want %s", i, res.Value, res.Err, want)
			}
			if len(res.Logs) != 1 || res.Logs[0].Message != strconv.Itoa(i) {
				t.Errorf("run %d: logs %v", i, res.Logs)
			}
		})
	}
	wg.Wait()
}
