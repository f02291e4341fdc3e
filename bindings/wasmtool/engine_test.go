package wasmtool

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

// WASM tools are first-class: the engine validates, approves, times and
// observes them like native tools, in batches and scripts alike.
func wasmEngine(t *testing.T, b *engine.Builder) *engine.Engine {
	t.Helper()
	dir := t.TempDir()
	writeTool(t, dir, "echo.tool.json", fixtureManifest("fx.echo", "echo",
		`, "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}`))
	writeTool(t, dir, "write.tool.json", fixtureManifest("fx.write", "reactor_echo", `, "pure": true`))
	writeTool(t, dir, "loop.tool.json", fixtureManifest("fx.loop", "loop", `, "annotations": {"readOnlyHint": true}`))
	tools, err := newLoader(t).LoadDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := b.Add(tools...).Build()
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func TestBatchWithWasmTools(t *testing.T) {
	var mu sync.Mutex
	var events []string
	obs := engine.ObserverFunc(func(_ context.Context, e engine.Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.Tool != "" {
			events = append(events, string(e.Type)+" "+e.Tool)
		}
	})
	cfg := engine.DefaultConfig()
	cfg.Tools = map[string]engine.ToolLimits{"fx.loop": {Timeout: engine.Duration(50e6)}} // the engine's per-tool timeout applies too
	eng := wasmEngine(t, engine.NewBuilder().WithObserver(obs).WithConfig(cfg))
	req, err := engine.ParseBatchRequest([]byte(`{"executionMode": "sequential", "operations": [
	  {"tool": "fx.echo", "args": {"n": 1}, "label": "a"},
	  {"tool": "fx.write", "args": {"m": {"$ref": "a.n"}}},
	  {"tool": "fx.echo", "args": {"n": "one"}},
	  {"tool": "fx.ecko", "args": {"n": 1}},
	  {"tool": "fx.loop", "args": {}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Batch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(res.Results))
	for i, r := range res.Results {
		if r.Success {
			got[i] = string(r.Result)
		} else {
			got[i] = string(r.Error.Code)
		}
	}
	want := []string{`{"n": 1}`, `{"m":1}`, "invalid_args", "unknown_tool", "timeout"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("results %q, want %q", got, want)
	}
	if s := res.Results[3].Error.Suggestions; len(s) == 0 || s[0] != "fx.echo" {
		t.Errorf("suggestions %v", s)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := len(events); n != 2*len(want) {
		t.Errorf("%d tool events, want a start and an end per operation: %v", n, events)
	}
}

func TestScriptWithWasmTools(t *testing.T) {
	var asked []string
	approver := engine.ApproverFunc(func(_ context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
		ds := make([]engine.Decision, len(reqs))
		for i, r := range reqs {
			asked = append(asked, r.Tool)
			ds[i] = engine.Decision{Approved: false, Reason: "not today"}
		}
		return ds, nil
	})
	eng := wasmEngine(t, engine.NewBuilder().WithApprover(approver))
	res, err := eng.Execute(context.Background(), engine.ExecuteRequest{Code: `
const all = await Promise.all([1, 2, 3].map((n) => tools.fx.echo({ n })));
let denied;
try { await tools["fx.write"]({ n: 4 }); } catch (e) { denied = e.code; }
return { sum: all.reduce((s, r) => s + r.n, 0), denied };`})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || string(res.Result) != `{"sum":6,"denied":"denied"}` {
		t.Fatalf("result %s, error %v", res.Result, res.Error)
	}
	if len(asked) != 1 || asked[0] != "fx.write" { // read-only fx.echo ran without asking
		t.Errorf("approver was asked for %v", asked)
	}
	if len(res.Calls) != 4 {
		t.Errorf("%d calls in the trace, want 4", len(res.Calls))
	}
}

func TestDefinitionsListWasmTools(t *testing.T) {
	eng := wasmEngine(t, engine.NewBuilder())
	defs, _ := json.Marshal(eng.ToolDefinitions().MCP())
	for _, name := range []string{"fx.echo", "fx.write", "fx.loop"} {
		if !strings.Contains(string(defs), `"`+name+`"`) {
			t.Errorf("definitions lack %s", name)
		}
	}
	if ts := eng.Declarations(); !strings.Contains(ts, "fx: {") && !strings.Contains(ts, "fx:") {
		t.Errorf("declarations lack the fx namespace:\n%s", ts)
	}
}
