package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

// TestTools: GET /v1/tools in every format, each the engine's own output.
func TestTools(t *testing.T) {
	s := newTestServer(t, Options{})
	eng := s.Engine()
	t.Run("json", func(t *testing.T) {
		for _, q := range []string{"", "?format=json"} {
			res, body := do(t, s, "GET", "/v1/tools"+q, "")
			var v struct{ Tools []engine.Tool }
			if err := json.Unmarshal(body, &v); err != nil || res.StatusCode != 200 {
				t.Fatalf("%d %v", res.StatusCode, err)
			}
			var names []string
			for _, tool := range v.Tools {
				names = append(names, tool.Name)
			}
			if len(names) != 12 || !slices.Contains(names, "createStickyNote") || slices.Contains(names, "batch") {
				t.Errorf("tools %q", names)
			}
			if !strings.Contains(string(body), `"readOnlyHint": true`) || !strings.Contains(string(body), `"inputSchema"`) {
				t.Errorf("no annotations or schemas:\n%.500s", body)
			}
		}
	})
	t.Run("ts", func(t *testing.T) {
		res, body := do(t, s, "GET", "/v1/tools?format=ts", "")
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" || string(body) != eng.Declarations() {
			t.Errorf("%d %s:\n%.300s", res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	})
	defs := eng.ToolDefinitions()
	openai, _ := defs.OpenAI()
	anthropic, _ := defs.Anthropic()
	// mcp: an MCP tools/list result, {"tools": [...]}.
	for format, want := range map[string]any{"mcp": map[string]any{"tools": defs.MCP()}, "openai": openai, "anthropic": anthropic} {
		t.Run(format, func(t *testing.T) {
			res, body := do(t, s, "GET", "/v1/tools?format="+format, "")
			wantJSON, _ := json.MarshalIndent(want, "", "  ")
			if res.StatusCode != 200 || string(body) != string(wantJSON)+"\n" {
				t.Errorf("%d:\n%.300s", res.StatusCode, body)
			}
			if !strings.Contains(string(body), "execute_code") {
				t.Errorf("no meta-tools")
			}
		})
	}
}

// TestExtraTools: Options.Tools join the whiteboard's; a clash is New's
// error.
func TestExtraTools(t *testing.T) {
	g := newGate()
	s := newTestServer(t, Options{Tools: []engine.Tool{g.tool()}})
	if _, ok := s.Engine().Tool("test.wait"); !ok {
		t.Error("the extra tool is missing")
	}
	clash := g.tool()
	clash.Name = "createStickyNote"
	if _, err := New(Options{Store: NewMemoryStore(), Tools: []engine.Tool{clash}}); err == nil || !strings.Contains(err.Error(), "already defined") {
		t.Errorf("clash: %v", err)
	}
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "Store is required") {
		t.Errorf("no store: %v", err)
	}
}

// TestPolicies: which tools each approval policy gates.
func TestPolicies(t *testing.T) {
	s := newTestServer(t, Options{})
	var gated []string
	for _, tool := range s.Engine().Tools() {
		if GateDestructive(&tool) {
			gated = append(gated, tool.Name)
		}
		if GateNone(&tool) {
			t.Errorf("GateNone gates %s", tool.Name)
		}
	}
	if !slices.Equal(gated, []string{"deleteObject"}) {
		t.Errorf("GateDestructive gates %q", gated)
	}
	bare := engine.Tool{Name: "x"} // no hints: MCP takes it as destructive
	if !GateDestructive(&bare) {
		t.Error("a tool without hints is not gated")
	}
}

// TestToolIndex: format=index is every tool's name and the namespaces
// with their counts, no schema.
func TestToolIndex(t *testing.T) {
	g := newGate()
	a, b := g.tool(), g.tool()
	b.Name = "test.other"
	c := g.tool()
	c.Name = "zz.last"
	s := newTestServer(t, Options{Tools: []engine.Tool{a, b, c}})
	res, body := do(t, s, "GET", "/v1/tools?format=index", "")
	var idx ToolIndex
	if err := json.Unmarshal(body, &idx); err != nil || res.StatusCode != 200 {
		t.Fatalf("%d %v", res.StatusCode, err)
	}
	want := []Namespace{{Name: "test", Tools: 2}, {Name: "zz", Tools: 1}}
	if !slices.Equal(idx.Namespaces, want) || len(idx.Tools) != 15 || !slices.Contains(idx.Tools, "test.other") || !slices.IsSorted(idx.Tools) {
		t.Errorf("index %+v", idx)
	}
	if strings.Contains(string(body), "inputSchema") {
		t.Error("the index carries schemas")
	}
}
