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
