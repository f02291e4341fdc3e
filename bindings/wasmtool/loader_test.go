package wasmtool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
	"go.uber.org/goleak"
)

// TestMain checks for leaks; the binary is also the worker process of the
// tests that run tools in workers.
func TestMain(m *testing.M) {
	worker.Main()
	goleak.VerifyTestMain(m)
}

// fixtureDir is the committed WAT fixtures (rebuild: scripts/build-wasm-fixtures.sh).
var fixtureDir, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "wasm"))

// writeTool writes a manifest for a fixture into dir.
func writeTool(t testing.TB, dir, file, manifest string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixtureManifest is a manifest for fixture name under the tool name tool,
// with extra fields (",\"timeout\": \"100ms\""); the input schema is
// {"type": "object"} unless extra has one.
func fixtureManifest(tool, fixture, extra string) string {
	if !strings.Contains(extra, `"inputSchema"`) {
		extra = `, "inputSchema": {"type": "object"}` + extra
	}
	return `{"name": "` + tool + `", "description": "The ` + fixture + ` fixture.",
	  "module": "` + filepath.Join(fixtureDir, fixture+".wasm") + `"` + extra + `}`
}

func newLoader(t testing.TB) *Loader {
	t.Helper()
	l, err := NewLoader(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(context.Background()) })
	return l
}

func TestLoadDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tools [v2]*") // glob characters in the name
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTool(t, dir, "echo.tool.json", fixtureManifest("fx.echo", "echo", `, "annotations": {"readOnlyHint": true}`))
	writeTool(t, dir, "pooled.tool.json", fixtureManifest("fx.pooled", "reactor_echo", `, "pure": true`))
	writeTool(t, dir, "notes.json", `not a manifest: other JSON in the directory is left alone`)
	tools, err := newLoader(t).LoadDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "fx.echo" || tools[1].Name != "fx.pooled" {
		t.Fatalf("tools: %+v", tools)
	}
	if !tools[0].Annotations.ReadOnlyHint {
		t.Error("annotations were not carried over")
	}
	for _, tool := range tools {
		out, err := tool.Handler(context.Background(), []byte(`{"x":1}`))
		if err != nil || string(out) != `{"x":1}` {
			t.Errorf("%s: %s, %v", tool.Name, out, err)
		}
	}
}

// Every broken tool of a directory is reported at once, naming its file.
func TestLoadDirErrors(t *testing.T) {
	dir := t.TempDir()
	writeTool(t, dir, "a.tool.json", fixtureManifest("same", "echo", ""))
	writeTool(t, dir, "b.tool.json", fixtureManifest("same", "echo", ""))
	writeTool(t, dir, "c.tool.json", fixtureManifest("c", "echo", `, "pure": true`))
	writeTool(t, dir, "d.tool.json", `{"name": "d", "description": "x", "inputSchema": {"type": "object"}}`)
	writeTool(t, dir, "e.tool.json", fixtureManifest("e", "echo", `, "mounts": [{"host": "nope", "guest": "/data"}]`))
	_, err := newLoader(t).LoadDir(context.Background(), dir)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`b.tool.json: tool "same" is also defined by ` + filepath.Join(dir, "a.tool.json"),
		"c.tool.json: echo.wasm: module exports no codemode_call",
		"d.tool.json: module: open " + filepath.Join(dir, "d.wasm"),
		`e.tool.json: echo.wasm: mount "/data"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestLoadDirEmpty(t *testing.T) {
	l := newLoader(t)
	if _, err := l.LoadDir(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "no WASM tools") {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := l.LoadDir(context.Background(), "/does/not/exist"); err == nil {
		t.Error("missing dir: no error")
	}
}

// The sandbox's errors reach the engine with their codes.
func TestToolErrorsKeepTheirCodes(t *testing.T) {
	dir := t.TempDir()
	writeTool(t, dir, "loop.tool.json", fixtureManifest("loop", "loop", `, "timeout": "50ms"`))
	writeTool(t, dir, "hog.tool.json", fixtureManifest("hog", "memhog", `, "memory": "4MiB"`))
	writeTool(t, dir, "bad.tool.json", fixtureManifest("bad", "badexit", ""))
	writeTool(t, dir, "big.tool.json", fixtureManifest("big", "bigout", `, "maxOutput": "64KiB"`))
	tools, err := newLoader(t).LoadDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]engine.Code{"loop": engine.CodeTimeout, "hog": engine.CodeMemoryLimit, "bad": engine.CodeToolError, "big": engine.CodeOutputLimit}
	for _, tool := range tools {
		_, err := tool.Handler(context.Background(), []byte(`{}`))
		if e := engine.AsError(err, ""); e == nil || e.Code != want[tool.Name] {
			t.Errorf("%s: %v, want %s", tool.Name, err, want[tool.Name])
		}
	}
}
