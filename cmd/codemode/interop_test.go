package main

// Interoperability with MCP software no one here wrote, from npm (pinned by
// testdata/mcp-interop/package-lock.json; .ci/run installs it): the
// reference server-everything bound upstream.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// interopDir is testdata/mcp-interop with its npm packages installed. The
// tests skip without them (and without node), unless
// CODEMODE_INTEROP_TESTS=1 (.ci/run) makes that a failure.
func interopDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../testdata/mcp-interop")
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything"))
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		if os.Getenv("CODEMODE_INTEROP_TESTS") == "1" {
			t.Fatalf("the MCP interoperability tests need node and `npm ci --prefix %s` (%v, %v)", dir, statErr, nodeErr)
		}
		t.Skip("needs node and the npm packages of testdata/mcp-interop (npm ci --prefix testdata/mcp-interop)")
	}
	return dir
}

// everythingConfig writes a config file binding server-everything over
// stdio as "everything".
func everythingConfig(t *testing.T) string {
	dir := interopDir(t)
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	path := filepath.Join(t.TempDir(), "cfg.json")
	cfg := `{"mcpServers": {"everything": {"command": "node", "args": [` + quote(entry) + `, "stdio"]}}}`
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestInteropEverythingUpstream: the reference MCP server's tools are listed
// under its name, and called from a script (chained) and from a batch.
func TestInteropEverythingUpstream(t *testing.T) {
	cfg := everythingConfig(t)
	out, errs, code := cli(t, "", "tools", "--config", cfg)
	if code != exitOK || errs != "" {
		t.Fatalf("tools: exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"everything.echo ", "everything.get_sum "} {
		if !strings.Contains(out, want) {
			t.Errorf("tools does not list %q:\n%s", want, out)
		}
	}
	res := runScript(t, `
		const sum = await tools.everything.get_sum({a: 2, b: 3});
		const echo = await tools.everything.echo({message: sum});
		return {sum, echo};`, exitOK, "--config", cfg, "-")
	var got struct{ Sum, Echo string }
	if err := json.Unmarshal(res.Result, &got); err != nil {
		t.Fatalf("%v: %s", err, res.Result)
	}
	want := struct{ Sum, Echo string }{"The sum of 2 and 3 is 5.", "Echo: The sum of 2 and 3 is 5."}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("script (-want +got):\n%s", d)
	}
	batch := `{"executionMode": "sequential", "operations": [
	  {"tool": "everything.get_sum", "args": {"a": 40, "b": 2}, "label": "sum"},
	  {"tool": "everything.echo", "args": {"message": {"$ref": "sum"}}},
	  {"tool": "everything.get_sum", "args": {"a": "two"}}]}`
	out, errs, code = cli(t, batch, "batch", "--config", cfg, "-")
	if code != exitFailed || errs != "" {
		t.Fatalf("batch: exit %d (want 1: one operation's arguments are wrong), stderr %q\n%s", code, errs, out)
	}
	r := decode(t, out)
	if len(r.Results) != 3 || !r.Results[1].Success || string(r.Results[1].Result) != `"Echo: The sum of 40 and 2 is 42."` {
		t.Errorf("batch results:\n%s", out)
	}
	if e := r.Results[2].Error; r.Results[2].Success || e == nil || e.Code != "invalid_args" {
		t.Errorf("a call with wrong arguments: %+v", r.Results[2])
	}
}

// interopCalls are the calls the TypeScript SDK's client makes of codemode
// mcp: a batch chaining two calls, a script, a batch with a misspelt tool,
// and a call with wrong arguments of a tool that has an output schema.
const interopCalls = `[
  {"name": "batch", "arguments": {"operations": [
    {"tool": "createStickyNote", "args": {"text": "hi", "x": 0, "y": 0}, "label": "a"},
    {"tool": "updateText", "args": {"objectId": {"$ref": "a.id"}, "text": "hello"}}]}},
  {"name": "execute_code", "arguments": {"code": "const n = await tools.createStickyNote({text: 'x', x: 0, y: 300}); return n.id"}},
  {"name": "batch", "arguments": {"operations": [{"tool": "createStickyNot", "args": {}}]}},
  {"name": "createStickyNote", "arguments": {"text": 5}}
]`

// interopOutcome is what client.mjs prints.
type interopOutcome struct {
	Server string
	Tools  []string
	Calls  []struct {
		IsError       bool
		Structured    json.RawMessage
		Text          string
		ProtocolError string
	}
}

// checkInterop checks what the TypeScript SDK's client saw of codemode mcp.
func checkInterop(t *testing.T, out []byte) {
	t.Helper()
	var got interopOutcome
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client.mjs printed %v:\n%s", err, out)
	}
	if got.Server != "codemode" || !slices.Contains(got.Tools, "batch") || !slices.Contains(got.Tools, "execute_code") || !slices.Contains(got.Tools, "search_tools") {
		t.Errorf("server %q, tools %v", got.Server, got.Tools)
	}
	if len(got.Calls) != 4 {
		t.Fatalf("calls: %+v", got.Calls)
	}
	for i, c := range got.Calls {
		if c.ProtocolError != "" {
			t.Errorf("call %d: the client threw: %s", i, c.ProtocolError)
		}
	}
	if c := got.Calls[0]; c.IsError || !strings.Contains(c.Text, `"successful":2`) {
		t.Errorf("batch: %+v", c)
	}
	if c := got.Calls[1]; c.IsError || string(c.Structured) != `{"success":true,"result":"sticky-2"}` {
		t.Errorf("execute_code: %+v", c)
	}
	if c := got.Calls[2]; !c.IsError || !strings.Contains(c.Text, `"code":"unknown_tool"`) || !strings.Contains(c.Text, `"suggestions":["createStickyNote"]`) {
		t.Errorf("a batch with a misspelt tool: %+v", c)
	}
	if c := got.Calls[3]; !c.IsError || !strings.Contains(c.Text, `"code":"invalid_args"`) {
		t.Errorf("wrong arguments: %+v", c)
	}
}

// TestInteropTypeScriptClient: the official TypeScript SDK's client drives
// codemode mcp over stdio and over streamable HTTP.
func TestInteropTypeScriptClient(t *testing.T) {
	dir := interopDir(t)
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	client := func(t *testing.T, args ...string) []byte {
		cmd := exec.Command("node", append([]string{"client.mjs"}, args...)...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(interopCalls)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() }) // bounds a client that hangs
		defer timer.Stop()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node client.mjs %v: %v\n%s", args, err, stderr.String())
		}
		return out
	}
	t.Run("stdio", func(t *testing.T) {
		checkInterop(t, client(t, "stdio", bin, "mcp"))
	})
	t.Run("http", func(t *testing.T) {
		cmd := exec.Command(bin, "mcp", "--http", "127.0.0.1:0")
		stderr := &lockedBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		checkInterop(t, client(t, "http", waitMCPURL(t, stderr)))
	})
}
