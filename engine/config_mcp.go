package engine

import (
	"maps"
	"slices"
	"strings"

	"github.com/codemode-dev/codemode/engine/internal/defs"
	"github.com/codemode-dev/codemode/internal/strictjson"
)

// MCPServer is one entry of a config file's "mcpServers": an upstream MCP
// server whose tools the host binds into the engine (package bindings/mcp
// does, and the CLI with it). It has the shape MCP hosts use: Command, Args
// and Env start a server on stdio; URL and Headers reach one over streamable
// HTTP. The engine only reads and checks it, so that a config file's
// problems are reported all at once; it never talks MCP.
type MCPServer struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Timeout bounds one call to this server's tools (the engine's per-call
	// timeout still applies: the shorter one wins).
	Timeout Duration `json:"timeout,omitempty"`
	// MaxConcurrency bounds this server's calls in flight.
	MaxConcurrency int `json:"maxConcurrency,omitempty"`
}

// Check reports everything wrong with s as the server called name, in one
// bad_request *Error, or nil: what a config file's entry is checked for, for
// servers configured in Go.
func (s MCPServer) Check(name string) error {
	var p strictjson.Problems
	s.problems(&p, name, strictjson.Member("mcpServers", name))
	if err := problemsError("", &p); err != nil {
		return err
	}
	return nil // not a nil *Error in a non-nil error
}

// mcpProblems adds the problems of every "mcpServers" entry to p.
func (c *Config) mcpProblems(p *strictjson.Problems) {
	for _, name := range slices.Sorted(maps.Keys(c.MCPServers)) {
		s := c.MCPServers[name]
		s.problems(p, name, strictjson.Member("mcpServers", name))
	}
}

func (s *MCPServer) problems(p *strictjson.Problems, name, at string) {
	if !defs.ValidName(name) || strings.Contains(name, ".") {
		p.Addf(at, "the server's name is its tools' namespace: want an identifier ([A-Za-z_][A-Za-z0-9_]*)")
	}
	switch {
	case s.Command == "" && s.URL == "":
		p.Addf(at, `want "command" (a server on stdio) or "url" (streamable HTTP)`)
	case s.Command != "" && s.URL != "":
		p.Addf(at, `has both "command" and "url"; choose one`)
	case s.Command != "" && len(s.Headers) > 0:
		p.Addf(strictjson.Member(at, "headers"), `only for a "url" server`)
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0):
		p.Addf(at, `"args" and "env" are only for a "command" server`)
	}
	if s.URL != "" {
		httpURL(p, strictjson.Member(at, "url"), s.URL)
	}
	positive(p, strictjson.Member(at, "timeout"), s.Timeout)
	positive(p, strictjson.Member(at, "maxConcurrency"), s.MaxConcurrency)
}
