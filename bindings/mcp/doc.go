// Package mcp connects codemode and the Model Context Protocol.
//
// As a client, it binds the tools of upstream MCP servers into the engine:
// [Connect] starts a stdio server (command, args, env) or reaches a
// streamable HTTP one (url, headers), lists its tools and returns them as
// engine tools named SERVER.TOOL, with their input and output schemas and
// annotations (a read-only hint lets the default approval policy run the
// tool without asking). Calls go to the server with its own timeout and
// concurrency cap; a server that dies fails its calls in flight with a
// tool_error naming it, and the next call reconnects (restarts it). A
// restart that fails, or a server that dies before answering a call twice
// in a row, is not tried again for a while (1 s, doubling up to 30 s): the
// calls meanwhile fail at once, starting nothing. A server that
// changes its tools keeps those it listed at connect (an engine's tools are
// fixed); Options.Logger is told, and calls the server no longer knows say so.
//
//	up, err := mcp.Connect(ctx, "github", engine.MCPServer{Command: "github-mcp", Args: []string{"stdio"}}, mcp.Options{})
//	if err != nil { ... }
//	defer up.Close()
//	eng, err := engine.NewBuilder().Add(up.Tools()...).Build()
//
// The configuration format and the mapping of results are in docs/mcp.md.
package mcp
