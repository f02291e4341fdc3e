package repocheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/codemode-dev/codemode/"

// imports returns, per package directory under root (relative, slash form),
// the module's own packages its non-test files import.
func moduleImports(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if out[pkg] == nil {
			out[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) {
				out[pkg][strings.TrimPrefix(p, module)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLayering holds the layout of docs/design.md: the engine imports only its
// own internals and the JS sandbox (nothing of bindings, which import the
// engine), and the sandboxes import nothing of the engine, bindings or tools.
func TestLayering(t *testing.T) {
	root := repoRoot(t)
	all := moduleImports(t, root)
	for pkg, imps := range all {
		for imp := range imps {
			switch {
			case pkg == "engine" || strings.HasPrefix(pkg, "engine/internal/"):
				if !strings.HasPrefix(imp, "engine/internal/") && imp != "sandbox/js" && !strings.HasPrefix(imp, "internal/") {
					t.Errorf("%s imports %s: the engine may import only its internals and sandbox/js", pkg, imp)
				}
			case strings.HasPrefix(pkg, "sandbox/"):
				if !strings.HasPrefix(imp, "sandbox/") && !strings.HasPrefix(imp, "internal/") {
					t.Errorf("%s imports %s: sandboxes are leaves", pkg, imp)
				}
			}
		}
	}
	if len(all["engine"]) == 0 {
		t.Fatal("found no imports of package engine: the walk is broken")
	}
}
