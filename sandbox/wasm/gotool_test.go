package wasm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/tools/wasm/wasmbuild"
)

// goModules caches the graph.layout Go tool's builds per test binary.
var goModules sync.Map // bool (reactor) → []byte

// goModule builds the graph.layout Go tool (tools/wasm/graphlayout) as a
// command or as a reactor: a real Go module, with tens of thousands of data
// segments and a runtime that needs megabytes of memory.
func goModule(t testing.TB, reactor bool) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a Go WASM module")
	}
	if b, ok := goModules.Load(reactor); ok {
		return b.([]byte)
	}
	out := filepath.Join(t.TempDir(), "layout.wasm")
	if err := wasmbuild.Module(context.Background(), "graphlayout", reactor, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	goModules.Store(reactor, b)
	return b
}

// bigGraph is a layout input that needs tens of megabytes.
func bigGraph() []byte {
	var b strings.Builder
	b.WriteString(`{"nodes":[`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"n%d%s"}`, i, strings.Repeat("x", 200))
	}
	b.WriteString(`],"edges":[`)
	for i := range 5000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"from":"n%d%s","to":"n%d%s"}`, (i*7)%1000, strings.Repeat("x", 200), (i*13+1)%1000, strings.Repeat("x", 200))
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// A Go tool that runs out of memory fails with memory_limit, and the next
// call of the same tool works: in both modes, the instance that ran out is
// gone.
func TestGoToolOutOfMemory(t *testing.T) {
	r := newRuntime(t)
	small := []byte(`{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b"}]}`)
	for _, reactor := range []bool{false, true} {
		m, err := r.Compile(context.Background(), goModule(t, reactor), ModuleOptions{
			Name: "graph.layout", Pooled: reactor, Limits: Limits{MemoryBytes: 5 << 20},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(context.Background())
		if _, cerr := m.Call(context.Background(), small); cerr != nil {
			t.Fatalf("pooled=%v: a small graph: %v", reactor, cerr)
		}
		_, cerr := m.Call(context.Background(), bigGraph())
		if cerr == nil || cerr.Code != CodeMemoryLimit || !strings.Contains(cerr.Message, "limit of 5 MiB") {
			t.Fatalf("pooled=%v: a big graph in 5 MiB: %v, want memory_limit", reactor, cerr)
		}
		if !strings.Contains(cerr.Message, "fatal error: out of memory") || strings.Contains(cerr.Message, "goroutine") {
			t.Errorf("pooled=%v: %q: want the runtime's reason without its goroutine dump", reactor, cerr.Message)
		}
		out, cerr := m.Call(context.Background(), small)
		if cerr != nil || !strings.Contains(string(out), `"reversedEdges":0`) {
			t.Fatalf("pooled=%v: after running out of memory: %s, %v", reactor, out, cerr)
		}
	}
}
