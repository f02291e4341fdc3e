package mcp

import (
	"context"
	"encoding/json"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/strictjson"
	"github.com/codemode-dev/codemode/internal/suggest"
)

// unlistedTools answers a tools/call of a name the server does not list
// with the engine's unknown_tool error as an isError result, suggestions
// included, like every other failed call: the SDK's own answer is a
// JSON-RPC error, which many hosts do not show the model, so it could not
// correct itself.
func unlistedTools(eng *engine.Engine, listed []string, expose string) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			call, ok := req.(*sdk.CallToolRequest)
			if !ok || method != "tools/call" || call.Params == nil || slices.Contains(listed, call.Params.Name) {
				return next(ctx, method, req)
			}
			content, _ := json.Marshal(struct {
				Error *engine.Error `json:"error"`
			}{unknownTool(eng, listed, expose, call.Params.Name)})
			return toolResult(engine.ToolCallResult{Content: content, IsError: true}, false), nil
		}
	}
}

// unknownTool is the error for a name the server does not list. Under
// ExposeCode the engine's other tools are there for scripts: the error says
// how to reach a tool that exists, and suggests among all the tools.
func unknownTool(eng *engine.Engine, listed []string, expose, name string) *engine.Error {
	q := strictjson.Quote(name)
	if expose != ExposeCode {
		err := engine.Errorf(engine.CodeUnknownTool, "unknown tool %s", q)
		err.Suggestions = suggest.Names(name, listed)
		return err
	}
	if t, ok := eng.Tool(engine.CanonicalName(name)); ok {
		return engine.Errorf(engine.CodeUnknownTool,
			"tool %s is not served directly: this server exposes only %s and %s; call it from a script with %s, as tools.%s(...)",
			q, engine.MetaExecuteCode, engine.MetaSearchTools, engine.MetaExecuteCode, t.Name)
	}
	err := engine.Errorf(engine.CodeUnknownTool,
		"unknown tool %s: this server exposes only %s and %s; scripts (%s) call the other tools, and %s finds them",
		q, engine.MetaExecuteCode, engine.MetaSearchTools, engine.MetaExecuteCode, engine.MetaSearchTools)
	var names []string
	for _, t := range eng.Tools() {
		names = append(names, t.Name)
	}
	err.Suggestions = suggest.Names(name, append(names, listed...))
	return err
}
