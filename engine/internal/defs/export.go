package defs

import (
	"bytes"
	"encoding/json"
)

// Provider name limits: both allow ^[a-zA-Z0-9_-]+$, which WireName's output
// always matches for a valid tool name; only the length needs checking.
const (
	openAINameMax    = 64
	anthropicNameMax = 128
)

// MCPTool is a tool in MCP's tools/list shape. Names keep their dots.
type MCPTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// OpenAITool is a tool in OpenAI's Chat Completions shape.
type OpenAITool struct {
	Type     string         `json:"type"` // always "function"
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction is the function half of an [OpenAITool].
type OpenAIFunction struct {
	Name        string          `json:"name"` // WireName of the tool's name
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // the strict form when Strict
	// Strict is always sent: OpenAI's Responses API takes a missing strict
	// as true and rewrites the schema itself.
	Strict bool `json:"strict"`
	// NotStrict says why Strict is false; it is not sent.
	NotStrict string `json:"-"`
}

// AnthropicTool is a tool in Anthropic's Messages API shape.
type AnthropicTool struct {
	Name        string          `json:"name"` // WireName of the tool's name
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// MCP returns tools in MCP's shape. MCP allows dots, so names are unchanged.
// An annotations value of JSON null is left out, like a missing one.
func MCP(tools []Tool) []MCPTool {
	out := make([]MCPTool, len(tools))
	for i, t := range tools {
		out[i] = MCPTool{Name: t.Name, Description: t.Description, InputSchema: InputSchema(t),
			OutputSchema: present(t.OutputSchema), Annotations: present(t.Annotations)}
	}
	return out
}

// OpenAI returns tools in OpenAI's shape, named by [WireName], each with
// its input schema in the strict form (see [Strict]) and marked strict, or,
// where there is none, with its schema as it is, not strict, and the reason
// in NotStrict. It fails on a name OpenAI would refuse: invalid, over 64
// characters, or repeated.
func OpenAI(tools []Tool) ([]OpenAITool, error) {
	if err := checkWireNames("openai", openAINameMax, tools); err != nil {
		return nil, err
	}
	out := make([]OpenAITool, len(tools))
	for i, t := range tools {
		f := OpenAIFunction{Name: WireName(t.Name), Description: t.Description, Parameters: InputSchema(t)}
		if s := Strict(f.Parameters); s.Reason == "" {
			f.Parameters, f.Strict = s.Schema, true
		} else {
			f.NotStrict = s.Reason
		}
		out[i] = OpenAITool{Type: "function", Function: f}
	}
	return out, nil
}

// Anthropic returns tools in Anthropic's shape, named by [WireName]. It fails
// on a name Anthropic would refuse: invalid, over 128 characters, or repeated.
func Anthropic(tools []Tool) ([]AnthropicTool, error) {
	if err := checkWireNames("anthropic", anthropicNameMax, tools); err != nil {
		return nil, err
	}
	out := make([]AnthropicTool, len(tools))
	for i, t := range tools {
		out[i] = AnthropicTool{Name: WireName(t.Name), Description: t.Description, InputSchema: InputSchema(t)}
	}
	return out, nil
}

// InputSchema is t's input schema, or {"type":"object"} when it has none:
// every provider requires an object schema, and null is not one.
func InputSchema(t Tool) json.RawMessage {
	if s := present(t.InputSchema); s != nil {
		return s
	}
	return json.RawMessage(`{"type":"object"}`)
}

// present returns nil for an absent or null value, so omitempty drops it.
func present(v json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(v)) == 0 || string(bytes.TrimSpace(v)) == "null" {
		return nil
	}
	return v
}
