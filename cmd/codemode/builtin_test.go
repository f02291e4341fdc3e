package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

// A batch runs no script, so it starts no worker process until it calls a
// WASM tool: the built-in ones are there without a pool, and the first call
// of one starts it (its calls run in a worker, as --runner worker says).
func TestBatchStartsWorkersAtItsFirstWasmCall(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles graph.layout")
	}
	cache := t.TempDir()
	o := options{wasmCache: cache, config: slowCompiles(t)}
	s, err := openSession(&o, "batch")
	defer s.close()
	if err != nil {
		t.Fatal(err)
	}
	started := func() bool {
		s.lazyPool.Lock()
		defer s.lazyPool.Unlock()
		return s.lazyPool.pool != nil
	}
	batch := func(op engine.Operation) engine.OperationResult {
		t.Helper()
		res, err := s.eng.Batch(context.Background(), engine.BatchRequest{Operations: []engine.Operation{op}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Results[0]
	}
	if s.pool != nil || started() {
		t.Fatal("a pool was started before any call")
	}
	if r := batch(engine.Operation{Tool: "createStickyNote", Args: json.RawMessage(`{"text": "hi", "x": 0, "y": 0}`)}); !r.Success || started() {
		t.Fatalf("a whiteboard call: %+v, pool started %v", r, started())
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("the cache was written before a WASM call: %v", entries)
	}
	r := batch(engine.Operation{Tool: "graph.layout", Args: json.RawMessage(`{"nodes": [{"id": "a"}, {"id": "b"}], "edges": [{"from": "a", "to": "b"}]}`)})
	if !r.Success || !started() {
		t.Fatalf("graph.layout: %+v, pool started %v", r, started())
	}
	prepared, _ := filepath.Glob(filepath.Join(cache, "codemode-prepared-*", "*"))
	if len(prepared) != 1 {
		t.Errorf("prepared modules in the cache: %v, want graph.layout's", prepared)
	}
}
