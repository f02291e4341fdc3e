package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/codemode-dev/codemode/engine/internal/defs"
	"github.com/codemode-dev/codemode/engine/internal/schema"
)

// Engine runs tool calls. It is immutable once built and safe for concurrent
// use by any number of goroutines and front ends.
type Engine struct {
	tools    map[string]*registered
	names    []string // sorted
	cfg      Config
	obs      Observer // nil: no observers, no event work at all
	approver Approver // nil: approvals off
	policy   ApprovalPolicy
	// batchSchema is the batch meta-tool's input schema, made at Build,
	// which reports the tool schemas it cannot embed.
	batchSchema json.RawMessage
	// meta (the meta-tool definitions) and nulls (where strict definitions
	// made optional members nullable) are made on first use, once: most
	// runs never show a model the definitions, and execute_code's
	// description holds every tool's TypeScript declaration.
	meta   func() []Tool
	nulls  func() map[string]*defs.Nulls
	runner ScriptRunner
	// search is the search_tools meta-tool, called like a tool; nil without tools.
	search *registered
	// scriptTools are the names scripts can call: the tools and search_tools.
	scriptTools []string
}

// registered is a tool with what Build derived for it.
type registered struct {
	Tool
	schema         *schema.Schema
	timeout        time.Duration
	timeoutErr     *Error // the cause of a per-call timeout, made once
	maxResultChars int
}

// Tools returns the registered tools sorted by name.
func (e *Engine) Tools() []Tool {
	out := make([]Tool, len(e.names))
	for i, n := range e.names {
		out[i] = e.tools[n].Tool
	}
	return out
}

// Namespace is a namespace of tools, the NAME of tools named NAME.…: an
// MCP server's, an OpenAPI document's, a WASM tool set's.
type Namespace struct {
	Name  string `json:"name"`
	Tools int    `json:"tools"` // how many tools it holds
}

// Namespaces returns the tools' namespaces in the order of their names,
// with how many tools each holds: what a client shows of a catalog too
// large to list (execute_code's description names them so when the
// declarations do not fit). Tools outside a namespace are not counted.
func (e *Engine) Namespaces() []Namespace {
	spaces, _ := defs.Namespaces(e.names)
	out := make([]Namespace, len(spaces))
	for i, ns := range spaces {
		out[i] = Namespace(ns)
	}
	return out
}

// Tool returns the tool with the given name.
func (e *Engine) Tool(name string) (Tool, bool) {
	r, ok := e.tools[name]
	if !ok {
		return Tool{}, false
	}
	return r.Tool, true
}

// Config returns the configuration in force, defaults filled in.
func (e *Engine) Config() Config { return e.cfg }

// Call runs one tool call as a run of its own (run_start, the call's events,
// run_end), with validation, approval and the tool's timeout. The error, if
// any, is an *Error.
func (e *Engine) Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	r := e.startRun(ctx, RunCall)
	out := r.invokeWait(ctx, &call{id: "0", parentID: r.id, tool: tool, args: args})
	r.finish(ctx, out.err)
	if out.err != nil {
		return nil, out.err
	}
	return out.result, nil
}
