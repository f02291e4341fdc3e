package engine

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-dev/codemode/engine/internal/defs"
	"github.com/codemode-dev/codemode/engine/internal/tsgen"
)

// The shapes model APIs take tool definitions in. They are plain structs:
// json.Marshal gives exactly the provider's format.
type (
	// MCPTool is a tool as MCP's tools/list returns it (dotted names kept).
	MCPTool = defs.MCPTool
	// OpenAITool is a tool for OpenAI's chat completions "tools" array.
	OpenAITool = defs.OpenAITool
	// OpenAIFunction is the function part of an OpenAITool.
	OpenAIFunction = defs.OpenAIFunction
	// AnthropicTool is a tool for Anthropic's messages API "tools" array.
	AnthropicTool = defs.AnthropicTool
)

// Definitions is what a model is shown: every tool, then the meta-tools
// (batch, execute_code). Meta-tool entries carry no Handler:
// HandleToolCalls runs them.
type Definitions struct {
	Tools []Tool
}

// ToolDefinitions returns the model-facing tool list. The batch meta-tool's
// schema names the tools as an enum and, while the tool set is small (≤ 40
// tools, ≤ 48 KiB of schemas), is a union keyed by tool name carrying each
// tool's own argument schema, so a model under strict decoding can neither
// misspell a tool nor malform its arguments.
func (e *Engine) ToolDefinitions() Definitions {
	return Definitions{Tools: append(e.Tools(), e.meta...)}
}

// metaTools builds the meta-tool definitions for Build.
func (e *Engine) metaTools() ([]Tool, error) {
	if len(e.names) == 0 {
		return nil, nil
	}
	opt := defs.DefaultBatchOptions()
	opt.MaxOperations = e.cfg.Limits.MaxOperations
	in := e.Tools()
	list := make([]defs.Tool, len(in))
	for i, t := range in {
		list[i] = toDef(t)
	}
	schema, err := defs.BatchSchema(list, opt)
	if err != nil {
		return nil, fmt.Errorf("batch meta-tool schema: %w", err)
	}
	code := defs.ExecuteCodeOptions{
		MaxToolCalls:   e.cfg.Script.MaxToolCalls,
		TimeoutSeconds: e.cfg.Script.Timeout.D().Seconds(),
		MaxOutputChars: e.cfg.Script.MaxOutputChars,
	}
	return []Tool{{
		Name:        MetaBatch,
		Description: defs.BatchDescription(opt),
		InputSchema: schema,
		Annotations: Annotations{Title: "Batch of tool calls", OpenWorldHint: Bool(false)},
	}, {
		Name:        MetaExecuteCode,
		Description: defs.ExecuteCodeDescription(code, e.Declarations()),
		InputSchema: json.RawMessage(defs.ExecuteCodeSchema),
		Annotations: Annotations{Title: "Run a script that calls the tools", OpenWorldHint: Bool(false)},
	}}, nil
}

// Declarations returns the TypeScript declarations scripts see: the global
// tools with every tool as an async method, input and console.
func (e *Engine) Declarations() string {
	list := make([]tsgen.Tool, len(e.names))
	for i, n := range e.names {
		t := e.tools[n]
		list[i] = tsgen.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
	}
	return tsgen.Declarations(list)
}

func toDef(t Tool) defs.Tool {
	ann, _ := json.Marshal(t.Annotations) // plain struct: cannot fail
	return defs.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: ann}
}

func (d Definitions) list() []defs.Tool {
	out := make([]defs.Tool, len(d.Tools))
	for i, t := range d.Tools {
		out[i] = toDef(t)
	}
	return out
}

// MCP returns the definitions in MCP's shape.
func (d Definitions) MCP() []MCPTool { return defs.MCP(d.list()) }

// OpenAI returns the definitions in OpenAI's shape, names in wire form
// (dots → '-'; see WireName). It fails only for names too long for OpenAI.
func (d Definitions) OpenAI() ([]OpenAITool, error) { return defs.OpenAI(d.list()) }

// Anthropic returns the definitions in Anthropic's shape, names in wire form.
func (d Definitions) Anthropic() ([]AnthropicTool, error) { return defs.Anthropic(d.list()) }

// WireName maps a canonical tool name to the form model APIs accept: OpenAI
// and Anthropic forbid dots, so every '.' becomes '-'. Tool names never
// contain '-', so CanonicalName reverses it exactly.
func WireName(name string) string { return defs.WireName(name) }

// CanonicalName reverses WireName; a canonical name is returned unchanged.
func CanonicalName(wire string) string { return defs.CanonicalName(wire) }
