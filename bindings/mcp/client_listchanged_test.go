package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

func TestUpstreamThatChangesItsToolsIsLoggedAndACallOfAGoneToolSaysWhy(t *testing.T) {
	logged := &signalWriter{want: "changed its tools", seen: make(chan struct{})}
	seen := logged.seen
	_, eng := stdioUpstream(t, engine.MCPServer{}, Options{Logger: slog.New(slog.NewTextHandler(logged, nil))})
	ctx := context.Background()
	if _, err := eng.Call(ctx, "up.echo", json.RawMessage(`{"text":"before"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Call(ctx, "up.retire_echo", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("the server's tools/list_changed was not logged")
	}
	_, err := eng.Call(ctx, "up.echo", json.RawMessage(`{"text":"after"}`))
	wantToolError(t, err, engine.CodeToolError, `unknown tool "echo"`)
	wantToolError(t, err, engine.CodeToolError, "the server changed its tools since they were listed: restart to pick up the change")

	logged.mu.Lock()
	log := logged.buf.String()
	logged.mu.Unlock()
	if !strings.Contains(log, "server=up") || !strings.Contains(log, "restart to pick them up") {
		t.Errorf("log %q: want the server named and the way to pick up its tools", log)
	}
}
