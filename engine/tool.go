package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/codemode-dev/codemode/engine/internal/defs"
)

// Handler runs one tool call. args has been validated against the tool's
// input schema. The returned JSON is the call's result (nil means null).
//
// A Handler must honour ctx: it carries the per-call deadline and the run's
// cancelation. The engine stops waiting at the deadline either way, but a
// handler that ignores ctx keeps its goroutine busy until it returns.
//
// Return an *Error to choose the code a caller sees. context.DeadlineExceeded
// and context.Canceled become timeout and canceled; any other error becomes
// CodeToolError with the error's text as message.
type Handler func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// Tool is one callable tool: the metadata a model sees, plus its handler.
// Field names and JSON shape follow MCP's Tool.
type Tool struct {
	// Name is one or more identifier segments joined by dots ("board.getState");
	// a dot groups a namespace such as an upstream MCP server or a WASM package.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// InputSchema is a JSON Schema (draft 2020-12 unless it says otherwise)
	// whose root is {"type": "object"}.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema optionally describes a successful result.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  Annotations     `json:"annotations"`
	Handler      Handler         `json:"-"`
	// Origin says where the tool came from ("wasm-tools/graph.json", "the whiteboard"),
	// for error messages about it: a name used twice names both origins. Optional.
	Origin string `json:"-"`
}

// Annotations are MCP's tool hints. They are hints to hosts and approval
// policies, not guarantees made by the tool.
type Annotations struct {
	Title string `json:"title,omitempty"`
	// ReadOnlyHint: the tool does not change its environment. The default
	// approval policy runs read-only tools without asking.
	ReadOnlyHint bool `json:"readOnlyHint"`
	// DestructiveHint: the tool may destroy data (MCP default true when not read-only).
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	// IdempotentHint: calling again with the same args has no further effect.
	IdempotentHint bool `json:"idempotentHint"`
	// OpenWorldHint: the tool reaches outside entities (MCP default true).
	OpenWorldHint *bool `json:"openWorldHint,omitempty"`
}

// Bool returns a pointer to v, for the optional annotation hints.
func Bool(v bool) *bool { return &v }

// ValidName reports whether name is identifier segments
// ([A-Za-z_][A-Za-z0-9_]*) joined by single dots.
func ValidName(name string) bool { return defs.ValidName(name) }

// notIdentifier matches what a name from elsewhere may hold but a name
// segment may not ("get-tiny-image", "issues/list-for-repo").
var notIdentifier = regexp.MustCompile(`[^A-Za-z0-9_]`)

// NameSegment is the name segment a name from elsewhere (an upstream MCP
// tool's, an OpenAPI operationId) becomes: each character a segment cannot
// hold replaced by "_", and "_" in front of an empty one or one that would
// start with a digit. Binding packages use it so that every source's names
// are made alike.
func NameSegment(s string) string {
	seg := notIdentifier.ReplaceAllString(s, "_")
	if seg == "" || (seg[0] >= '0' && seg[0] <= '9') {
		seg = "_" + seg
	}
	return seg
}

// check reports what is wrong with t's declaration, for Builder.Build.
func (t *Tool) check() error {
	if !ValidName(t.Name) {
		return fmt.Errorf("tool name %q: want identifier segments ([A-Za-z_][A-Za-z0-9_]*) joined by dots", t.Name)
	}
	if t.Handler == nil {
		return fmt.Errorf("tool %q: no handler", t.Name)
	}
	if len(t.InputSchema) == 0 {
		return fmt.Errorf("tool %q: no input schema", t.Name)
	}
	var root struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(t.InputSchema, &root); err != nil {
		return fmt.Errorf("tool %q: input schema is not a JSON object: %v", t.Name, err)
	}
	if root.Type != "object" {
		return fmt.Errorf(`tool %q: input schema root must have "type": "object"`, t.Name)
	}
	if len(t.OutputSchema) > 0 && !json.Valid(t.OutputSchema) {
		return fmt.Errorf("tool %q: output schema is not valid JSON", t.Name)
	}
	return nil
}
