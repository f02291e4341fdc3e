// Package defs produces the tool definitions a model sees: the input schema
// and description of the batch meta-tool, and the tool lists in the shapes
// MCP, OpenAI and Anthropic expect.
//
// It works on plain data ([Tool], no handlers), so it does not depend on the
// engine.
package defs

import "encoding/json"

// Tool is a tool's model-facing definition.
type Tool struct {
	// Name is identifier segments ([A-Za-z_][A-Za-z0-9_]*) joined by dots,
	// e.g. "board.getState".
	Name        string
	Description string
	// InputSchema is a JSON Schema whose root is {"type": "object"}. It may
	// hold "$defs" (or "definitions") referenced as "#/$defs/X".
	InputSchema json.RawMessage
	// OutputSchema is optional.
	OutputSchema json.RawMessage
	// Annotations is an already marshalled MCP annotations object, or nil.
	Annotations json.RawMessage
}
