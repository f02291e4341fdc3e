package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/codemode-dev/codemode/engine"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// localName is the engine's name for an upstream tool: NAME.TOOL, with the
// characters a name segment cannot hold replaced by "_".
func localName(server, remote string) string {
	return server + "." + engine.NameSegment(remote)
}

// bind turns an upstream tool into an engine tool that calls it.
func (u *Upstream) bind(t *sdk.Tool) (engine.Tool, error) {
	in, err := inputSchema(t.InputSchema)
	if err != nil {
		return engine.Tool{}, u.errorf("tool %q: %v", t.Name, err)
	}
	tool := engine.Tool{
		Name:        localName(u.name, t.Name),
		Description: t.Description,
		InputSchema: in,
		Origin:      fmt.Sprintf("MCP server %q", u.name),
	}
	if t.OutputSchema != nil {
		if tool.OutputSchema, err = json.Marshal(t.OutputSchema); err != nil {
			return engine.Tool{}, u.errorf("tool %q: output schema: %v", t.Name, err)
		}
	}
	if a := t.Annotations; a != nil {
		tool.Annotations = engine.Annotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint,
			DestructiveHint: a.DestructiveHint, IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
	}
	if t.Title != "" {
		tool.Annotations.Title = t.Title
	}
	remote := t.Name
	tool.Handler = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		return u.call(ctx, remote, args)
	}
	return tool, nil
}

// inputSchema is an upstream input schema as the engine wants it: an object
// schema. A missing schema or a missing root type means "an object".
func inputSchema(schema any) (json.RawMessage, error) {
	root := map[string]any{}
	if schema != nil {
		b, err := json.Marshal(schema)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &root); err != nil {
			return nil, errors.New("input schema is not a JSON object")
		}
	}
	switch root["type"] {
	case nil:
		root["type"] = "object"
	case "object":
	default:
		return nil, errors.New(`input schema root must have "type": "object"`)
	}
	return json.Marshal(root)
}

// resultJSON maps a tool call's result to the engine's JSON result: the
// structured content when there is one, else the text content (parsed when
// it is a JSON object or array, else a JSON string), else the content list
// itself (images, resources) as MCP shaped it. An isError result is a
// tool_error carrying the server's text.
func resultJSON(res *sdk.CallToolResult) (json.RawMessage, error) {
	text, onlyText := textOf(res.Content)
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return nil, engine.Errorf(engine.CodeToolError, "%s", text)
	}
	switch {
	case res.StructuredContent != nil:
		return json.Marshal(res.StructuredContent)
	case len(res.Content) == 0:
		return nil, nil
	case onlyText:
		if t := strings.TrimSpace(text); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
			return json.RawMessage(t), nil
		}
		return json.Marshal(text)
	}
	return json.Marshal(map[string]any{"content": res.Content})
}

// textOf joins the text parts of content, and reports whether there were
// only text parts.
func textOf(content []sdk.Content) (string, bool) {
	var parts []string
	only := true
	for _, c := range content {
		if t, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, t.Text)
		} else {
			only = false
		}
	}
	return strings.Join(parts, "\n"), only
}

// toolListChanged handles the server's notifications/tools/list_changed.
// The engine's tools were fixed when it was built, so the new list cannot
// be bound: the host is told once, and calls the server refuses say why.
func (u *Upstream) toolListChanged(context.Context, *sdk.ToolListChangedRequest) {
	if u.toolsChanged.CompareAndSwap(false, true) {
		u.log.Warn("MCP server changed its tools; restart to pick them up (its tools here stay as listed at start)", "server", u.name)
	}
}

// changedNote explains an error answer from a server whose tools changed
// since they were listed, such as "unknown tool" for one it removed.
func (u *Upstream) changedNote() string {
	if !u.toolsChanged.Load() {
		return ""
	}
	return "; the server changed its tools since they were listed: restart to pick up the change"
}
