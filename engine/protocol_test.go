package engine_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// forgedName is a tool name of 65,536 + 3 bytes written to be read, behind
// a 16-bit length (as the worker protocol once sent it), as the name "add"
// followed by the rest of a call record and three more records: a call of
// add with arguments the script chose, then calls that swallow the rest of
// the name and of the real call. Every byte is below 0x80, so the name
// passes through a JavaScript string unchanged.
func forgedName(t *testing.T) string {
	t.Helper()
	const total = 1<<16 + 3
	var b []byte
	b = append(b, "add"...)
	args := []byte(`{"a":1,"b":2}` + strings.Repeat(" ", 100-13))
	b = binary.BigEndian.AppendUint32(b, uint32(len(args)))
	b = append(b, args...)
	// The rest of the name, the real arguments' 4-byte length and "{}" go
	// to three calls of "x": 19 bytes of record each and their arguments.
	rest := total - len(b) + 4 + 2
	lens := []int{0x7f7f, 0x7f7f, rest - 3*19 - 2*0x7f7f}
	for i, n := range lens {
		b = binary.BigEndian.AppendUint32(b, uint32(i+1)) // index
		b = binary.BigEndian.AppendUint32(b, 0)           // line
		b = binary.BigEndian.AppendUint32(b, 0)           // column
		b = binary.BigEndian.AppendUint16(b, 1)
		b = append(b, 'x')
		b = binary.BigEndian.AppendUint32(b, uint32(n))
		if i < len(lens)-1 {
			b = append(b, strings.Repeat("x", n)...)
		}
	}
	for len(b) < total {
		b = append(b, 'x')
	}
	for _, c := range b {
		if c >= 0x80 {
			t.Fatalf("the forged name has a byte %#x", c)
		}
	}
	if len(b) != total {
		t.Fatalf("the forged name has %d bytes, want %d", len(b), total)
	}
	return string(b)
}

// TestWorkerProtocolCannotBeForged: a script makes one call whose name is
// 65,536 + 3 bytes chosen to be read, behind a 16-bit length, as four
// calls, one of add. The host sees exactly the call the script made
// (unknown_tool, the name cut as in process), in workers as in process.
func TestWorkerProtocolCannotBeForged(t *testing.T) {
	p := newWorkerPool(t, worker.Config{Warm: 1})
	input, _ := json.Marshal(map[string]string{"name": forgedName(t)})
	code := `try { await tools[input.name]({}); return "called" } catch (e) { return e.code }`
	var inProcess *engine.ExecuteResult
	for _, runner := range []string{"in process", "worker"} {
		f := newFixture(t)
		e := build(t, f, func(b *engine.Builder) {
			if runner == "worker" {
				b.WithScriptRunner(p)
			}
		})
		res, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: code, Input: input})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Errorf("%s: the answer cannot be encoded: %v", runner, err)
		}
		if n := f.count("add"); n != 0 {
			t.Errorf("%s: add ran %d times", runner, n)
		}
		if !res.Success || string(res.Result) != `"unknown_tool"` || len(res.Calls) != 1 || res.Stats.ToolCalls != 1 {
			t.Fatalf("%s: %s, error %v, %d calls (stats %d), want one call and unknown_tool", runner, res.Result, res.Error, len(res.Calls), res.Stats.ToolCalls)
		}
		if c := res.Calls[0]; c.Error == nil || c.Error.Code != engine.CodeUnknownTool || !strings.HasSuffix(c.Tool, "…") || string(c.Args) != "{}" {
			t.Errorf("%s: the call %+v, want unknown_tool with the name cut and args {}", runner, c)
		}
		if inProcess == nil {
			inProcess = res
			continue
		}
		if d := cmp.Diff(inProcess.Calls, res.Calls, cmpopts.IgnoreFields(engine.CallRecord{}, "ElapsedMS"), cmpopts.IgnoreUnexported(engine.Error{})); d != "" {
			t.Errorf("the worker's trace differs from in process:\n%s", d)
		}
	}
}

// TestWorkerCallsALongName: a tool whose name is 100,000 characters (an
// upstream MCP server may have one) is called in workers as in process.
func TestWorkerCallsALongName(t *testing.T) {
	p := newWorkerPool(t, worker.Config{Warm: 1})
	name := strings.Repeat("n", 100_000)
	input, _ := json.Marshal(map[string]string{"name": name})
	for _, runner := range []string{"in process", "worker"} {
		e := build(t, newFixture(t), func(b *engine.Builder) {
			b.Add(engine.Tool{
				Name: name, InputSchema: json.RawMessage(`{"type":"object"}`),
				Annotations: engine.Annotations{ReadOnlyHint: true},
				Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
					return json.RawMessage(`{"got":` + string(args) + `}`), nil
				},
			})
			if runner == "worker" {
				b.WithScriptRunner(p)
			}
		})
		res, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: `return await tools[input.name]({k: 1})`, Input: input})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Success || string(res.Result) != `{"got":{"k":1}}` {
			t.Errorf("%s: %s, error %v", runner, res.Result, res.Error)
		}
	}
}

