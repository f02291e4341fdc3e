package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/engine"
)

// testTools are a read-only tool and a writing one (gated by the default
// approval policy once an Approver is set).
func testTools() []engine.Tool {
	return []engine.Tool{{
		Name:         "math.add",
		Description:  "Adds two numbers.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"],"additionalProperties":false}`),
		Annotations:  engine.Annotations{ReadOnlyHint: true},
		Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ A, B float64 }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return json.Marshal(map[string]float64{"sum": in.A + in.B})
		},
	}, {
		Name:        "notes.write",
		Description: "Writes a note.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"ok":true}`), nil
		},
	}}
}

// connect serves eng over in-memory transports and returns a connected
// client session; both end with the test.
func connect(t *testing.T, eng *engine.Engine, opts ServerOptions, copts *sdk.ClientOptions) *sdk.ClientSession {
	return connectVersion(t, eng, opts, copts, "")
}

// connectVersion is connect with the client asking for a protocol version
// ("" for the SDK's latest).
func connectVersion(t *testing.T, eng *engine.Engine, opts ServerOptions, copts *sdk.ClientOptions, version string) *sdk.ClientSession {
	t.Helper()
	srv, err := NewServer(eng, opts)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, copts)
	cs, err := client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func buildEngine(t *testing.T, b *engine.Builder) *engine.Engine {
	t.Helper()
	eng, err := b.Add(testTools()...).Build()
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func callTool(t *testing.T, cs *sdk.ClientSession, params *sdk.CallToolParams) (*sdk.CallToolResult, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("CallTool(%s): %v", params.Name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("want one text content, got %d", len(res.Content))
	}
	var text map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &text); err != nil {
		t.Fatalf("text content: %v", err)
	}
	if res.IsError && res.StructuredContent == nil {
		return res, text // the error of a tool with an output schema: text only
	}
	var structured map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &structured); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	if diff := cmp.Diff(structured, text); diff != "" {
		t.Errorf("text and structured content differ (-structured +text):\n%s", diff)
	}
	return res, structured
}

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestServerListsToolsAndMetaTools(t *testing.T) {
	cs := connect(t, buildEngine(t, engine.NewBuilder()), ServerOptions{}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Name == engine.MetaExecuteCode && !strings.Contains(tool.Description, "add(") {
			t.Errorf("execute_code's description lacks the TypeScript declarations:\n%s", tool.Description)
		}
		if tool.Name == "math.add" && (tool.Annotations == nil || !tool.Annotations.ReadOnlyHint) {
			t.Errorf("math.add lost its readOnlyHint: %+v", tool.Annotations)
		}
	}
	want := []string{"batch", "execute_code", "math.add", "notes.write", "search_tools"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestServerExposeCodeListsOnlyCodeTools(t *testing.T) {
	cs := connect(t, buildEngine(t, engine.NewBuilder()), ServerOptions{Expose: ExposeCode}, nil)
	if diff := cmp.Diff([]string{"execute_code", "search_tools"}, toolNames(t, cs)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestServerRejectsUnknownExpose(t *testing.T) {
	if _, err := NewServer(buildEngine(t, engine.NewBuilder()), ServerOptions{Expose: "some"}); err == nil {
		t.Fatal("want an error for expose \"some\"")
	}
}

func TestServerCallsTool(t *testing.T) {
	cs := connect(t, buildEngine(t, engine.NewBuilder()), ServerOptions{}, nil)
	res, got := callTool(t, cs, &sdk.CallToolParams{Name: "math.add", Arguments: map[string]any{"a": 1, "b": 2}})
	if res.IsError {
		t.Fatalf("isError: %v", got)
	}
	if diff := cmp.Diff(map[string]any{"sum": 3.0}, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestServerCallsBatch(t *testing.T) {
	cs := connect(t, buildEngine(t, engine.NewBuilder()), ServerOptions{}, nil)
	res, got := callTool(t, cs, &sdk.CallToolParams{Name: "batch", Arguments: map[string]any{"operations": []any{
		map[string]any{"label": "x", "tool": "math.add", "args": map[string]any{"a": 1, "b": 2}},
		map[string]any{"tool": "math.add", "args": map[string]any{"a": map[string]any{"$ref": "x.sum"}, "b": 10}},
	}}})
	if res.IsError {
		t.Fatalf("isError: %v", got)
	}
	raw, _ := json.Marshal(got)
	if !strings.Contains(string(raw), `"sum":13`) {
		t.Errorf("batch result lacks the chained sum 13: %s", raw)
	}
}

func TestServerCallsExecuteCode(t *testing.T) {
	cs := connect(t, buildEngine(t, engine.NewBuilder()), ServerOptions{}, nil)
	res, got := callTool(t, cs, &sdk.CallToolParams{Name: "execute_code", Arguments: map[string]any{
		"code": `const r = await tools.math.add({a: 2, b: 3}); console.log("got", r.sum); return r.sum * 2;`,
	}})
	if res.IsError {
		t.Fatalf("isError: %v", got)
	}
	want := map[string]any{"success": true, "result": 10.0, "logs": []any{"log: got 5"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("model-facing result, no trace (-want +got):\n%s", diff)
	}
}

func TestHostileServerUnknownToolInBatch(t *testing.T) {
	cs := connect(t, buildEngine(t, engine.NewBuilder()), ServerOptions{}, nil)
	res, got := callTool(t, cs, &sdk.CallToolParams{Name: "batch", Arguments: map[string]any{"operations": []any{
		map[string]any{"tool": "math.ad", "args": map[string]any{}},
	}}})
	raw, _ := json.Marshal(got)
	if !res.IsError || !strings.Contains(string(raw), `"code":"unknown_tool"`) {
		t.Errorf("want isError with unknown_tool, got isError=%v %s", res.IsError, raw)
	}
}

// TestHostileServerUnlistedToolIsOurError: a tools/call of a name the
// server does not list is an isError result with unknown_tool and
// suggestions, as the engine's other failures, not the SDK's JSON-RPC error.
func TestHostileServerUnlistedToolIsOurError(t *testing.T) {
	const codeOnly = "this server exposes only execute_code and search_tools"
	for _, tc := range []struct {
		expose, name string
		want         map[string]any
	}{
		{ExposeAll, "math.ad", map[string]any{"code": "unknown_tool", "message": `unknown tool "math.ad"`, "suggestions": []any{"math.add"}}},
		{ExposeAll, "math-add", map[string]any{"code": "unknown_tool", "message": `unknown tool "math-add"`, "suggestions": []any{"math.add"}}},
		{ExposeAll, "", map[string]any{"code": "unknown_tool", "message": `unknown tool ""`}},
		{ExposeCode, "math.add", map[string]any{"code": "unknown_tool",
			"message": `tool "math.add" is not served directly: ` + codeOnly + `; call it from a script with execute_code, as tools.math.add(...)`}},
		{ExposeCode, "math.ad", map[string]any{"code": "unknown_tool", "suggestions": []any{"math.add"},
			"message": `unknown tool "math.ad": ` + codeOnly + `; scripts (execute_code) call the other tools, and search_tools finds them`}},
		{ExposeCode, "batch", map[string]any{"code": "unknown_tool",
			"message": `unknown tool "batch": ` + codeOnly + `; scripts (execute_code) call the other tools, and search_tools finds them`}},
	} {
		t.Run(tc.expose+"/"+tc.name, func(t *testing.T) {
			cs := connect(t, buildEngine(t, engine.NewBuilder()), ServerOptions{Expose: tc.expose}, nil)
			res, got := callTool(t, cs, &sdk.CallToolParams{Name: tc.name, Arguments: map[string]any{"a": 1, "b": 2}})
			if !res.IsError {
				t.Errorf("want isError, got %v", got)
			}
			if diff := cmp.Diff(map[string]any{"error": tc.want}, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHostileServerHugeUnknownToolName(t *testing.T) {
	cs := connect(t, buildEngine(t, engine.NewBuilder()), ServerOptions{Expose: ExposeCode}, nil)
	res, got := callTool(t, cs, &sdk.CallToolParams{Name: strings.Repeat("math.add", 1<<17), Arguments: map[string]any{}})
	e, _ := got["error"].(map[string]any)
	if msg, _ := e["message"].(string); !res.IsError || e["code"] != "unknown_tool" || len(msg) > engine.MaxErrorMessageChars+100 {
		t.Errorf("want a bounded unknown_tool, got isError=%v, code %v, a message of %d bytes", res.IsError, e["code"], len(msg))
	}
}

func TestHostileServerInvalidArgs(t *testing.T) {
	cs := connect(t, buildEngine(t, engine.NewBuilder()), ServerOptions{}, nil)
	for name, args := range map[string]any{
		"wrong type":   map[string]any{"a": "one", "b": 2},
		"missing":      map[string]any{"a": 1},
		"extra member": map[string]any{"a": 1, "b": 2, "c": 3},
	} {
		t.Run(name, func(t *testing.T) {
			res, got := callTool(t, cs, &sdk.CallToolParams{Name: "math.add", Arguments: args})
			e, _ := got["error"].(map[string]any)
			if !res.IsError || e["code"] != "invalid_args" {
				t.Errorf("want isError with invalid_args, got isError=%v %v", res.IsError, got)
			}
			// math.add has an output schema, which {"error": ...} does not
			// meet: clients that check it (the TypeScript SDK's) would
			// throw instead of showing the error.
			if res.StructuredContent != nil {
				t.Errorf("an error of a tool with an output schema carries structured content %v", res.StructuredContent)
			}
		})
	}
}

func TestServerSendsProgressPerFinishedCall(t *testing.T) {
	var mu sync.Mutex
	var got []string
	all := make(chan struct{})
	copts := &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, req.Params.Message)
		if len(got) == 3 {
			close(all)
		}
	}}
	eng := buildEngine(t, engine.NewBuilder().WithObserver(ProgressObserver()))
	cs := connect(t, eng, ServerOptions{}, copts)
	params := &sdk.CallToolParams{Name: "execute_code", Arguments: map[string]any{
		"code": `for (let i = 0; i < 2; i++) await tools.math.add({a: i, b: 1}); await tools.notes.write({});`,
	}}
	params.SetProgressToken("p1")
	callTool(t, cs, params)
	select {
	case <-all:
	case <-time.After(30 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"math.add: ok", "math.add: ok", "notes.write: invalid_args"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress messages (-want +got):\n%s", diff)
	}
}

func TestServerSendsNoProgressWithoutToken(t *testing.T) {
	var mu sync.Mutex
	n := 0
	copts := &sdk.ClientOptions{ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		n++
		mu.Unlock()
	}}
	cs := connect(t, buildEngine(t, engine.NewBuilder().WithObserver(ProgressObserver())), ServerOptions{}, copts)
	callTool(t, cs, &sdk.CallToolParams{Name: "math.add", Arguments: map[string]any{"a": 1, "b": 2}})
	// A notification would have been written before the result.
	mu.Lock()
	defer mu.Unlock()
	if n != 0 {
		t.Errorf("got %d progress notifications without a progress token", n)
	}
}

func TestServerAsksApprovalByElicitation(t *testing.T) {
	for _, tc := range []struct {
		answer   *sdk.ElicitResult
		wantCode string // "" for success
	}{
		{&sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, ""},
		{&sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}}, "denied"},
		{&sdk.ElicitResult{Action: "decline"}, "denied"},
	} {
		t.Run(tc.answer.Action+"/"+tc.wantCode, func(t *testing.T) {
			var asked []string
			copts := &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				asked = append(asked, req.Params.Message)
				return tc.answer, nil
			}}
			eng := buildEngine(t, engine.NewBuilder().WithApprover(Approver(nil)))
			cs := connectVersion(t, eng, ServerOptions{}, copts, "2025-11-25")
			res, got := callTool(t, cs, &sdk.CallToolParams{Name: "notes.write", Arguments: map[string]any{"text": "hi"}})
			e, _ := got["error"].(map[string]any)
			if code, _ := e["code"].(string); res.IsError != (tc.wantCode != "") || code != tc.wantCode {
				t.Errorf("want error code %q, got isError=%v %v", tc.wantCode, res.IsError, got)
			}
			if len(asked) != 1 || !strings.Contains(asked[0], `notes.write {"text":"hi"}`) {
				t.Errorf("want one elicitation naming the call, got %q", asked)
			}
			// A read-only call is not gated: no second elicitation.
			callTool(t, cs, &sdk.CallToolParams{Name: "math.add", Arguments: map[string]any{"a": 1, "b": 2}})
			if len(asked) != 1 {
				t.Errorf("read-only call was put to the user: %q", asked)
			}
		})
	}
}

func TestServerApprovalFallsBackWithoutElicitation(t *testing.T) {
	var fellBack int
	fallback := engine.ApproverFunc(func(_ context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
		fellBack++
		return decide(len(reqs), engine.Decision{Reason: "policy says no"}), nil
	})
	eng := buildEngine(t, engine.NewBuilder().WithApprover(Approver(fallback)))
	cs := connect(t, eng, ServerOptions{}, nil) // a client without elicitation
	res, got := callTool(t, cs, &sdk.CallToolParams{Name: "notes.write", Arguments: map[string]any{"text": "hi"}})
	e, _ := got["error"].(map[string]any)
	if !res.IsError || e["code"] != "denied" || fellBack != 1 {
		t.Errorf("want denied by the fallback once, got isError=%v %v (fallback asked %d times)", res.IsError, got, fellBack)
	}
}

// TestHostileServerApprovalFailsClosed: without a fallback, a gated call
// whose client cannot be asked is denied, saying why, for both kinds of
// client that cannot be asked; the read-only call still runs.
func TestHostileServerApprovalFailsClosed(t *testing.T) {
	elicits := &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		t.Error("a client on a multi-round-trip protocol was sent an elicitation")
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}
	for _, tc := range []struct {
		name    string
		copts   *sdk.ClientOptions
		version string
		why     string
	}{
		{"no elicitation", nil, "2025-11-25", "it does not support elicitation"},
		{"multi-round-trip protocol", elicits, "2026-07-28", "its protocol version, 2026-07-28 or later, allows no elicitation during a call"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := buildEngine(t, engine.NewBuilder().WithApprover(Approver(nil)))
			cs := connectVersion(t, eng, ServerOptions{}, tc.copts, tc.version)
			res, got := callTool(t, cs, &sdk.CallToolParams{Name: "notes.write", Arguments: map[string]any{"text": "hi"}})
			e, _ := got["error"].(map[string]any)
			msg, _ := e["message"].(string)
			if !res.IsError || e["code"] != "denied" || !strings.Contains(msg, "cannot be asked for approval ("+tc.why) {
				t.Errorf("want denied saying %q, got isError=%v %v", tc.why, res.IsError, got)
			}
			if res, got := callTool(t, cs, &sdk.CallToolParams{Name: "math.add", Arguments: map[string]any{"a": 1, "b": 2}}); res.IsError {
				t.Errorf("read-only call: %v", got)
			}
		})
	}
}

func TestServerDenyUnaskedGivesAdvice(t *testing.T) {
	eng := buildEngine(t, engine.NewBuilder().WithApprover(Approver(DenyUnasked("run with --approve none"))))
	cs := connect(t, eng, ServerOptions{}, nil)
	_, got := callTool(t, cs, &sdk.CallToolParams{Name: "notes.write", Arguments: map[string]any{"text": "hi"}})
	want := map[string]any{"error": map[string]any{"code": "denied", "message": `call of "notes.write" was denied: ` +
		`this MCP client cannot be asked for approval (it does not support elicitation); run with --approve none`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

// TestServerDenyUnaskedAloneDenies: used as the engine's Approver itself,
// DenyUnasked denies even a client that could be asked, without asking it.
func TestServerDenyUnaskedAloneDenies(t *testing.T) {
	copts := &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		t.Error("DenyUnasked asked the client")
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}
	eng := buildEngine(t, engine.NewBuilder().WithApprover(DenyUnasked("")))
	cs := connectVersion(t, eng, ServerOptions{}, copts, "2025-11-25")
	_, got := callTool(t, cs, &sdk.CallToolParams{Name: "notes.write", Arguments: map[string]any{"text": "hi"}})
	want := map[string]any{"error": map[string]any{"code": "denied", "message": `call of "notes.write" was denied: the MCP client was not asked for approval`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

// TestHostileApprovalOutsideMCPFailsClosed: on an engine shared with other
// front ends, a run the MCP server did not start has nobody to ask either.
func TestHostileApprovalOutsideMCPFailsClosed(t *testing.T) {
	eng := buildEngine(t, engine.NewBuilder().WithApprover(Approver(nil)))
	_, err := eng.Call(context.Background(), "notes.write", json.RawMessage(`{"text":"hi"}`))
	if !errors.Is(err, engine.ErrDenied) || !strings.Contains(err.Error(), "no MCP client to ask") {
		t.Errorf("want denied for want of an MCP client, got %v", err)
	}
}

func TestServerApprovalFallsBackOnMultiRoundTripProtocol(t *testing.T) {
	asked := 0
	copts := &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked++
		return &sdk.ElicitResult{Action: "decline"}, nil
	}}
	fallback := engine.ApproverFunc(func(_ context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
		return decide(len(reqs), engine.Decision{Approved: true}), nil
	})
	eng := buildEngine(t, engine.NewBuilder().WithApprover(Approver(fallback)))
	cs := connectVersion(t, eng, ServerOptions{}, copts, "2026-07-28")
	res, got := callTool(t, cs, &sdk.CallToolParams{Name: "notes.write", Arguments: map[string]any{"text": "hi"}})
	if res.IsError || asked != 0 {
		t.Errorf("want the fallback's approval and no elicitation, got isError=%v %v, %d elicitations", res.IsError, got, asked)
	}
}

// TestServerDoneCancelsCallsUnderWay: a server told to stop cancels its
// calls instead of waiting for them.
func TestServerDoneCancelsCallsUnderWay(t *testing.T) {
	started := make(chan struct{})
	eng, err := engine.NewBuilder().Add(engine.Tool{
		Name: "slow.wait", Description: "Waits.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: engine.Annotations{ReadOnlyHint: true},
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}).Build()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	cs := connect(t, eng, ServerOptions{Done: done}, nil)
	go func() {
		<-started
		close(done)
	}()
	res, got := callTool(t, cs, &sdk.CallToolParams{Name: "slow.wait", Arguments: map[string]any{}})
	e, _ := got["error"].(map[string]any)
	if !res.IsError || e["code"] != "canceled" {
		t.Errorf("want isError with canceled, got %v", got)
	}
}
