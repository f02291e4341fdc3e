package server

import (
	"net/http"

	"github.com/codemode-dev/codemode/engine"
)

// toolFormats are the ?format= values of GET /v1/tools.
var toolFormats = "json, ts, openai, anthropic, mcp, index"

// handleTools lists the engine's tools: as JSON (the registered tools), as
// TypeScript declarations (what a script sees), as the definitions a
// model API takes, meta-tools (batch, execute_code) included, or as an
// index of names and namespaces (a catalog's thousand tools without their
// schemas).
func (s *Server) handleTools(w http.ResponseWriter, r *http.Request, _ string) *httpError {
	q := r.URL.Query()
	format := q.Get("format")
	for k := range q {
		if k != "format" {
			return badRequest("unknown query parameter %s; GET /v1/tools takes format (%s)", quoteID(k), toolFormats)
		}
	}
	defs := s.eng.ToolDefinitions()
	var v any
	switch format {
	case "", "json":
		v = struct {
			Tools any `json:"tools"`
		}{s.eng.Tools()}
	case "index":
		v = toolIndex(s.eng)
	case "ts":
		writeBody(w, http.StatusOK, "text/plain; charset=utf-8", []byte(s.eng.Declarations()))
		return nil
	case "mcp":
		// An MCP tools/list result, as `codemode tools --json` prints it.
		v = struct {
			Tools []engine.MCPTool `json:"tools"`
		}{defs.MCP()}
	case "openai":
		list, err := defs.OpenAI()
		if err != nil {
			return internal(err) // names too long for OpenAI: the server's tool set, not the client's doing
		}
		v = list
	case "anthropic":
		list, err := defs.Anthropic()
		if err != nil {
			return internal(err)
		}
		v = list
	default:
		return badRequest("unknown format %s; known: %s", quoteID(format), toolFormats)
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// ToolIndex is GET /v1/tools?format=index: the tools' names, and their
// namespaces with how many tools each holds, in name order. It is what a
// client shows of a catalog without fetching every schema (GitHub's REST
// API, bound from its OpenAPI description, is 4 MB of definitions and 40 KB
// of names).
type ToolIndex struct {
	Namespaces []Namespace `json:"namespaces"`
	Tools      []string    `json:"tools"`
}

// Namespace is the tools named NAME.… and how many there are.
type Namespace = engine.Namespace

func toolIndex(eng *engine.Engine) ToolIndex {
	idx := ToolIndex{Namespaces: eng.Namespaces(), Tools: []string{}}
	for _, t := range eng.Tools() {
		idx.Tools = append(idx.Tools, t.Name)
	}
	return idx
}
