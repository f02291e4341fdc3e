package wasmbuild

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the WASM tools")
	}
	out := t.TempDir()
	written, err := Build(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	// Every manifest written has its module beside it; the two shipped
	// tools are among them, each an exact copy of its source.
	sources := map[string]string{
		"layout.tool.json":  "../graphlayout/layout.tool.json",
		"cluster.tool.json": "../textcluster/cluster.tool.json",
	}
	for _, path := range written {
		if filepath.Dir(path) != out {
			t.Errorf("%s: not in %s", path, out)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Module string }
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		wasm, err := os.ReadFile(filepath.Join(out, m.Module))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(wasm, []byte("\x00asm\x01\x00\x00\x00")) {
			t.Errorf("%s: no wasm magic and version: % x", m.Module, wasm[:min(8, len(wasm))])
		}
		if src, ok := sources[filepath.Base(path)]; ok {
			delete(sources, filepath.Base(path))
			if orig, _ := os.ReadFile(src); !bytes.Equal(orig, data) {
				t.Errorf("%s: the copy differs from %s", path, src)
			}
		}
	}
	for name := range sources {
		t.Errorf("%s not written (wrote %v)", name, written)
	}
}

// tree writes files (path → content) under a temporary directory.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestFind(t *testing.T) {
	root := tree(t, map[string]string{
		"b/main.go":         "package main",
		"b/b.tool.json":     `{"module":"b.wasm","pure":true}`,
		"a/main.go":         "package main",
		"a/a.tool.json":     `{"module":"a.wasm","pure":false,"name":"x"}`,
		"lib/lib.go":        "package lib",         // no manifest: not a tool
		"build/a.tool.json": `{"module":"a.wasm"}`, // no Go files: a build output
		"out/main.go":       "package main",        // the output directory
		"out/o.tool.json":   `{"module":"o.wasm","pure":true}`,
		"_x/main.go":        "package main",
		"_x/x.tool.json":    `{"module":"x.wasm","pure":true}`,
	})
	tools, err := find(root, filepath.Join(root, "out"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range tools {
		got = append(got, filepath.Base(tl.dir)+":"+tl.Module)
	}
	if diff := cmp.Diff([]string{"a:a.wasm", "b:b.wasm"}, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestFindErrors(t *testing.T) {
	tests := map[string]struct {
		files map[string]string
		want  string
	}{
		"two manifests": {map[string]string{"a/main.go": "", "a/x.tool.json": "{}", "a/y.tool.json": "{}"}, "2 manifests, want one"},
		"bad JSON":      {map[string]string{"a/main.go": "", "a/a.tool.json": "{"}, "unexpected end of JSON input"},
		"module path":   {map[string]string{"a/main.go": "", "a/a.tool.json": `{"module":"../a.wasm","pure":true}`}, `module "../a.wasm" is not a file name ending in .wasm`},
		"module suffix": {map[string]string{"a/main.go": "", "a/a.tool.json": `{"module":"a","pure":true}`}, `module "a" is not a file name`},
		"no pure":       {map[string]string{"a/main.go": "", "a/a.tool.json": `{"module":"a.wasm"}`}, `no "pure"`},
		"same module": {map[string]string{
			"a/main.go": "", "a/a.tool.json": `{"module":"x.wasm","pure":true}`,
			"b/main.go": "", "b/b.tool.json": `{"module":"x.wasm","pure":true}`,
		}, "both write x.wasm"},
		"same manifest name": {map[string]string{
			"a/main.go": "", "a/t.tool.json": `{"module":"a.wasm","pure":true}`,
			"b/main.go": "", "b/t.tool.json": `{"module":"b.wasm","pure":true}`,
		}, "both write t.tool.json"},
	}
	for name, tt := range tests {
		root := tree(t, tt.files)
		_, err := find(root, filepath.Join(root, "out"))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, tt.want)
		}
	}
}

func TestBuildError(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	root := tree(t, map[string]string{
		"go.mod":            "module example.com/broken\n\ngo 1.26\n",
		"bad/main.go":       "package main\n\nfunc main() { undefined() }\n",
		"bad/bad.tool.json": `{"module":"bad.wasm","pure":false}`,
	})
	_, err := build(context.Background(), root, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "undefined: undefined") {
		t.Errorf("got %v, want the compiler's message", err)
	}
}
