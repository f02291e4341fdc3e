package mcp

import (
	"fmt"
	"io"
	"net/url"
	"regexp"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// ServerConfig is one upstream MCP server, in the shape MCP hosts use for
// their "mcpServers" entries: Command (with Args and Env) starts a server
// on stdio, URL (with Headers) reaches one over streamable HTTP. Timeout
// and MaxConcurrency are codemode's own additions.
type ServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`

	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// Timeout bounds one tool call to this server (DefaultTimeout when zero).
	// The engine's own per-call timeout still applies: the shorter one wins.
	Timeout engine.Duration `json:"timeout,omitempty"`
	// MaxConcurrency bounds the calls in flight to this server
	// (DefaultMaxConcurrency when zero); further calls wait their turn.
	MaxConcurrency int `json:"maxConcurrency,omitempty"`

	// Stderr receives a stdio server's standard error (discarded when nil).
	// Not part of the JSON form: the host chooses where logs go.
	Stderr io.Writer `json:"-"`
}

// The defaults of ServerConfig's optional fields.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultMaxConcurrency = 4
)

// serverNamePattern is one tool-name segment: the server's name becomes its
// tools' namespace.
var serverNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Problems lists everything wrong with the configuration of the server
// called name, each problem prefixed with where it is ("mcpServers.NAME.url"),
// so that a config file's problems can be reported all at once.
func (c *ServerConfig) Problems(name string) []string {
	var out []string
	at := "mcpServers." + name
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if !serverNamePattern.MatchString(name) {
		bad("%s: server name %q must be an identifier ([A-Za-z_][A-Za-z0-9_]*): it is its tools' namespace", at, name)
	}
	switch {
	case c.Command == "" && c.URL == "":
		bad(`%s: needs "command" (stdio) or "url" (streamable HTTP)`, at)
	case c.Command != "" && c.URL != "":
		bad(`%s: has both "command" and "url"; choose one`, at)
	case c.Command != "" && len(c.Headers) > 0:
		bad(`%s.headers: only for a "url" server`, at)
	case c.URL != "" && (len(c.Args) > 0 || len(c.Env) > 0):
		bad(`%s: "args" and "env" are only for a "command" server`, at)
	}
	if c.URL != "" {
		if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("%s.url: %q is not an http(s) URL", at, c.URL)
		}
	}
	if c.Timeout < 0 {
		bad("%s.timeout: must be positive", at)
	}
	if c.MaxConcurrency < 0 {
		bad("%s.maxConcurrency: must be positive", at)
	}
	return out
}

func (c ServerConfig) withDefaults() ServerConfig {
	if c.Timeout == 0 {
		c.Timeout = engine.Duration(DefaultTimeout)
	}
	if c.MaxConcurrency == 0 {
		c.MaxConcurrency = DefaultMaxConcurrency
	}
	return c
}
