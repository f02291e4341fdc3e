package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Upstream is a connection to one upstream MCP server whose tools are bound
// into the engine as NAME.TOOL. A server that dies is reconnected (a stdio
// server restarted) by the next call; calls in flight when it died fail with
// a tool_error naming the server. A reconnect that fails is not tried again
// for a while (1 s, doubling up to 30 s): calls meanwhile fail at once.
type Upstream struct {
	name  string
	cfg   engine.MCPServer
	dial  Dialer
	tools []engine.Tool
	slots chan struct{} // MaxConcurrency tokens
	tail  *stderrTail   // a stdio server's last words, for errors; nil for others
	log   *slog.Logger

	// toolsChanged is set when the server says its tool list changed: the
	// engine's tools stay as listed at connect (an engine is immutable), so
	// calls that the server no longer knows say why.
	toolsChanged atomic.Bool

	// lock guards session, proven, lostUnproven, closed and retry; a
	// channel so that a call waiting for another call's reconnect can give
	// up when its context ends.
	lock    chan struct{}
	session *sdk.ClientSession // nil when not connected
	proven  bool               // session has answered a tools/call (see proved)
	// lostUnproven: the last session was lost before it answered a call.
	lostUnproven bool
	closed       bool
	retry        backoff
	now          func() time.Time // the clock of retry; tests move it
	done         sync.WaitGroup   // watchers of sessions
}

// Connect starts (stdio) or reaches (HTTP) the server cfg describes, lists
// its tools and returns the connection. Its tools are in [Upstream.Tools].
// A cfg that does not check out ([engine.MCPServer.Check]) is a bad_request;
// a server that cannot be started or reached, or answers with nonsense,
// is a tool_error naming it.
func Connect(ctx context.Context, name string, cfg engine.MCPServer, opts Options) (*Upstream, error) {
	if err := cfg.Check(name); err != nil {
		return nil, err
	}
	var tail *stderrTail
	if cfg.Command != "" {
		tail = &stderrTail{}
	}
	return start(ctx, name, cfg, dialerFor(cfg, opts, tail), tail, opts.Logger)
}

// ConnectWith is Connect over the transports dial makes (an in-process
// server, a custom transport); cfg's Command and URL are not used, nor is
// opts.Stderr.
func ConnectWith(ctx context.Context, name string, cfg engine.MCPServer, dial Dialer, opts Options) (*Upstream, error) {
	return start(ctx, name, cfg, dial, nil, opts.Logger)
}

// start is Connect and ConnectWith: tail, when not nil, has the server's
// stderr.
func start(ctx context.Context, name string, cfg engine.MCPServer, dial Dialer, tail *stderrTail, log *slog.Logger) (*Upstream, error) {
	cfg = withDefaults(cfg)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	u := &Upstream{name: name, cfg: cfg, dial: dial, tail: tail, log: log,
		slots: make(chan struct{}, cfg.MaxConcurrency), lock: make(chan struct{}, 1), now: time.Now}
	// The server's own timeout bounds starting it: one that never answers
	// initialize must not hang the host.
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout.D())
	defer cancel()
	cs, err := u.connect(ctx)
	if err != nil {
		return nil, u.errorf("%v", err)
	}
	tools, err := u.listTools(ctx, cs)
	if err != nil {
		u.Close()
		return nil, err
	}
	u.tools = tools
	return u, nil
}

// Name is the server's name, its tools' namespace.
func (u *Upstream) Name() string { return u.name }

// Tools returns the server's tools as listed when it connected, named
// NAME.TOOL, ready for engine.Builder.Add.
func (u *Upstream) Tools() []engine.Tool { return u.tools }

// Close ends the session (a stdio server is stopped) and waits for it.
// Calls after Close fail.
func (u *Upstream) Close() error {
	u.lock <- struct{}{}
	u.closed = true
	cs := u.session
	u.session = nil
	<-u.lock
	var err error
	if cs != nil {
		err = cs.Close()
	}
	u.done.Wait()
	return err
}

// connect makes a new session and watches it: when it ends, the next call
// reconnects. Its error says why without naming the server.
func (u *Upstream) connect(ctx context.Context) (*sdk.ClientSession, error) {
	t, err := u.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot connect: %v", err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "codemode", Version: "1"},
		&sdk.ClientOptions{ToolListChangedHandler: u.toolListChanged})
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("cannot connect: no answer to MCP's initialize in time%s", u.tail.note())
		}
		return nil, fmt.Errorf("cannot connect: %v%s", err, u.tail.note())
	}
	u.session = cs
	u.done.Add(1)
	go func() {
		defer u.done.Done()
		err := cs.Wait()
		u.lock <- struct{}{}
		u.forget(cs, fmt.Sprintf("the connection ended (%v)", err))
		<-u.lock
	}()
	return cs, nil
}

