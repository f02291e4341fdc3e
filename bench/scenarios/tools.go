package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/codemode-dev/codemode/bindings/wasmtool"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/wasm/wasmbuild"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// Tools returns every tool the scenarios use, for the engine of a
// benchmark: the whiteboard's (each call works on the board in its context)
// and the graph.layout WASM tool, which graph-layout needs. The WASM tool is
// built from tools/wasm with the go command — so it needs go on PATH and the
// codemode source (this module, or one that requires it); go's build cache
// makes every build after a machine's first quick — and compiled to machine
// code kept in cacheDir ("" keeps none), which saves about a second per
// process. The tool runs in this process until release is called.
func Tools(ctx context.Context, cacheDir string) (tools []engine.Tool, release func(), err error) {
	built, err := os.MkdirTemp("", "codemode-bench-wasm-")
	if err != nil {
		return nil, nil, err
	}
	// The loader reads a module at its tool's first call: the build stays
	// until release.
	if _, err := wasmbuild.Build(ctx, built); err != nil {
		os.RemoveAll(built)
		return nil, nil, fmt.Errorf("scenarios: building the WASM tools: %w", err)
	}
	loader, err := wasmtool.NewLoader(ctx, wasmtool.Options{CacheDir: cacheDir})
	if err != nil {
		os.RemoveAll(built)
		return nil, nil, fmt.Errorf("scenarios: %w", err)
	}
	release = func() {
		loader.Close(context.Background())
		os.RemoveAll(built)
	}
	layout, err := loader.Load(ctx, filepath.Join(built, "layout.tool.json"))
	if err == nil {
		err = loader.Preload(ctx) // compiled now: no run a benchmark times pays for it
	}
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("scenarios: %w", err)
	}
	return append(whiteboard.Tools(nil), layout), release, nil
}
