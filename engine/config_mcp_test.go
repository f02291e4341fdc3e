package engine_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

func TestConfigReadsMCPServers(t *testing.T) {
	cfg, err := engine.ParseConfig([]byte(`{"mcpServers": {
		"github": {"command": "github-mcp", "args": ["stdio"], "env": {"TOKEN": "t"}, "timeout": "10s", "maxConcurrency": 2},
		"docs": {"url": "https://docs.example/mcp", "headers": {"Authorization": "Bearer x"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]engine.MCPServer{
		"github": {Command: "github-mcp", Args: []string{"stdio"}, Env: map[string]string{"TOKEN": "t"},
			Timeout: engine.Duration(10 * time.Second), MaxConcurrency: 2},
		"docs": {URL: "https://docs.example/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
	}
	if diff := cmp.Diff(want, cfg.MCPServers); diff != "" {
		t.Errorf("mcpServers (-want +got):\n%s", diff)
	}
}

func TestConfigReportsEveryMCPServerProblemWithTheRest(t *testing.T) {
	_, err := engine.ParseConfig([]byte(`{"limits": {"maxOperations": 0}, "mcpServers": {
		"a": {"comand": "x"},
		"b": {"command": "x", "url": "http://y"},
		"c": {"url": "ftp://y", "timeout": 0, "maxConcurrency": -1},
		"d": {"command": "x", "headers": {"k": "v"}},
		"e": {"url": "http://y", "args": ["1"]},
		"f-g": {"command": "x"},
		"h": {"command": "x", "args": "one"}}}`))
	want := "config: " + strings.Join([]string{
		`mcpServers.a.comand: unknown field (did you mean "command"?)`,
		`mcpServers.c.timeout: must be positive, not 0 (leave it out for the default)`,
		`mcpServers.h.args: want an array, got the string "one"`,
		`limits.maxOperations: must be positive, not 0 (leave it out for the default)`,
		`mcpServers.a: want "command" (a server on stdio) or "url" (streamable HTTP)`,
		`mcpServers.b: has both "command" and "url"; choose one`,
		`mcpServers.c.url: want an absolute http or https URL, got "ftp://y"`,
		`mcpServers.c.maxConcurrency: must be positive, not -1 (leave it out for the default)`,
		`mcpServers.d.headers: only for a "url" server`,
		`mcpServers.e: "args" and "env" are only for a "command" server`,
		`mcpServers["f-g"]: the server's name is its tools' namespace: want an identifier ([A-Za-z_][A-Za-z0-9_]*)`,
	}, "; ")
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeBadRequest {
		t.Fatalf("got %v, want a bad_request", err)
	}
	if e.Message != want {
		t.Errorf("message\n%s\nwant\n%s", e.Message, want)
	}
	if err := (engine.MCPServer{Command: "x"}).Check("ok"); err != nil {
		t.Errorf("Check of a good server: %v", err)
	}
	if err := (engine.MCPServer{}).Check("x.y"); err == nil || !strings.Contains(err.Error(), `mcpServers["x.y"]`) {
		t.Errorf("Check of a bad server: %v", err)
	}
}
