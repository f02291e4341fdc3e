package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// inMemory is a Dialer to a fresh session of s for each connect.
func inMemory(t *testing.T, s *sdk.Server) Dialer {
	return func(ctx context.Context) (sdk.Transport, error) {
		serverSide, clientSide := sdk.NewInMemoryTransports()
		ss, err := s.Connect(ctx, serverSide, nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { ss.Close() })
		return clientSide, nil
	}
}

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// testServer is an SDK server with one tool of each kind of result.
func testServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	tool := func(name, schema string, a *sdk.ToolAnnotations, h func(args json.RawMessage) *sdk.CallToolResult) *sdk.Tool {
		t := &sdk.Tool{Name: name, Description: "the " + name + " tool", InputSchema: json.RawMessage(schema), Annotations: a}
		s.AddTool(t, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return h(req.Params.Arguments), nil
		})
		return t
	}
	tool("echo", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		&sdk.ToolAnnotations{ReadOnlyHint: true, Title: "Echo"},
		func(args json.RawMessage) *sdk.CallToolResult {
			var a struct{ Text string }
			json.Unmarshal(args, &a)
			return textResult(a.Text)
		})
	add := tool("add", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`, nil,
		func(args json.RawMessage) *sdk.CallToolResult {
			var a struct{ A, B float64 }
			json.Unmarshal(args, &a)
			return &sdk.CallToolResult{StructuredContent: map[string]any{"sum": a.A + a.B}, Content: []sdk.Content{&sdk.TextContent{Text: "ignored"}}}
		})
	add.OutputSchema = json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}}}`)
	tool("get-json", `{"type":"object"}`, nil, func(json.RawMessage) *sdk.CallToolResult { return textResult(`{"n": [1, 2]}`) })
	tool("fail", `{"type":"object"}`, nil, func(json.RawMessage) *sdk.CallToolResult {
		r := textResult("the widget is broken")
		r.IsError = true
		return r
	})
	tool("image", `{"type":"object"}`, nil, func(json.RawMessage) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: []byte("png"), MIMEType: "image/png"}}}
	})
	return s
}

func connectTest(t *testing.T, cfg engine.MCPServer) (*Upstream, *engine.Engine) {
	t.Helper()
	ctx := context.Background()
	up, err := ConnectWith(ctx, "test", cfg, inMemory(t, testServer()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	eng, err := engine.NewBuilder().Add(up.Tools()...).Build()
	if err != nil {
		t.Fatal(err)
	}
	return up, eng
}

func TestUpstreamToolsAreBoundWithTheirSchemasAndHints(t *testing.T) {
	up, _ := connectTest(t, engine.MCPServer{})
	type shape struct {
		Name, Description, Input, Output string
		Annotations                      engine.Annotations
	}
	var got []shape
	for _, tool := range up.Tools() {
		got = append(got, shape{tool.Name, tool.Description, string(tool.InputSchema), string(tool.OutputSchema), tool.Annotations})
	}
	want := []shape{
		{Name: "test.add", Description: "the add tool", Input: `{"properties":{"a":{"type":"number"},"b":{"type":"number"}},"type":"object"}`,
			Output: `{"properties":{"sum":{"type":"number"}},"type":"object"}`},
		{Name: "test.echo", Description: "the echo tool", Input: `{"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}`,
			Annotations: engine.Annotations{Title: "Echo", ReadOnlyHint: true}},
		{Name: "test.fail", Description: "the fail tool", Input: `{"type":"object"}`},
		{Name: "test.get_json", Description: "the get-json tool", Input: `{"type":"object"}`},
		{Name: "test.image", Description: "the image tool", Input: `{"type":"object"}`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestUpstreamResultsMapToJSON(t *testing.T) {
	_, eng := connectTest(t, engine.MCPServer{})
	for _, tc := range []struct{ tool, args, want string }{
		{"test.echo", `{"text":"hi"}`, `"hi"`},
		{"test.add", `{"a":1,"b":2}`, `{"sum":3}`},
		{"test.get_json", `{}`, `{"n": [1, 2]}`},
		{"test.image", `{}`, `{"content":[{"type":"image","mimeType":"image/png","data":"cG5n"}]}`},
	} {
		got, err := eng.Call(context.Background(), tc.tool, json.RawMessage(tc.args))
		if err != nil {
			t.Errorf("%s: %v", tc.tool, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s = %s, want %s", tc.tool, got, tc.want)
		}
	}
}

func TestUpstreamErrorsAreToolErrors(t *testing.T) {
	_, eng := connectTest(t, engine.MCPServer{})
	_, err := eng.Call(context.Background(), "test.fail", json.RawMessage(`{}`))
	want := &engine.Error{Code: engine.CodeToolError, Message: "the widget is broken"}
	if diff := cmp.Diff(want, engine.AsError(err, ""), cmp.Comparer(func(a, b *engine.Error) bool {
		return a.Code == b.Code && a.Message == b.Message
	})); diff != "" {
		t.Errorf("isError result (-want +got):\n%s", diff)
	}
	// The engine validates against the upstream's schema before calling.
	_, err = eng.Call(context.Background(), "test.echo", json.RawMessage(`{"text": 3}`))
	if !errors.Is(err, engine.ErrInvalidArgs) {
		t.Errorf("bad args: got %v, want invalid_args", err)
	}
}

func TestUpstreamToolsWorkFromScripts(t *testing.T) {
	_, eng := connectTest(t, engine.MCPServer{})
	res, err := eng.Execute(context.Background(), engine.ExecuteRequest{
		Code: `const s = await tools.test.add({a: 2, b: 3}); return await tools.test.echo({text: "sum " + s.sum});`})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || string(res.Result) != `"sum 5"` {
		t.Errorf("script: success %v result %s error %v", res.Success, res.Result, res.Error)
	}
}

func TestUpstreamConcurrencyIsCapped(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	var mu sync.Mutex
	inFlight, most := 0, 0
	s.AddTool(&sdk.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			inFlight--
			mu.Unlock()
			return textResult("ok"), nil
		})
	up, err := ConnectWith(context.Background(), "slow", engine.MCPServer{MaxConcurrency: 1}, inMemory(t, s), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	eng, err := engine.NewBuilder().Add(up.Tools()...).Build()
	if err != nil {
		t.Fatal(err)
	}
	ops := strings.Repeat(`{"tool":"slow.slow","args":{}},`, 6)
	var req engine.BatchRequest
	if err := json.Unmarshal([]byte(`{"operations":[`+strings.TrimSuffix(ops, ",")+`]}`), &req); err != nil {
		t.Fatal(err)
	}
	res, err := eng.Batch(context.Background(), req)
	if err != nil || res.Summary.Successful != 6 {
		t.Fatalf("batch: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if most != 1 {
		t.Errorf("%d calls ran at once, want 1 (maxConcurrency)", most)
	}
}
