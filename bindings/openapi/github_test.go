package openapi_test

import (
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/bindings/openapi"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/githubspec"
)

// githubTools binds GitHub's REST API description once per test binary.
var githubTools = sync.OnceValues(func() ([]engine.Tool, error) {
	p, err := githubspec.Path()
	if err != nil {
		return nil, err
	}
	spec, err := openapi.Load(p)
	if err != nil {
		return nil, err
	}
	return openapi.Tools("github", spec, openapi.Options{BaseURL: "http://127.0.0.1:1"})
})

// TestGitHubCatalog binds the 1,223 operations of GitHub's REST API: every
// one a tool with a unique name a provider takes, a description, a schema
// the engine compiles, and the few a task needs shaped as a model expects.
func TestGitHubCatalog(t *testing.T) {
	githubspec.ForTest(t)
	tools, err := githubTools()
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1223 {
		t.Errorf("%d tools, want one per operation: 1,223", len(tools))
	}
	eng, err := engine.NewBuilder().Add(tools...).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.ToolDefinitions().OpenAI(); err != nil {
		t.Errorf("OpenAI's format: %v", err)
	}
	if _, err := eng.ToolDefinitions().Anthropic(); err != nil {
		t.Errorf("Anthropic's format: %v", err)
	}
	readOnly := 0
	for _, tl := range tools {
		if tl.Description == "" {
			t.Errorf("%s has no description", tl.Name)
		}
		if tl.Annotations.ReadOnlyHint {
			readOnly++
		}
	}
	if readOnly != 639 {
		t.Errorf("%d read-only tools, want the 639 GET operations", readOnly)
	}
	for name, want := range map[string][]string{
		"github.issues_list_for_repo": {`"owner"`, `"repo"`, `"state"`, `"labels"`, `"per_page"`, `"page"`, `"required":["owner","repo"]`},
		"github.issues_create":        {`"title"`, `"body"`, `"labels"`, `"required":["owner","repo","title"]`},
		"github.issues_add_labels":    {`"issue_number"`, `"body"`},
		"github.issues_create_label":  {`"name"`, `"color"`, `"description"`},
	} {
		tl, ok := eng.Tool(name)
		if !ok {
			t.Errorf("no tool %s", name)
			continue
		}
		for _, w := range want {
			if !strings.Contains(string(tl.InputSchema), w) {
				t.Errorf("%s's input schema lacks %s:\n%.600s", name, w, tl.InputSchema)
			}
		}
	}
}

// BenchmarkLoadGitHub is what binding GitHub's REST API costs a host:
// reading the 13 MB description, making its 1,223 tools, and building an
// engine over them (the bound we hold it to: under a second and 200 MB). It
// reports the heap in use once the engine is built.
func BenchmarkLoadGitHub(b *testing.B) {
	p := githubspec.ForTest(b)
	if _, err := os.Stat(p); err != nil {
		b.Skip(err)
	}
	var heap uint64
	for b.Loop() {
		spec, err := openapi.Load(p)
		if err != nil {
			b.Fatal(err)
		}
		tools, err := openapi.Tools("github", spec, openapi.Options{})
		if err != nil {
			b.Fatal(err)
		}
		eng, err := engine.NewBuilder().Add(tools...).Build()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapAlloc)
		runtime.KeepAlive(eng)
		b.StartTimer()
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
}
