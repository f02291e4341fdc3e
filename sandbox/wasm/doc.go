// Package wasm runs WebAssembly tools in wazero, isolated and bounded: a
// tool is a WASI module that reads its JSON arguments on stdin and writes
// one JSON result to stdout.
//
// A module is compiled once ([Runtime.Compile]) and every call runs in a
// fresh instance of it, so nothing one call leaves in memory reaches the
// next. Each call has a memory limit (growing past it is refused and the
// call fails with memory_limit), a timeout that stops the module even in an
// endless loop, in code without loops (check points are added when the
// module is compiled, see checkpoints.go) or in a sleep, and caps on stdout
// and stderr. Modules get real
// clocks and the host's cryptographic random source, no environment
// variables, no arguments but the tool's name, and no file system unless a
// read-only directory is mounted for them.
//
// Tools declared pure may be pooled: a WASI reactor exporting
// [CallExport] keeps its instance between calls, which saves the set-up of
// an instance (milliseconds for a Go module); see docs/wasm.md. A module of
// the other kind than its options ask for is refused at compile
// ([ErrNotReactor], [ErrNotCommand]).
//
// Compiled machine code may be kept on disk between processes
// ([Config].CacheDir), and so may the module as the sandbox rewrites it
// before compiling ([Runtime.Prepare], keyed by the hash of the module's
// bytes, each entry checked against its own hash); the directory is
// bounded, least recently used entries first ([Config].CacheMaxBytes,
// [TrimCache]).
//
// The package is a leaf: it imports nothing of the engine.
package wasm
