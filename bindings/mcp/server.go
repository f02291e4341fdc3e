package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/engine"
)

// Expose values for ServerOptions.Expose.
const (
	// ExposeAll lists every tool and meta-tool of the engine.
	ExposeAll = "all"
	// ExposeCode lists only execute_code and search_tools, so a host's
	// prompt stays small however many tools the scripts can call. A
	// tools/call of another tool is an unknown_tool error saying to call it
	// from a script.
	ExposeCode = "code"
)

// ServerOptions configures NewServer.
type ServerOptions struct {
	// Expose is ExposeAll (the default when empty) or ExposeCode.
	Expose string
	// Version is reported to clients as the server's version.
	Version string
	// Done, when closed, cancels the calls under way (their results say
	// canceled). Without it a server asked to stop (its Run's context
	// canceled) waits for them: the SDK's sessions wait for their calls'
	// handlers when they close, and do not cancel them.
	Done <-chan struct{}
}

// NewServer returns an MCP server listing eng's tools and meta-tools
// (Engine.ToolDefinitions) and running each tools/call as one native call
// through Engine.HandleToolCalls, so batches, scripts, validation, approvals
// and events behave exactly as in every other front end.
//
// Progress notifications and approvals by elicitation need hooks on the
// engine itself: build it with ProgressObserver and Approver (see their
// docs). Without them the server still works; calls just report no
// progress and use the engine's own approval set-up.
func NewServer(eng *engine.Engine, opts ServerOptions) (*sdk.Server, error) {
	switch opts.Expose {
	case "":
		opts.Expose = ExposeAll
	case ExposeAll, ExposeCode:
	default:
		return nil, fmt.Errorf("expose %q: want %q or %q", opts.Expose, ExposeAll, ExposeCode)
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "codemode", Version: version}, nil)
	h := &toolHandler{eng: eng, done: opts.Done, typed: map[string]bool{}}
	var listed []string
	for _, def := range eng.ToolDefinitions().MCP() {
		if opts.Expose == ExposeCode && def.Name != engine.MetaExecuteCode && def.Name != engine.MetaSearchTools {
			continue
		}
		t, err := sdkTool(def)
		if err != nil {
			return nil, err
		}
		h.typed[def.Name] = len(def.OutputSchema) > 0
		srv.AddTool(t, h.handle)
		listed = append(listed, def.Name)
	}
	srv.AddReceivingMiddleware(unlistedTools(eng, listed, opts.Expose))
	return srv, nil
}

// sdkTool turns the engine's MCP definition into the SDK's, schemas kept
// raw: the SDK must not re-derive or re-validate them.
func sdkTool(def engine.MCPTool) (*sdk.Tool, error) {
	t := &sdk.Tool{Name: def.Name, Description: def.Description, InputSchema: def.InputSchema}
	if len(def.OutputSchema) > 0 {
		t.OutputSchema = def.OutputSchema
	}
	if len(def.Annotations) > 0 {
		t.Annotations = new(sdk.ToolAnnotations)
		if err := json.Unmarshal(def.Annotations, t.Annotations); err != nil {
			return nil, fmt.Errorf("tool %s: annotations: %w", def.Name, err)
		}
	}
	return t, nil
}

// toolHandler runs tools/call requests on one engine.
type toolHandler struct {
	eng   *engine.Engine
	done  <-chan struct{}
	calls atomic.Uint64   // call ids, unique within the server
	typed map[string]bool // the tools with an output schema; read-only once serving
}

// handle runs one tools/call of a listed tool (unlistedTools answers the
// others). Every failure of the call itself — bad arguments, a tool's
// error — is a tool result with isError and the engine's error object,
// never a protocol error: a model reads it and can correct itself.
func (h *toolHandler) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	ctx, cancel := context.WithCancel(withSession(ctx, req))
	defer cancel()
	if h.done != nil {
		go func() {
			select {
			case <-h.done:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	call := engine.ToolCall{
		ID:        "mcp_" + strconv.FormatUint(h.calls.Add(1), 10),
		Name:      req.Params.Name,
		Arguments: req.Params.Arguments,
	}
	res := h.eng.HandleToolCalls(ctx, []engine.ToolCall{call})[0]
	return toolResult(res, h.typed[req.Params.Name]), nil
}

// toolResult renders an engine result for MCP: the JSON as structured
// content and the same JSON as text, for clients that read only text. For
// execute_code the JSON is the script's model-facing rendering, never its
// host trace. The error of a tool that declares an output schema goes as
// text only: clients check structured content against the schema even in
// an error result (the TypeScript SDK's client throws), and
// {"error": {...}} is not the tool's output.
func toolResult(res engine.ToolCallResult, typed bool) *sdk.CallToolResult {
	out := &sdk.CallToolResult{
		Content: []sdk.Content{&sdk.TextContent{Text: string(res.Content)}},
		IsError: res.IsError,
	}
	if json.Valid(res.Content) && !(res.IsError && typed) {
		out.StructuredContent = res.Content
	}
	return out
}
