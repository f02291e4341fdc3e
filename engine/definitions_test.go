package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func whiteboardEngine(t testing.TB) *engine.Engine {
	t.Helper()
	e, err := engine.NewBuilder().Add(whiteboard.Tools(whiteboard.NewBoard())...).Build()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func batchSchema(t *testing.T, e *engine.Engine) *jsonschema.Schema {
	t.Helper()
	defs := e.ToolDefinitions()
	last := defs.Tools[len(defs.Tools)-3]
	if last.Name != "batch" || last.Handler != nil {
		t.Fatalf("definition %q, want the batch meta-tool", last.Name)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(last.InputSchema)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///batch.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///batch.json")
	if err != nil {
		t.Fatalf("batch schema does not compile: %v", err)
	}
	return s
}

// TestBatchSchemaGuidesStrictDecoding: the batch meta-tool's schema accepts
// the example retro batch and rejects a misspelt tool and malformed args, so
// a model decoding under it cannot produce them.
func TestBatchSchemaGuidesStrictDecoding(t *testing.T) {
	s := batchSchema(t, whiteboardEngine(t))
	check := func(name, doc string, valid bool) {
		t.Helper()
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Validate(v); (err == nil) != valid {
			t.Errorf("%s: valid=%v, want %v (%v)", name, err == nil, valid, err)
		}
	}
	retro, _ := os.ReadFile("../examples/retro.json")
	typo, _ := os.ReadFile("../examples/retro-typo.json")
	check("retro example", string(retro), true)
	check("misspelt tool", string(typo), false)
	check("string for a number", `{"operations":[{"tool":"createFrame","args":{"title":"t","x":"0","y":0,"width":10,"height":10}}]}`, false)
	check("args of another tool", `{"operations":[{"tool":"createFrame","args":{"text":"t","x":0,"y":0}}]}`, false)
	check("bad mode", `{"operations":[{"tool":"getBoardState","args":{}}],"executionMode":"fast"}`, false)
}

func TestDefinitionsExport(t *testing.T) {
	e := build(t, newFixture(t))
	defs := e.ToolDefinitions()
	mcp := defs.MCP()
	oa, err := defs.OpenAI()
	if err != nil {
		t.Fatal(err)
	}
	an, err := defs.Anthropic()
	if err != nil {
		t.Fatal(err)
	}
	if len(mcp) != len(e.Tools())+3 || len(oa) != len(mcp) || len(an) != len(mcp) {
		t.Fatalf("counts: %d tools, mcp %d, openai %d, anthropic %d", len(e.Tools()), len(mcp), len(oa), len(an))
	}
	names := map[string]bool{}
	for i := range mcp {
		names[mcp[i].Name+" "+oa[i].Function.Name+" "+an[i].Name] = true
	}
	if !names["board.getState board-getState board-getState"] || !names["batch batch batch"] || !names["execute_code execute_code execute_code"] ||
		!names["search_tools search_tools search_tools"] {
		t.Errorf("dotted names not mapped reversibly: %v", names)
	}
	if engine.CanonicalName(engine.WireName("a.b.c")) != "a.b.c" {
		t.Error("WireName is not reversed by CanonicalName")
	}
	out, _ := json.Marshal(oa[0])
	if !strings.HasPrefix(string(out), `{"type":"function","function":{"name":`) {
		t.Errorf("OpenAI shape: %s", out)
	}
}

// TestExecuteCodeDefinition: the execute_code meta-tool's description holds
// the rules and the tools' declarations, which parse as TypeScript; its
// schema requires code.
func TestExecuteCodeDefinition(t *testing.T) {
	e := whiteboardEngine(t)
	defs := e.ToolDefinitions()
	last := defs.Tools[len(defs.Tools)-2]
	if last.Name != "execute_code" || last.Handler != nil {
		t.Fatalf("last definition is %q, want the execute_code meta-tool", last.Name)
	}
	for _, want := range []string{"async function", "Promise.all", ".suggestions", "createStickyNote(args: {", "declare const tools"} {
		if !strings.Contains(last.Description, want) {
			t.Errorf("the description lacks %q", want)
		}
	}
	if out := api.Transform(e.Declarations(), api.TransformOptions{Loader: api.LoaderTS}); len(out.Errors) > 0 {
		t.Errorf("declarations do not parse: %v", out.Errors[0].Text)
	}
	if !strings.Contains(string(last.InputSchema), `"required":["code"]`) {
		t.Errorf("schema = %s", last.InputSchema)
	}
}

// TestMetaToolNamesAreReserved: no tool may take a meta-tool's name.
func TestMetaToolNamesAreReserved(t *testing.T) {
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	for _, name := range []string{engine.MetaBatch, engine.MetaExecuteCode, engine.MetaSearchTools} {
		if _, err := engine.NewBuilder().Add(engine.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), Handler: noop}).Build(); err == nil {
			t.Errorf("a tool named %q was accepted", name)
		}
	}
}

