package mcp

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/codemode-dev/codemode/engine"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Dialer makes a fresh transport to an upstream server. Connect calls it
// once at start and again each time the server has to be reconnected.
type Dialer func(ctx context.Context) (sdk.Transport, error)

// inheritedEnv are the variables a stdio server inherits from codemode, as
// MCP hosts do: enough to find and run a program, and no secrets. Anything
// else must be given in the server's "env".
var inheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "USER", "LANG"}

// dialerFor returns the Dialer that cfg describes.
// A stdio server's stderr goes to opts.Stderr and tail.
func dialerFor(cfg engine.MCPServer, opts Options, tail *stderrTail) Dialer {
	if cfg.URL != "" {
		return func(context.Context) (sdk.Transport, error) {
			client := &http.Client{Transport: headerTransport{headers: cfg.Headers, next: http.DefaultTransport}}
			return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxRetries: -1}, nil
		}
	}
	return func(context.Context) (sdk.Transport, error) {
		// Not CommandContext: the process outlives the context of the call
		// that started it, until the session is closed.
		cmd := exec.Command(cfg.Command, cfg.Args...)
		for _, k := range inheritedEnv {
			if v, ok := os.LookupEnv(k); ok {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		for k, v := range cfg.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		if cmd.Env == nil {
			cmd.Env = []string{} // nil would mean "inherit everything"
		}
		tail.reset()
		cmd.Stderr = tail
		if opts.Stderr != nil {
			cmd.Stderr = io.MultiWriter(opts.Stderr, tail)
		}
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: stdioExitGrace}, nil
	}
}

// stdioExitGrace is how long closing a stdio server waits, after closing
// its stdin, for it to exit before it is sent SIGTERM. Servers that exit on
// end of input do so at once; some (the reference server-everything among
// them) never do, and the SDK's default of 5 s would add that to every
// one-shot command that used them.
const stdioExitGrace = 500 * time.Millisecond

// headerTransport adds a server's configured headers to every request.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.next.RoundTrip(req)
}
