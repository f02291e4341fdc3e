package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/bindings/wasmtool"
	"github.com/codemode-dev/codemode/engine"
)

// withWASMTools loads the WASM tools of dir, builds an engine with them and
// hands it to use. README.md quotes its body; TestWASMTools runs it.
func withWASMTools(ctx context.Context, dir, cacheDir string, use func(*engine.Engine) error) error {
	loader, err := wasmtool.NewLoader(ctx, wasmtool.Options{CacheDir: cacheDir}) // the cache makes restarts fast
	if err != nil {
		return err
	}
	defer loader.Close(ctx)                // after the engine's last call: its WASM tools fail from then on
	tools, err := loader.LoadDir(ctx, dir) // every *.tool.json of dir; one manifest: loader.Load(ctx, path)
	if err != nil {
		return err
	}
	eng, err := engine.NewBuilder().Add(tools...).Build()
	if err != nil {
		return err
	}
	return use(eng)
}

// echoTool writes the echo fixture (a WASI command that copies stdin to
// stdout) and a manifest for it into dir.
func echoTool(t *testing.T, dir, manifest string) {
	t.Helper()
	wasm, err := os.ReadFile("../../testdata/wasm/echo.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "echo.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "echo.tool.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWASMTools(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	echoTool(t, dir, `{"name": "fx.echo", "description": "Echo the arguments.", "inputSchema": {"type": "object"}}`)
	var got json.RawMessage
	err := withWASMTools(ctx, dir, t.TempDir(), func(eng *engine.Engine) error {
		var err error
		got, err = eng.Call(ctx, "fx.echo", json.RawMessage(`{"n":1}`))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"n":1}` {
		t.Errorf("fx.echo returned %s, want {\"n\":1}", got)
	}

	// A broken manifest: the loader's error comes back, and use never runs.
	bad := t.TempDir()
	echoTool(t, bad, `{"name": "fx.echo", "description": "Echo.", "inputSchema": {"type": "object"}, "timout": "1s"}`)
	err = withWASMTools(ctx, bad, t.TempDir(), func(*engine.Engine) error {
		t.Error("use was called with a broken manifest")
		return nil
	})
	if !errors.Is(err, engine.ErrBadRequest) || !strings.Contains(err.Error(), "timout") {
		t.Errorf("a misspelt manifest field: got %v, want a bad_request naming it", err)
	}
}