// lyingRunner is a ScriptRunner that breaks its promises: calls whose
// arguments are not JSON, and a result that is not JSON.
type lyingRunner struct{ value string }

func (l lyingRunner) RunScript(ctx context.Context, job js.Job) *js.Result {
	done := make(chan struct{}, 3)
	st := settler{done}
	job.Options.Host.Start([]*js.Call{
		js.NewCall(0, "add", json.RawMessage(`{"a":1,`), 1, 1, st),
		js.NewCall(1, "add", nil, 1, 2, st),
		js.NewCall(2, "board.getState", json.RawMessage(`"\xff`), 1, 3, st),
	})
	for range 3 {
		<-done
	}
	return &js.Result{Value: json.RawMessage(l.value), ToolCalls: 3}
}

type settler struct{ done chan struct{} }

func (s settler) Settle(*js.Call, json.RawMessage, *js.Error, bool) { s.done <- struct{}{} }
func (s settler) Hold(*js.Call) func()                              { return func() {} }

// TestAnswersStayJSONWhateverTheRunner: the engine takes nothing a
// ScriptRunner sends on trust. Calls whose arguments are not JSON fail
// invalid_args without reaching a tool (shown as a string), a result that
// is not JSON fails the run, and every answer and event encodes.
func TestAnswersStayJSONWhateverTheRunner(t *testing.T) {
	for _, value := range []string{`{"bad`, ``} {
		f := newFixture(t)
		rec := &recorder{}
		e := build(t, f, func(b *engine.Builder) { b.WithScriptRunner(lyingRunner{value}).WithObserver(rec) })
		res, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: `return 1`})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Errorf("the answer cannot be encoded: %v", err)
		}
		for _, ev := range rec.events {
			if _, err := json.Marshal(ev); err != nil {
				t.Errorf("event %s cannot be encoded: %v", ev.Type, err)
			}
		}
		if f.count("add") != 0 {
			t.Errorf("add ran %d times", f.count("add"))
		}
		if len(res.Calls) != 3 {
			t.Fatalf("%d calls", len(res.Calls))
		}
		for _, c := range res.Calls {
			if c.Success || c.Error.Code != engine.CodeInvalidArgs {
				t.Errorf("call %d: %+v, want invalid_args", c.Index, c)
			}
		}
		if want := `"{\"a\":1,"`; string(res.Calls[0].Args) != want {
			t.Errorf("shown args %s, want %s", res.Calls[0].Args, want)
		}
		switch value {
		case ``:
			if !res.Success || string(res.Result) != "null" {
				t.Errorf("no value: %s, %v; want null", res.Result, res.Error)
			}
		default:
			if res.Success || res.Error.Code != engine.CodeRuntimeError || string(res.Result) != "null" {
				t.Errorf("a value that is not JSON: %s, %v; want runtime_error", res.Result, res.Error)
			}
		}
	}
}

// TestWorkerLongUnknownName: a tool name of 32 MiB (past any 16-bit or
// 24-bit length) is unknown_tool with the name cut, in workers as in
// process: the whole name reaches the host's lookup.
func TestWorkerLongUnknownName(t *testing.T) {
	p := newWorkerPool(t, worker.Config{Warm: 1})
	code := `let s = "n".repeat(1 << 20); while (s.length < (32 << 20)) s += s;
try { await tools[s]({}); return "called" } catch (e) { return [e.code, e.message] }`
	for _, runner := range []string{"in process", "worker"} {
		e := build(t, newFixture(t), func(b *engine.Builder) {
			if runner == "worker" {
				b.WithScriptRunner(p)
			}
		})
		res, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: code})
		if err != nil {
			t.Fatal(err)
		}
		want := `["unknown_tool","unknown tool \"` + strings.Repeat("n", 200) + `…\""]`
		if !res.Success || string(res.Result) != want || len(res.Calls) != 1 {
			t.Errorf("%s: %.300s, error %v, %d calls; want %.60s…", runner, res.Result, res.Error, len(res.Calls), want)
		}
	}
}
