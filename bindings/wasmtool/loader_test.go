package wasmtool

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"go.uber.org/goleak"
)

// TestMain checks for leaks; the binary is also the worker process of the
// tests that run tools in workers.
func TestMain(m *testing.M) {
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

// Every broken manifest of a directory is reported at once, naming its
// file: what a manifest says wrong, a missing module, a missing mount. A
// module that is there but broken (here a command declared pure) is found
// at its tool's first call, which fails naming the manifest and the module.
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
	e, ok := err.(*engine.Error)
	if !ok || e.Code != engine.CodeBadRequest {
		t.Fatalf("got %T %v, want an *engine.Error with code bad_request", err, err)
	}
	if strings.Contains(e.Message, "\n") {
		t.Errorf("the message is more than one line:\n%s", e.Message)
	}
	// One problem per broken manifest, in order, each starting with its path.
	lines := strings.Split(e.Message, "; "+dir)
	for i := 1; i < len(lines); i++ {
		lines[i] = dir + lines[i]
	}
	want := []string{
		filepath.Join(dir, "b.tool.json") + `: tool "same" is also defined by ` + filepath.Join(dir, "a.tool.json"),
		filepath.Join(dir, "d.tool.json") + ": module: open " + filepath.Join(dir, "d.wasm"),
		filepath.Join(dir, "e.tool.json") + `: mount "/data": stat ` + filepath.Join(dir, "nope"),
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want one per broken manifest:\n%s", len(lines), e.Message)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to start with %q", i, lines[i], w)
		}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Error("the error does not unwrap to the missing module's")
	}
	tool, err := newLoader(t).Load(context.Background(), filepath.Join(dir, "c.tool.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tool.Handler(context.Background(), []byte(`{}`))
	want1 := `tool "c" cannot be loaded: ` + filepath.Join(dir, "c.tool.json") + ": echo.wasm: module is a WASI command (it exports _start)"
	if e := engine.AsError(err, ""); e == nil || e.Code != engine.CodeToolError || !strings.HasPrefix(e.Message, want1) {
		t.Errorf("first call of c: %v, want tool_error starting %q", err, want1)
	}
}

// Loading errors are *engine.Error (bad_request) naming the manifest as
// given, and a loaded tool's Origin is that path: the engine's builder names
// it when the tool's name is taken.
func TestLoadOriginAndErrors(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Rel(wd, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTool(t, dir, "echo.tool.json", fixtureManifest("fx.echo", "echo", ""))
	l := newLoader(t)
	tools, err := l.LoadDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "echo.tool.json"); len(tools) != 1 || tools[0].Origin != want {
		t.Errorf("LoadDir: %+v, want Origin %q", tools, want)
	}
	path := filepath.Join(dir, "echo.tool.json")
	tool, err := l.Load(context.Background(), path)
	if err != nil || tool.Origin != path {
		t.Errorf("Load: Origin %q, %v; want %q", tool.Origin, err, path)
	}

	writeTool(t, dir, "bad.tool.json", `{"name": "bad", "inputSchema": {"type": "object"}}`)
	_, err = l.Load(context.Background(), filepath.Join(dir, "bad.tool.json"))
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || !strings.HasPrefix(e.Message, filepath.Join(dir, "bad.tool.json")+": ") ||
		strings.Contains(e.Message, "\n") {
		t.Errorf("Load of a broken manifest: %#v, want a bad_request naming the file, on one line", err)
	}
	for name, do := range map[string]func() error{
		"missing dir": func() error { _, err := l.LoadDir(context.Background(), filepath.Join(dir, "nope")); return err },
		"empty dir":   func() error { _, err := l.LoadDir(context.Background(), t.TempDir()); return err },
		"missing manifest": func() error {
			_, err := l.Load(context.Background(), filepath.Join(dir, "nope.tool.json"))
			return err
		},
		"cache is a file": func() error {
			_, err := NewLoader(context.Background(), Options{CacheDir: path})
			return err
		},
	} {
		err := do()
		if e, ok := err.(*engine.Error); !ok || e.Code != engine.CodeBadRequest {
			t.Errorf("%s: %T %v, want an *engine.Error with code bad_request", name, err, err)
		}
	}
}

// A manifest's "pure" must match its module's kind, or the tool's calls
// fail with both ways out (the module is compiled at the first call, so
// that is when it is found): a command (it exports _start; here one that,
// like Go's command build, crashes when its export is called without
// _start) cannot be pooled, and a reactor cannot run a fresh instance per
// call.
func TestPureMatchesModuleKind(t *testing.T) {
	dir := t.TempDir()
	call := func(manifest string) error {
		tool, err := newLoader(t).Load(context.Background(), filepath.Join(dir, manifest))
		if err != nil {
			t.Fatalf("%s: %v (the module is not compiled yet: only the manifest can fail)", manifest, err)
		}
		_, err = tool.Handler(context.Background(), []byte(`{}`))
		return err
	}
	writeTool(t, dir, "cmd.tool.json", fixtureManifest("fx.cmd", "command_call", `, "pure": true`))
	err := call("cmd.tool.json")
	if err == nil || !strings.Contains(err.Error(), "cmd.tool.json: command_call.wasm: module is a WASI command (it exports _start)") ||
		!strings.Contains(err.Error(), "-buildmode=c-shared") || !strings.Contains(err.Error(), `or set "pure": false to run it as a command`) {
		t.Errorf("a command declared pure: %v", err)
	}
	writeTool(t, dir, "cmd.tool.json", fixtureManifest("fx.cmd", "command_call", `, "pure": false`))
	if err := call("cmd.tool.json"); err != nil {
		t.Errorf("the same command not pure: %v", err)
	}
	writeTool(t, dir, "re.tool.json", fixtureManifest("fx.re", "reactor_echo", ""))
	err = call("re.tool.json")
	if err == nil || !strings.Contains(err.Error(), "re.tool.json: reactor_echo.wasm: module is a WASI reactor") ||
		!strings.Contains(err.Error(), "without -buildmode=c-shared") || !strings.Contains(err.Error(), `set "pure": true to run it pooled`) {
		t.Errorf("a reactor not declared pure: %v", err)
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