// forget forgets cs if it is the live session, which was lost (why). A
// session lost before it answered a call, twice in a row, counts for the
// backoff as a failed start: a server that starts but crashes on its first
// call would otherwise be started by every call. The caller holds u.lock.
func (u *Upstream) forget(cs *sdk.ClientSession, why string) {
	if u.session != cs {
		return
	}
	u.session = nil
	switch {
	case u.proven:
		u.lostUnproven = false
	case !u.lostUnproven:
		u.lostUnproven = true // once: the next call reconnects at once
	default:
		u.retry.failed(u.now(), "connection lost before its first answer: "+why)
	}
}

// drop forgets a session whose connection failed, so that the next call
// reconnects, and closes it in the background (a stdio server gets a few
// seconds to exit; Close waits for that).
func (u *Upstream) drop(cs *sdk.ClientSession, why error) {
	u.lock <- struct{}{}
	u.forget(cs, why.Error())
	closed := u.closed
	if !closed {
		u.done.Add(1) // under the lock: never after Close began waiting
	}
	<-u.lock
	if closed {
		cs.Close()
		return
	}
	go func() {
		defer u.done.Done()
		cs.Close()
	}()
}

// current returns the live session, connecting first when there is none
// and the last failed connect is far enough behind.
func (u *Upstream) current(ctx context.Context) (*sdk.ClientSession, error) {
	select {
	case u.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, engine.AsError(ctx.Err(), engine.CodeCanceled)
	}
	defer func() { <-u.lock }()
	if u.closed {
		return nil, u.errorf("connection closed")
	}
	if u.session != nil {
		return u.session, nil
	}
	if left := u.retry.left(u.now()); left > 0 {
		return nil, u.errorf("down since a failed start (%s); it will be tried again in %v", u.retry.why, left)
	}
	cs, err := u.connect(ctx)
	if err != nil {
		if ctx.Err() != nil && context.Cause(ctx) != errUpstreamTimeout {
			return nil, u.errorf("%v", err) // the call ended, not the server
		}
		wait := u.retry.failed(u.now(), err.Error())
		return nil, u.errorf("%v; it will be tried again in %v", err, wait)
	}
	u.proven = false // the backoff is reset when it answers a call (proved)
	return cs, nil
}

// proved records that cs answered a call: a server that gets that far is
// up, and its restart backoff is forgotten.
func (u *Upstream) proved(cs *sdk.ClientSession) {
	u.lock <- struct{}{}
	if u.session == cs && !u.proven {
		u.proven, u.lostUnproven = true, false
		u.retry.succeeded()
	}
	<-u.lock
}

// listTools reads every page of the server's tool list.
func (u *Upstream) listTools(ctx context.Context, cs *sdk.ClientSession) ([]engine.Tool, error) {
	var tools []engine.Tool
	byName := map[string]string{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, u.errorf("cannot list tools: %v", err)
		}
		tool, err := u.bind(t)
		if err != nil {
			return nil, err
		}
		if other, dup := byName[tool.Name]; dup {
			return nil, u.errorf("tools %q and %q both become %q", other, t.Name, tool.Name)
		}
		byName[tool.Name] = t.Name
		tools = append(tools, tool)
	}
	return tools, nil
}

// errorf is a tool_error whose message names the server.
func (u *Upstream) errorf(format string, args ...any) *engine.Error {
	return engine.Errorf(engine.CodeToolError, "MCP server %q: %s", u.name, fmt.Sprintf(format, args...))
}

// call runs the upstream tool named remote with args.
func (u *Upstream) call(ctx context.Context, remote string, args json.RawMessage) (json.RawMessage, error) {
	select {
	case u.slots <- struct{}{}:
		defer func() { <-u.slots }()
	case <-ctx.Done():
		return nil, engine.AsError(ctx.Err(), engine.CodeCanceled)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, u.cfg.Timeout.D(), errUpstreamTimeout)
	defer cancel()
	cs, err := u.current(ctx)
	if err != nil {
		return nil, u.contextError(ctx, remote, err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: remote, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return nil, u.contextError(ctx, remote, err)
		}
		var answered *jsonrpc.Error
		if errors.As(err, &answered) { // the server answered with an error: it is alive
			u.proved(cs)
			return nil, u.errorf("%q: %v%s", remote, err, u.changedNote())
		}
		u.drop(cs, err)
		return nil, u.errorf("connection lost during %q (the next call reconnects): %v%s", remote, err, u.tail.note())
	}
	u.proved(cs)
	return resultJSON(res)
}

var errUpstreamTimeout = errors.New("upstream timeout")

// contextError explains a call that ended with its context: this server's
// own timeout, or the engine's deadline or cancelation, which the engine
// reports itself.
func (u *Upstream) contextError(ctx context.Context, remote string, err error) error {
	if context.Cause(ctx) == errUpstreamTimeout {
		return engine.Errorf(engine.CodeTimeout, "MCP server %q: %q did not answer within %v", u.name, remote, u.cfg.Timeout)
	}
	if ctx.Err() != nil {
		return engine.AsError(ctx.Err(), engine.CodeCanceled)
	}
	return err
}
