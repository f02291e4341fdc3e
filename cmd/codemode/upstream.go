package main

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"

	"github.com/codemode-dev/codemode/bindings/mcp"
	"github.com/codemode-dev/codemode/engine"
)

// connectUpstreams connects the config's mcpServers, all at once, and
// returns their tools, in the servers' name order, and one error per server
// that could not be connected. The session closes the connections. What
// the servers do while they run that the user should know (a changed tool
// list) is logged on stderr: an MCP host's log, under "codemode mcp".
func (s *session) connectUpstreams(ctx context.Context) ([]engine.Tool, []error) {
	opts := mcp.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	names := slices.Sorted(maps.Keys(s.cfg.MCPServers))
	ups := make([]*mcp.Upstream, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			ups[i], errs[i] = mcp.Connect(ctx, name, s.cfg.MCPServers[name], opts)
		})
	}
	wg.Wait()
	var tools []engine.Tool
	var failed []error
	for i, up := range ups {
		if errs[i] != nil {
			failed = append(failed, errors.New(engine.AsError(errs[i], engine.CodeToolError).Message))
			continue
		}
		s.upstreams = append(s.upstreams, up)
		tools = append(tools, up.Tools()...)
	}
	return tools, failed
}
