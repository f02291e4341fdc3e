package mcp

import (
	"io"
	"log/slog"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// Options are a host's choices about its upstream servers that are not part
// of their configuration.
type Options struct {
	// Stderr receives a stdio server's standard error (discarded when nil).
	Stderr io.Writer
	// Logger receives what the host should know about its servers while
	// they run, such as a server's changed tool list (discarded when nil).
	Logger *slog.Logger
}

// The defaults of engine.MCPServer's optional fields.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultMaxConcurrency = 4
)

func withDefaults(c engine.MCPServer) engine.MCPServer {
	if c.Timeout == 0 {
		c.Timeout = engine.Duration(DefaultTimeout)
	}
	if c.MaxConcurrency == 0 {
		c.MaxConcurrency = DefaultMaxConcurrency
	}
	return c
}
