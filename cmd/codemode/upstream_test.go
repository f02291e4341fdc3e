package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// upstreamConfig builds bindings/mcp's test MCP server and writes a config
// file binding it as "up", plus the extra mcpServers entries given (JSON
// members), and returns the file's path.
func upstreamConfig(t *testing.T, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "upstream")
	if out, err := exec.Command("go", "build", "-o", bin, "../../bindings/mcp/testdata/upstream").CombinedOutput(); err != nil {
		t.Fatalf("building the test upstream: %v\n%s", err, out)
	}
	servers := append([]string{`"up": {"command": ` + quote(bin) + `}`}, extra...)
	path := filepath.Join(dir, "cfg.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {`+strings.Join(servers, ", ")+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestToolsListsUpstreamMCPTools(t *testing.T) {
	out, errs, code := cli(t, "", "tools", "--config", upstreamConfig(t))
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"up.echo ", "up.pid ", "up.hang "} {
		if !strings.Contains(out, want) {
			t.Errorf("tools does not list %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^up\.echo\s+read-only\s+MCP server "up"\s+Echoes text\.$`).MatchString(out) {
		t.Errorf("up.echo's readOnlyHint or description is not shown:\n%s", out)
	}
}

func TestRunChainsUpstreamToolsAndSurvivesTheServerDying(t *testing.T) {
	cfg := upstreamConfig(t)
	res := runScript(t, `
		const a = await tools.up.echo({text: "one"});
		let lost = "";
		try { await tools.up.die({}); } catch (e) { lost = e.code + ": " + e.message; }
		const b = await tools.up.echo({text: a + " two"});
		return {b, lost: lost.slice(0, lost.indexOf("(") - 1)};`, exitOK, "--config", cfg, "-")
	var got struct{ B, Lost string }
	if err := json.Unmarshal(res.Result, &got); err != nil {
		t.Fatal(err)
	}
	want := struct{ B, Lost string }{"one two", `tool_error: MCP server "up": connection lost during "die"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	out, errs, code := cli(t, `{"operations": [{"tool": "up.echo", "args": {"text": "batched"}}]}`, "batch", "--config", cfg, "-")
	if code != exitOK || errs != "" || !strings.Contains(out, `"result": "batched"`) {
		t.Errorf("batch: exit %d, stderr %q\n%s", code, errs, out)
	}
}

func TestHostileUpstreamThatCannotStartIsReportedWithTheOtherProblems(t *testing.T) {
	cfg := upstreamConfig(t, `"gone": {"command": "/nonexistent/mcp-server"}`)
	_, errs, code := cli(t, "return 1", "run", "--config", cfg, "--wasm-dir", "/nonexistent/wasm", "-")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	for _, want := range []string{`MCP server "gone": cannot connect`, "--wasm-dir /nonexistent/wasm"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errs)
		}
	}
}