// TestDefinitionShapesAreEngineTypes: the export shapes are structs of
// package engine, so go doc shows their fields, and they marshal to the
// providers' formats.
func TestDefinitionShapesAreEngineTypes(t *testing.T) {
	const pkg = "github.com/codemode-dev/codemode/engine"
	for _, v := range []any{engine.MCPTool{}, engine.OpenAITool{}, engine.OpenAIFunction{}, engine.AnthropicTool{}} {
		typ := reflect.TypeOf(v)
		if typ.PkgPath() != pkg || typ.Kind() != reflect.Struct {
			t.Errorf("%v is declared in %s, want %s", typ, typ.PkgPath(), pkg)
		}
	}
	d := engine.Definitions{Tools: []engine.Tool{{Name: "board.get", Description: "Get.", InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Annotations: engine.Annotations{ReadOnlyHint: true}}}}
	oa, err := d.OpenAI()
	if err != nil {
		t.Fatal(err)
	}
	an, err := d.Anthropic()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{d.MCP(), `[{"name":"board.get","description":"Get.","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"annotations":{"readOnlyHint":true,"idempotentHint":false}}]`},
		{oa, `[{"type":"function","function":{"name":"board-get","description":"Get.","parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false},"strict":true}}]`},
		{an, `[{"name":"board-get","description":"Get.","input_schema":{"type":"object","properties":{},"additionalProperties":false}}]`},
	} {
		if b, _ := json.Marshal(tc.v); string(b) != tc.want {
			t.Errorf("got  %s\nwant %s", b, tc.want)
		}
	}
}

// TestDeclarationsLeftOutOnlyWhenOver: execute_code's description leaves
// the declarations out, without writing them, only when they are over the
// budget: descriptions of invalid UTF-8, CRLF, "*/" and runs of spaces
// (which the declarations write longer or shorter) are tried near it.
func TestDeclarationsLeftOutOnlyWhenOver(t *testing.T) {
	for _, desc := range []string{
		strings.Repeat("\xff", 2000),
		strings.Repeat("a\r\n", 700),
		strings.Repeat("*/ ", 700),
		strings.Repeat("x      \u00a0\u2003", 300),
	} {
		tl := engine.Tool{Name: "a.b", Description: desc, InputSchema: json.RawMessage(`{"type":"object"}`),
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}
		for budget := 1000; budget <= 8000; budget += 250 {
			cfg := engine.DefaultConfig()
			cfg.Script.MaxDeclarationChars = budget
			e, err := engine.NewBuilder().WithConfig(cfg).Add(tl).Build()
			if err != nil {
				t.Fatal(err)
			}
			decls := e.Declarations()
			var code engine.Tool
			for _, m := range e.ToolDefinitions().Tools {
				if m.Name == engine.MetaExecuteCode {
					code = m
				}
			}
			declared := strings.Contains(code.Description, "b(args?:")
			if declared != (len(decls) <= budget) {
				t.Errorf("%.10q…, budget %d: declarations of %d bytes, declared in execute_code: %v", desc, budget, len(decls), declared)
			}
		}
	}
}
