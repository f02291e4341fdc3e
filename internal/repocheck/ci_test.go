package repocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// goroutinePackages lists the package directories (relative, slash form)
// whose Go files, tests included, contain a go statement.
func goroutinePackages(t *testing.T, root string) []string {
	t.Helper()
	set := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.GoStmt); ok {
				rel, _ := filepath.Rel(root, filepath.Dir(path))
				set[filepath.ToSlash(rel)] = true
				return false
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// racePatterns returns the package patterns of the `go test -race` lines of .ci/run.
func racePatterns(t *testing.T, script string) []string {
	t.Helper()
	var pats []string
	for _, line := range strings.Split(script, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "go" || f[1] != "test" || !strings.Contains(line, "-race") {
			continue
		}
		for _, a := range f[2:] {
			if strings.HasPrefix(a, "./") {
				pats = append(pats, a)
			}
		}
	}
	return pats
}

func matches(pattern, pkg string) bool {
	p := strings.TrimPrefix(pattern, "./")
	if p == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(p, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == strings.TrimSuffix(p, "/")
}

// TestCIRacesEveryConcurrentPackage: .ci/run runs the race detector over every
// package that starts goroutines, in its code or its tests.
func TestCIRacesEveryConcurrentPackage(t *testing.T) {
	root := repoRoot(t)
	pats := racePatterns(t, ciScript(t, root))
	if len(pats) == 0 {
		t.Fatal(".ci/run has no `go test -race` line")
	}
	pkgs := goroutinePackages(t, root)
	if len(pkgs) == 0 {
		t.Fatal("found no package with a go statement: the walk is broken")
	}
	for _, pkg := range pkgs {
		covered := false
		for _, p := range pats {
			covered = covered || matches(p, pkg)
		}
		if !covered {
			t.Errorf("%s starts goroutines but .ci/run's race run (%s) leaves it out", pkg, strings.Join(pats, " "))
		}
	}
}

// TestCIPathsExist: every package path .ci/run names exists (a package that
// moved left CI failing after all its tests had passed).
func TestCIPathsExist(t *testing.T) {
	root := repoRoot(t)
	n := 0
	for _, line := range strings.Split(ciScript(t, root), "\n") {
		for _, f := range strings.Fields(line) {
			if !strings.HasPrefix(f, "./") || f == "./..." {
				continue
			}
			n++
			dir := strings.TrimSuffix(strings.TrimSuffix(f, "..."), "/")
			if st, err := os.Stat(filepath.Join(root, dir)); err != nil || !st.IsDir() {
				t.Errorf(".ci/run names %s, which is not a directory of the repository", f)
			}
		}
	}
	if n == 0 {
		t.Fatal("found no package path in .ci/run: the scan is broken")
	}
}

// ciScript returns .ci/run.
func ciScript(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
