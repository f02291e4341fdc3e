package server

import (
	"net/http"

	"github.com/codemode-dev/codemode/engine"
)

// toolFormats are the ?format= values of GET /v1/tools.
var toolFormats = "json, ts, openai, anthropic, mcp"

// handleTools lists the engine's tools: as JSON (the registered tools), as
// TypeScript declarations (what a script sees), or as the definitions a
// model API takes, meta-tools (batch, execute_code) included.
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
