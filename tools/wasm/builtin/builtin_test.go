package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/bindings/wasmtool"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/wasm/wasmbuild"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// regenerate is what a developer runs when a tool's sources changed.
const regenerate = "go generate ./tools/wasm/builtin"

// The embedded modules are built from the sources as they are now: each
// tool under tools/wasm is embedded, with the hash of its sources recorded
// beside it, and that hash is the sources' hash now. A change to a tool's
// Go files, its manifest, the guest package or a module it uses fails here
// until the modules are built again.
func TestSourcesUnchanged(t *testing.T) {
	ctx := context.Background()
	sources, err := wasmbuild.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("modules", wasmbuild.SumsFile))
	if err != nil {
		t.Fatal(err)
	}
	sums, err := wasmbuild.ReadSums(data)
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]wasmbuild.Sum{}
	for _, s := range sums {
		recorded[s.File] = s
	}
	for _, src := range sources {
		s, ok := recorded[src.File]
		delete(recorded, src.File)
		if !ok {
			t.Errorf("%s is not embedded: run %s and commit what it writes", src.Dir, regenerate)
			continue
		}
		hash, err := wasmbuild.SourceHash(ctx, src.Dir, src.Manifest)
		if err != nil {
			t.Fatal(err)
		}
		if hash != s.Sources {
			t.Errorf("modules/%s was built from other sources than %s has now (recorded %s, now %s): run %s and commit what it changes",
				src.File, src.Dir, s.Sources, hash, regenerate)
		}
		manifest, _ := os.ReadFile(src.Manifest)
		embedded, _ := os.ReadFile(filepath.Join("modules", filepath.Base(src.Manifest)))
		if !bytes.Equal(manifest, embedded) {
			t.Errorf("modules/%s differs from %s: run %s", filepath.Base(src.Manifest), src.Manifest, regenerate)
		}
	}
	for file := range recorded {
		t.Errorf("modules/%s is embedded but has no tool under tools/wasm: run %s", file, regenerate)
	}
}

// Every embedded module decompresses to the bytes its hash and size say,
// and is small: compressed, a Go tool is under a third of its module.
func TestModulesIntact(t *testing.T) {
	tools, err := Tools()
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 {
		t.Fatalf("%d tools, want graph.layout and text.cluster", len(tools))
	}
	for _, tool := range tools {
		bin, err := tool.Read()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(bin, []byte("\x00asm")) {
			t.Errorf("%s: not a WebAssembly module", tool.File)
		}
		gz, _ := os.ReadFile(filepath.Join("modules", tool.File))
		if len(gz)*3 > len(bin) {
			t.Errorf("%s: %d bytes compressed, %d uncompressed: not compressed much", tool.File, len(gz), len(bin))
		}
		tool.Hash[0] ^= 1
		if _, err := tool.Read(); err == nil || !strings.Contains(err.Error(), "does not match its recorded hash") {
			t.Errorf("%s with another hash: %v", tool.File, err)
		}
	}
}

// The built-in tools load without reading their modules, and work: the
// two examples' calls.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles two Go modules")
	}
	ctx := context.Background()
	l, err := wasmtool.NewLoader(ctx, wasmtool.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	tools, err := Load(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "graph.layout" || tools[1].Name != "text.cluster" || tools[0].Origin != Origin {
		t.Fatalf("tools: %+v", tools)
	}
	// The handlers directly: their first calls compile the modules, which
	// takes seconds cold (a minute under the race detector), past any
	// script's timeout.
	call := func(tool engine.Tool, args string, out any) {
		t.Helper()
		res, err := tool.Handler(ctx, []byte(args))
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		if err := json.Unmarshal(res, out); err != nil {
			t.Fatalf("%s: %s: %v", tool.Name, res, err)
		}
	}
	var out struct {
		G struct{ Nodes []struct{ Y float64 } }
		C struct{ Groups []struct{ IDs []string } }
	}
	call(tools[0], `{"nodes": [{"id": "a"}, {"id": "b"}], "edges": [{"from": "a", "to": "b"}]}`, &out.G)
	call(tools[1], `{"items": [{"id": "1", "text": "slow builds"}, {"id": "2", "text": "builds are slow"},
		{"id": "3", "text": "great team lunch"}, {"id": "4", "text": "team lunch was great"}]}`, &out.C)
	if len(out.G.Nodes) != 2 || out.G.Nodes[0].Y >= out.G.Nodes[1].Y || len(out.C.Groups) != 2 {
		t.Errorf("results: %+v", out)
	}
}
