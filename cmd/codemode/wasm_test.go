package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fixtureTools writes manifests for committed WAT fixtures into a fresh
// directory, as a user's --wasm-dir.
func fixtureTools(t *testing.T, manifests map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	fixtures, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "wasm"))
	for file, m := range manifests {
		m = strings.ReplaceAll(m, "FIXTURES", fixtures)
		if err := os.WriteFile(filepath.Join(dir, file), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var echoTool = map[string]string{"echo.tool.json": `{"name": "fx.echo", "description": "Echo its arguments. Used by tests.",
  "module": "FIXTURES/echo.wasm", "annotations": {"readOnlyHint": true},
  "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}`,
	"loop.tool.json": `{"name": "fx.loop", "description": "Never returns.", "module": "FIXTURES/loop.wasm",
  "inputSchema": {"type": "object"}, "timeout": "100ms"}`}

func TestToolsListsWasmTools(t *testing.T) {
	dir := fixtureTools(t, echoTool)
	cache := t.TempDir()
	out, errs, code := cli(t, "", "tools", "--wasm-dir", dir, "--wasm-cache", cache)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "fx.echo") || !strings.Contains(out, "read-only") || !strings.Contains(out, "createFrame") {
		t.Errorf("tools output lacks the WASM tool beside the whiteboard:\n%s", out)
	}
	// Listing compiles nothing: a module is compiled at its first call.
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("tools filled --wasm-cache: %v", entries)
	}
	if _, errs, code := cli(t, `return await tools.fx.echo({ text: "x" })`, "run", "-", "--wasm-dir", dir, "--wasm-cache", cache, "--runner", "inprocess"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if entries, _ := os.ReadDir(cache); len(entries) == 0 {
		t.Error("--wasm-cache stayed empty after a call")
	}
	out, _, _ = cli(t, "", "tools", "--ts", "--wasm-dir", dir, "--wasm-cache", "off")
	if !strings.Contains(out, "fx: {") || !strings.Contains(out, "text: string") {
		t.Errorf("declarations lack the WASM tool:\n%s", out)
	}
}

func TestBatchAndRunWithWasmTools(t *testing.T) {
	dir := fixtureTools(t, echoTool)
	out, errs, code := cli(t, `{"operations": [{"tool": "fx.echo", "args": {"text": "hi"}}, {"tool": "fx.loop", "args": {}}]}`,
		"batch", "--wasm-dir", dir, "--wasm-cache", "off")
	if code != exitFailed {
		t.Fatalf("exit %d, want 1 (the loop times out): %s", code, errs)
	}
	res := decode(t, out)
	var echoed struct{ Text string }
	json.Unmarshal(res.Results[0].Result, &echoed)
	if !res.Results[0].Success || echoed.Text != "hi" || res.Results[1].Error.Code != "timeout" {
		t.Errorf("results: %s", out)
	}

	out, errs, code = cli(t, `const r = await tools.fx.echo({ text: "from a script" }); return r.text;`,
		"run", "-", "--wasm-dir", dir, "--wasm-cache", "off")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, errs, out)
	}
	var res2 struct{ Result json.RawMessage }
	json.Unmarshal([]byte(out), &res2)
	if string(res2.Result) != `"from a script"` {
		t.Errorf("result %s", res2.Result)
	}
}

func TestWasmDirErrors(t *testing.T) {
	bad := fixtureTools(t, map[string]string{"x.tool.json": `{"name": "x", "description": "d", "inputSchema": {"type": "object"}}`})
	for _, tc := range []struct {
		dir, want string
	}{
		{bad, "x.tool.json: module: open"},
		{t.TempDir(), "no WASM tools"},
		{"/does/not/exist", "--wasm-dir /does/not/exist: no such directory"},
	} {
		_, errs, code := cli(t, "", "tools", "--wasm-dir", tc.dir, "--wasm-cache", "off")
		if code != exitUsage || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("--wasm-dir %s: exit %d, stderr %q; want 2 and one line with %q", tc.dir, code, errs, tc.want)
		}
	}
}

// An unusable default cache directory does not stop a command: it compiles
// without one. A cache directory given with --wasm-cache must work.
func TestWasmCacheFallback(t *testing.T) {
	dir := fixtureTools(t, echoTool)
	t.Setenv("XDG_CACHE_HOME", "/proc/no-such-dir")
	t.Setenv("HOME", "/proc/no-such-dir")
	if _, errs, code := cli(t, "", "tools", "--wasm-dir", dir); code != 0 {
		t.Errorf("default cache unusable: exit %d, %s", code, errs)
	}
	if _, errs, code := cli(t, "", "tools", "--wasm-dir", dir, "--wasm-cache", "/proc/no-such-dir"); code != exitUsage || !strings.Contains(errs, "compilation cache") {
		t.Errorf("--wasm-cache unusable: exit %d, %s", code, errs)
	}
}

// cliBinary builds the codemode command once per test binary, for tests
// that need a process of its own: one that must exit, or run as another
// user. TestMain removes it.
var cliBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "codemode-cli-")
	if err != nil {
		return "", err
	}
	cliBinaryDir.Store(&dir)
	bin := filepath.Join(dir, "codemode")
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// cliBinaryDir is the directory cliBinary made, if it ran.
var cliBinaryDir atomic.Pointer[string]

var runawayTools = map[string]string{
	"rec.tool.json": `{"name": "fx.rec", "description": "Exponential recursion, no loop.", "module": "FIXTURES/recursion.wasm",
  "inputSchema": {"type": "object"}, "timeout": "300ms"}`,
	"pooled.tool.json": `{"name": "fx.pooled", "description": "The same in a pooled reactor.", "module": "FIXTURES/reactor_recursion.wasm",
  "inputSchema": {"type": "object"}, "timeout": "300ms", "pure": true}`}

// A script calling a WASM tool that runs away without a loop (fresh or
// pooled) ends with the tool's timeout, and the codemode process exits:
// nothing keeps running past its deadline, and its GC is not frozen.
func TestCLIExitsAfterLoopFreeTools(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the codemode command")
	}
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := fixtureTools(t, runawayTools)
	for _, tool := range []string{"rec", "pooled"} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "run", "-", "--wasm-dir", dir, "--wasm-cache", "off", "--timeout", "30s")
		cmd.Stdin = strings.NewReader(`return await tools.fx.` + tool + `({});`)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		if ctx.Err() != nil {
			t.Fatalf("fx.%s: codemode did not exit within 60 s (killed): %s", tool, stderr.String())
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != exitFailed {
			t.Fatalf("fx.%s: got %v, want exit status %d: %s", tool, err, exitFailed, stderr.String())
		}
		var res struct {
			Error struct{ Code string }
			Calls []struct {
				Error     struct{ Code string }
				ElapsedMs float64 `json:"elapsed_ms"`
			}
		}
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("fx.%s: output %q: %v", tool, stdout.String(), err)
		}
		if res.Error.Code != "timeout" || len(res.Calls) != 1 || res.Calls[0].Error.Code != "timeout" {
			t.Errorf("fx.%s: want the run and its call to fail with timeout:\n%s", tool, stdout.String())
		} else if res.Calls[0].ElapsedMs > 5000 {
			// Generous: what is tested is that loop-free code stops at all;
			// under -race on a busy 2-core machine 300 ms took 1.3 s.
			t.Errorf("fx.%s: the call took %v ms, its timeout is 300 ms", tool, res.Calls[0].ElapsedMs)
		}
		t.Logf("fx.%s: the process ran %v", tool, took)
	}
}
