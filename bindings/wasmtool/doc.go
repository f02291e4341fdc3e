// Package wasmtool loads WebAssembly tools: a module (NAME.wasm) and its
// manifest (NAME.tool.json) become an [engine.Tool] that runs in the
// sandbox of package sandbox/wasm, with the manifest's memory limit,
// timeout, output cap and read-only mounts. From then on the tool is like
// any other: validated, approved, timed and observed by the engine, callable
// from batches and scripts.
//
//	loader, err := wasmtool.NewLoader(ctx, wasmtool.Options{CacheDir: cacheDir})
//	if err != nil { ... }
//	defer loader.Close(ctx)
//	tools, err := loader.LoadDir(ctx, "tools/wasm/build")
//	eng, err := engine.NewBuilder().Add(tools...).Build()
//
// Loading reads manifests only: a module is read, checked, rewritten and
// compiled at its tool's first call, once, so a tool that is never called
// costs nothing. Loading fails with one *engine.Error (bad_request) naming
// every broken manifest by its path (and a missing module, or mount), and a
// loaded tool's Origin is its manifest's path; a module that does not
// compile fails its tool's calls with tool_error. A manifest's "pure" must
// match its module: a command (exports _start) for a tool run in a fresh
// instance per call, a reactor (exports _initialize and codemode_call) for a
// pure, pooled one. LoadEmbedded loads a tool whose manifest and module are
// inside the program (tools/wasm/builtin's). The cache of Options.CacheDir
// (compiled code, and the prepared modules of wasm.Runtime.Prepare) is
// bounded (Options.CacheMaxBytes, 256 MiB by default).
//
// The manifest format and the module's contract (JSON on stdin, one JSON
// value on stdout, exit status) are in docs/wasm.md.
package wasmtool
