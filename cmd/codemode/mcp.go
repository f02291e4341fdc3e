package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpbind "github.com/codemode-dev/codemode/bindings/mcp"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// mcpSessionTimeout closes an HTTP client's MCP session after this long
// without a request, so that clients that vanish do not pile up sessions.
const mcpSessionTimeout = 30 * time.Minute

// cmdMCP is "codemode mcp": an MCP server on stdio, or on streamable HTTP
// with --http, until the client goes away (stdio), SIGINT or SIGTERM.
func cmdMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	return serveMCP(sigs, func() { signal.Stop(sigs) }, args, stdin, stdout, stderr)
}

// serveMCP sets up the engine and serves MCP until the stdio client closes
// its end (the calls under way are answered first) or a signal comes on
// sigs: the calls under way are then canceled, and stop is called (it
// restores the default handling of signals, so a second one ends the
// process however it is).
func serveMCP(sigs <-chan os.Signal, stop func(), args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var o options
	err := parseFlagsOnly("mcp", &o, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, commandHelp(findCommand("mcp")))
		return exitOK
	}
	if err == nil && o.httpAddr != "" {
		err = checkMCPAddr(o.httpAddr)
	}
	if err != nil {
		return usageError(stderr, "mcp", err)
	}
	var ln net.Listener
	var earlier []error
	if o.httpAddr != "" {
		ln, err = listen(o.httpAddr)
		earlier = append(earlier, err)
	}
	s, err := openSession(&o, "serve", earlier...) // a pool of warm workers: a long-lived server runs many scripts
	defer s.close()
	if err == nil {
		s.eng, err = mcpEngine(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var srv *sdk.Server
	if err == nil {
		srv, err = mcpbind.NewServer(s.eng, mcpbind.ServerOptions{Expose: string(o.expose), Version: moduleVersion(), Done: ctx.Done()})
	}
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return fail(stderr, exitUsage, "mcp: %v", err)
	}

	go func() {
		select {
		case <-sigs:
			stop()
			cancel()
		case <-ctx.Done():
		}
	}()
	if ln == nil {
		err = srv.Run(ctx, mcpbind.StdioTransport(stdin, stdout))
		if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
			return fail(stderr, exitFailed, "mcp: %v", err)
		}
		return exitOK
	}
	return serveMCPHTTP(ctx, srv, ln, stderr)
}

// serveMCPHTTP serves streamable HTTP on ln until ctx ends.
func serveMCPHTTP(ctx context.Context, srv *sdk.Server, ln net.Listener, stderr io.Writer) int {
	// Warnings only: the SDK logs every session at Info.
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{SessionTimeout: mcpSessionTimeout, Logger: logger})
	hs := &http.Server{
		// The SDK refuses a loopback request whose Host is not loopback (DNS
		// rebinding); this refuses a browser page of another origin.
		Handler:           http.NewCrossOriginProtection().Handler(h),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(stderr, "codemode: MCP over streamable HTTP at http://%s/\n", ln.Addr())
	code := exitOK
	select {
	case err := <-served:
		code = fail(stderr, exitFailed, "mcp: %v", err)
	case <-ctx.Done():
	}
	// Calls under way were canceled with ctx; their answers have a moment
	// to go out. Open event streams never end by themselves: then close.
	shut, cancel := context.WithTimeout(context.Background(), canceledGrace)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		hs.Close()
	}
	return code
}

// checkMCPAddr accepts a loopback HOST:PORT only: the MCP endpoint has no
// token, and whoever reaches it runs scripts.
func checkMCPAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return fmt.Errorf("--http %s: want HOST:PORT, as in 127.0.0.1:8090 (port 0 picks a free one)", addr)
	}
	if !isLoopback(host) {
		return fmt.Errorf("--http %s: not a loopback address; the MCP endpoint has no token, so it listens only on this machine (127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}

// mcpEngine builds the engine the MCP server runs: the session's tools on
// one whiteboard kept in memory while the server runs, with progress
// notifications, and approvals asked of the MCP client's user for the
// calls --approve gates. A gated call whose client cannot be asked is
// denied, the message saying how to run such calls: whoever gated a call
// did not mean it to run unseen.
func mcpEngine(s *session) (*engine.Engine, error) {
	tools := append(whiteboard.Tools(s.board), s.tools()...)
	return s.build(engine.NewBuilder().WithConfig(s.cfg).
		WithObserver(mcpbind.ProgressObserver()).
		WithApprover(mcpbind.Approver(mcpbind.DenyUnasked(unaskedAdvice))).
		WithApprovalPolicy(s.o.approve.policy()), tools)
}

// unaskedAdvice ends the denial of a gated call whose client cannot be asked.
const unaskedAdvice = "start codemode mcp with --approve none to run such calls without asking"

// moduleVersion is the version MCP clients are told: the module's.
func moduleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// exposeFlag is --expose: which tools the MCP server lists.
type exposeFlag string

func (e *exposeFlag) String() string { return string(*e) }
func (e *exposeFlag) Set(v string) error {
	switch v {
	case mcpbind.ExposeAll, mcpbind.ExposeCode:
		*e = exposeFlag(v)
		return nil
	}
	return fmt.Errorf("want %q or %q", mcpbind.ExposeAll, mcpbind.ExposeCode)
}
