package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// upstreamLayoutServer is an MCP server on stdio with one tool, "layout".
const upstreamLayoutServer = `
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    meth = m.get("method")
    if meth == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "g", "version": "1"}}
    elif meth == "tools/list":
        r = {"tools": [{"name": "layout", "description": "Our own layout.", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}]}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
`

// TestUpstreamNamedLikeABuiltin: a config whose MCP server "graph" has a
// tool "layout" worked before the built-in WASM tools, and still does: the
// upstream's graph.layout takes the built-in's place, as a --wasm-dir
// tool's does.
func TestUpstreamNamedLikeABuiltin(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "server.py")
	os.WriteFile(script, []byte(upstreamLayoutServer), 0o644)
	cfg := filepath.Join(dir, "cfg.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {"graph": {"command": `+quote(py)+`, "args": [`+quote(script)+`]}}}`), 0o644)
	if out, errs, code := cli(t, "", "tools", "--config", cfg, "--no-builtin-wasm"); code != exitOK || !strings.Contains(out, "graph.layout") {
		t.Fatalf("the upstream alone: exit %d, stderr %q\n%s", code, errs, out)
	}
	out, errs, code := cli(t, "", "tools", "--config", cfg)
	if code != exitOK || strings.Count(out, "graph.layout") != 1 || !strings.Contains(out, "text.cluster") {
		t.Errorf("with the built-in WASM tools: exit %d, stderr %q\n%s", code, errs, out)
	}
	out, errs, code = cli(t, "", "tools", "--json", "--config", cfg)
	if code != exitOK || !strings.Contains(out, "Our own layout.") {
		t.Errorf("tools --json: graph.layout is not the upstream's: exit %d, stderr %q\n%s", code, errs, out)
	}
}
