package wasmtool

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/codemode-dev/codemode/sandbox/wasm"
	"github.com/codemode-dev/codemode/tools/wasm/wasmbuild"
)

// goTool builds the Go tool in tools/wasm/DIR as a command or as a reactor
// (go's build cache makes repeated builds cheap) and returns its binary.
func goTool(tb testing.TB, dir string, reactor bool) []byte {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "tool.wasm")
	if err := wasmbuild.Module(context.Background(), dir, reactor, out); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

const layoutArgs = `{"nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}],
 "edges":[{"from":"a","to":"b"},{"from":"a","to":"c"},{"from":"b","to":"d"},{"from":"c","to":"d"},{"from":"d","to":"e"},{"from":"e","to":"f"},{"from":"f","to":"b"}]}`

// BenchmarkGoTool is the cost of one call of a Go tool (graph.layout on a
// 6-node graph with a cycle): a fresh instance per call (command build) and
// a pooled instance (reactor build), alone and from concurrent callers.
func BenchmarkGoTool(b *testing.B) {
	ctx := context.Background()
	rt, err := wasm.NewRuntime(ctx, wasm.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(ctx)
	for _, mode := range []struct {
		name   string
		pooled bool
	}{{"fresh", false}, {"pooled", true}} {
		m, err := rt.Compile(ctx, goTool(b, "graphlayout", mode.pooled), wasm.ModuleOptions{Name: "graph.layout", Pooled: mode.pooled})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("layout-"+mode.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Call(ctx, []byte(layoutArgs)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("layout-"+mode.name+"-parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := m.Call(ctx, []byte(layoutArgs)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
		m.Close(ctx)
	}
}

// BenchmarkCompile is the load time of a Go tool (≈ 3 MB of WebAssembly):
// cold, and from a compilation cache directory filled by an earlier process
// (a new Runtime per iteration stands for the new process): go-cached from
// the module's bytes (hashed to find its prepared form), go-known-hash from
// its hash alone, as a built-in tool's first call is (its bytes are never
// read).
func BenchmarkCompile(b *testing.B) {
	ctx := context.Background()
	binary := goTool(b, "graphlayout", true)
	cacheDir := b.TempDir()
	for _, bc := range []struct{ name, cache string }{{"go-cold", ""}, {"go-cached", cacheDir}} {
		if bc.cache != "" { // fill the cache first
			rt, _ := wasm.NewRuntime(ctx, wasm.Config{CacheDir: bc.cache})
			if _, err := rt.Compile(ctx, binary, wasm.ModuleOptions{Pooled: true}); err != nil {
				b.Fatal(err)
			}
			rt.Close(ctx)
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				rt, err := wasm.NewRuntime(ctx, wasm.Config{CacheDir: bc.cache})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := rt.Compile(ctx, binary, wasm.ModuleOptions{Pooled: true}); err != nil {
					b.Fatal(err)
				}
				rt.Close(ctx)
			}
		})
	}
	src := wasm.Source{Hash: sha256.Sum256(binary), Read: func() ([]byte, error) { return nil, errors.New("the module was read") }}
	b.Run("go-known-hash", func(b *testing.B) {
		for b.Loop() {
			rt, err := wasm.NewRuntime(ctx, wasm.Config{CacheDir: cacheDir})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := rt.CompileSource(ctx, src, wasm.ModuleOptions{Pooled: true}); err != nil {
				b.Fatal(err)
			}
			rt.Close(ctx)
		}
	})
}
