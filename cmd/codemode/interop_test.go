package main

// Interoperability with MCP software no one here wrote, from npm (pinned by
// testdata/mcp-interop/package-lock.json; .ci/run installs it): the
// reference server-everything bound upstream.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
